#!/bin/sh
# Every device is itself (docs/analysis-output.md, docs/timeline.md): a program that puts
# kernels and a copy on each of the null CUDA driver's two devices
# (tests/apps/cuda_devices_app.c) under the tracer. From the program's own lines
# ("device D (NAME): K kernels, C copies"):
#   - the report has one "Device use" section per device, named "GPU D: NAME", whose
#     commands are the device's kernels and copies;
#   - the timeline has one device track per device, named so, holding that device's
#     queue, with the device's kernels on it; no queue track under another device;
#   - the trace's device_command events carry the device's ordinal and name;
#   - the device time per rank has a row for the device, whose shares add up to its span
#     and whose launch delay counts every kernel the app launched there;
#   - the OTF2 archive (--otf2) has one accelerator location group per device named as
#     the report names it, under a system tree node of that name, whose streams are named
#     as the timeline's queue tracks and hold the device's commands;
#   - a kernel is named whole in -j and with --full-names (as c++filt demangles it), and
#     in the text tables without its return type, template arguments and parameters.
# Usage: cuda_devices_test.sh TRACER APP
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
proto="$(cd "$(dirname "$0")/../.." && pwd)/cli/exports/perfetto/timeline.proto"
e2e_setup
need_tracer "$tracer"
need_app "$app"
command -v protoc >/dev/null 2>&1 || fail "protoc not found (scripts/setup.sh installs protobuf-compiler)"
command -v babeltrace2 >/dev/null 2>&1 || fail "babeltrace2 not found"
command -v c++filt >/dev/null 2>&1 || fail "c++filt not found (binutils)"
/usr/bin/python3 -c 'import otf2' 2>/dev/null ||
  fail "Debian's python3 cannot import otf2 (scripts/setup.sh installs python3-otf2)"

run_traced devices -l "$tmp/t.pftrace" -o "$tmp/report.txt" --otf2 "$tmp/archive" -- "$app"
expect_rc 0 devices
"$tracer" -r "$tmp/devices.trace" -j -o "$tmp/report.json" 2>"$tmp/json.err" ||
  fail "tracer -r -j: $(cat "$tmp/json.err")"
"$tracer" -r "$tmp/devices.trace" --full-names -o "$tmp/full.txt" 2>"$tmp/full.err" ||
  fail "tracer -r --full-names: $(cat "$tmp/full.err")"
# Each stream of the archive as "group<TAB>its system tree node<TAB>stream<TAB>enters".
/usr/bin/python3 - "$tmp/archive/traces.otf2" >"$tmp/streams.txt" 2>"$tmp/otf2.err" <<'PY' ||
import collections, sys
import otf2
from otf2.enums import LocationType
enters = collections.Counter()
with otf2.reader.open(sys.argv[1]) as trace:
    for location, event in trace.events:
        if isinstance(event, otf2.events.Enter):
            enters[location.name, location.group.name] += 1
    for l in trace.definitions.locations:
        if l.type == LocationType.ACCELERATOR_STREAM:
            print("%s\t%s\t%s\t%d" % (l.group.name, l.group.system_tree_parent.name, l.name,
                                      enters[l.name, l.group.name]))
PY
  fail "cannot read the OTF2 archive: $(cat "$tmp/otf2.err")"
grep -c '^device ' "$tmp/devices.out" | grep -qx 2 || fail "the app did not report two devices: $(cat "$tmp/devices.out")"

protoc --decode=perfetto.protos.Trace -I "$(dirname "$proto")" "$proto" <"$tmp/t.pftrace" \
  >"$tmp/protoc.txt" 2>"$tmp/protoc.err" || fail "protoc cannot decode the timeline: $(cat "$tmp/protoc.err")"
babeltrace2 "$tmp/devices.trace" >"$tmp/events.txt" 2>/dev/null || fail "babeltrace2 cannot read the trace"

# The timeline's track descriptors as "uuid parent name" lines.
awk '/^  track_descriptor \{/ { in_d = 1; uuid = ""; parent = ""; name = ""; next }
     in_d && /^    uuid:/ { uuid = $2 }
     in_d && /^    parent_uuid:/ { parent = $2 }
     in_d && /^    name:/ { sub(/^    name: "/, ""); sub(/"$/, ""); name = $0 }
     in_d && /^  \}/ { print uuid, (parent == "" ? "-" : parent), name; in_d = 0 }' \
  "$tmp/protoc.txt" | sort -u >"$tmp/tracks.txt"

while IFS= read -r line; do
  # "device 0 (Null GPU 0): 3 kernels, 1 copies"
  ordinal=$(printf '%s\n' "$line" | sed 's/^device \([0-9]*\) .*/\1/')
  name=$(printf '%s\n' "$line" | sed 's/^device [0-9]* (\(.*\)): .*/\1/')
  kernels=$(printf '%s\n' "$line" | sed 's/.*: \([0-9]*\) kernels.*/\1/')
  copies=$(printf '%s\n' "$line" | sed 's/.*, \([0-9]*\) copies.*/\1/')
  symbol=$(printf '%s\n' "$line" | sed 's/.* kernels of \(.*\), [0-9]* copies$/\1/')
  label="GPU $ordinal: $name"

  # The kernel's name: whole (as c++filt demangles it) in -j and with --full-names; in
  # the text tables without return type, template arguments, parameters and anonymous
  # namespace (a plain C name stays as it is).
  whole=$(printf '%s\n' "$symbol" | c++filt)
  short=$(printf '%s\n' "$whole" | sed 's/^[^ (]* //; s/(anonymous namespace):://g;
    s/<[^>]*>/<...>/g; s/(.*)$//')
  jq -e --arg k "$whole" '[.backends[].device[] | select(.name == $k)] | length > 0' \
    "$tmp/report.json" >/dev/null || fail "-j has no kernel named \"$whole\""
  grep -q "^$(printf '%s' "$short" | sed 's/[.*[]/\\&/g') *|" "$tmp/report.txt" ||
    fail "the text tables do not name the kernel \"$short\": $(cat "$tmp/report.txt")"
  grep -qF "$whole" "$tmp/full.txt" || fail "--full-names does not show \"$whole\""
  if [ "$short" != "$whole" ]; then
    grep -qF "$whole" "$tmp/report.txt" && fail "the text tables show \"$whole\" whole"
    grep -q "^Kernel names without their return type" "$tmp/report.txt" ||
      fail "the text tables do not say kernel names are shortened"
  fi

  # The report: a section for the device, its commands those the app put there.
  section=$(awk -v want="Device use (CUDA) | $label on " 'index($0, want) == 1 { on = 1; next }
             /^Device use/ { on = 0 } on' "$tmp/report.txt")
  [ -n "$section" ] || fail "no \"Device use (CUDA) | $label on ...\" section: $(cat "$tmp/report.txt")"
  commands=$(printf '%s\n' "$section" | awk -F'|' '$1 ~ /^all queues/ { gsub(/ /, "", $4); print $4 }')
  [ "$commands" = $((kernels + copies)) ] ||
    fail "$label: $commands commands in its device use, the app put $((kernels + copies)) there"

  # The device time per rank (HTA's definitions): a row for the device, its shares
  # adding up to its span, and every kernel's launch found (the launch delay's count).
  pid=$(grep 'lttng_ust_tracer:device_command' "$tmp/events.txt" | grep "device = $ordinal," |
    head -1 | sed 's/.* pid = \([0-9]*\),.*/\1/')
  row=$(awk -F'|' -v want="pid $pid GPU $ordinal" '/^Device time per rank/ { on = 1 }
         on { n = $1; sub(/ +$/, "", n) } on && n == want { print; exit }' "$tmp/report.txt")
  [ -n "$row" ] || fail "$label: no \"pid $pid GPU $ordinal\" row in the device time per rank: $(cat "$tmp/report.txt")"
  printf '%s\n' "$row" | awk -F'|' '{ s = $3 + $4 + $5 + $6; gsub(/%| /, "", s) }
    END { exit !(s >= 99.7 && s <= 100.3) }' ||
    fail "$label: compute, communication, copies and idle do not add up to the span: $row"
  launched=$(awk -F'|' -v want="pid $pid GPU $ordinal" '/^Kernel launch delay/ { on = 1 }
              on { n = $1; sub(/ +$/, "", n) } on && n == want { gsub(/ /, "", $2); print $2; exit }' "$tmp/report.txt")
  [ "$launched" = "$kernels" ] ||
    fail "$label: the launch delay counts $launched kernels, the app launched $kernels"

  # The trace: its commands carry the device's ordinal and name.
  recorded=$(grep 'lttng_ust_tracer:device_command' "$tmp/events.txt" |
    grep -c "device = $ordinal, device_name = \"$name\"" || true)
  [ "$recorded" -eq $((kernels + copies)) ] ||
    fail "$label: $recorded device_command events name it, $((kernels + copies)) expected"

  # The timeline: one device track of that name, its queue under it, its kernels there.
  device_uuid=$(awk -v want="$label" '{ u = $1; p = $2; $1 = ""; $2 = ""; sub(/^  /, "") }
                 $0 == want { print u }' "$tmp/tracks.txt")
  [ "$(printf '%s\n' "$device_uuid" | grep -c .)" -eq 1 ] ||
    fail "the timeline has $(printf '%s\n' "$device_uuid" | grep -c .) tracks named \"$label\", 1 expected"
  queues=$(awk -v parent="$device_uuid" '$2 == parent { print $1 }' "$tmp/tracks.txt")
  [ "$(printf '%s\n' "$queues" | grep -c .)" -eq 1 ] || fail "$label: its track holds no single queue: $queues"
  on_queue=$(awk -v q="$queues" '/^  track_event \{/ { e = 1; t = ""; next }
              e && /^    type: TYPE_SLICE_BEGIN/ { b = 1 }
              e && /^    track_uuid:/ { t = $2 }
              e && /^  \}/ { if (b && t == q) n++; e = 0; b = 0 } END { print n + 0 }' "$tmp/protoc.txt")
  [ "$on_queue" -eq $((kernels + copies)) ] ||
    fail "$label: $on_queue slices on its queue track, $((kernels + copies)) expected"

  # OTF2: the device's location group, named as the report and the timeline name it,
  # under its system tree node; its stream named as the timeline's queue; its commands.
  queue_name=$(awk -v q="$queues" '$1 == q { $1 = ""; $2 = ""; sub(/^  /, ""); print }' "$tmp/tracks.txt")
  streams=$(awk -F'\t' -v want="$label" '$1 == want' "$tmp/streams.txt")
  [ -n "$streams" ] || fail "no OTF2 location group named \"$label\": $(cat "$tmp/streams.txt")"
  printf '%s\n' "$streams" | awk -F'\t' -v want="$label" -v q="$queue_name" -v n=$((kernels + copies)) '
    $2 != want { print "its system tree node is named \"" $2 "\""; bad = 1 }
    index($3, q) != 1 { print "its stream is named \"" $3 "\", the timeline'"'"'s queue \"" q "\""; bad = 1 }
    { sum += $4 } END { if (sum != n) { print sum " enters on its streams, " n " expected"; bad = 1 }
                        exit bad }' >"$tmp/bad.txt" || fail "$label in OTF2: $(cat "$tmp/bad.txt")"
done <<EOF2
$(grep '^device ' "$tmp/devices.out")
EOF2
echo "PASS: $e2e_name"
