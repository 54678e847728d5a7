#!/bin/sh
# `tracer -l` on a test app: the timeline, read back by the tests' own decoder
# (pftrace_dump) and by protoc with the project's proto description, agrees with the
# app's own count of its calls and with the tally of the same trace.
# Usage: timeline_e2e_test.sh [-m MODE] TRACER APP PFTRACE_DUMP
#
# Checks:
#  - every slice nests or follows on its track (no slice lost or cut), every track is
#    described: host > process > thread, host > device > queue;
#  - one thread track per thread the app used; calls per function on them equal the
#    app's count, their durations add up to the tally's time per function (1 ns a call);
#  - kernels by name, copies per enqueue function and their bytes equal the app's;
#  - each device slice ends a flow that starts at a call of the matching function on
#    the same process, which began before the device work did;
#  - default mode: the memory counter has one value per successful alloc and free
#    and ends at 0 (every app releases its buffers);
#  - protoc --decode with cli/exports/perfetto/timeline.proto reads the file: as many events as
#    the decoder found; the JSON timeline parses and holds one "X" event per slice;
#  - tracer -r DIR -l FILE writes the same bytes again, on one thread and on two (the
#    writing on a second, cli/reader/consumer_thread.c); -l FILE.json writes the JSON in
#    FILE and the protobuf as FILE's stem .pftrace, nothing else; an unwritable FILE gives
#    a message naming it and exit status 4.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
mode_options=""
if [ "${1:-}" = -m ]; then
  mode_options="-m $2"
  shift 2
fi
[ $# -eq 3 ] || { echo "usage: $0 [-m MODE] TRACER APP PFTRACE_DUMP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
dump=$(abspath "$3")
proto="$here/../../cli/exports/perfetto/timeline.proto"
e2e_setup
need_app "$app"
need_tracer "$tracer"
command -v protoc >/dev/null 2>&1 || fail "protoc not found (scripts/setup.sh installs protobuf-compiler)"

# shellcheck disable=SC2086
run_traced traced $mode_options -l "$tmp/t.pftrace" --timeline-format json -j -o "$tmp/tally.json" \
  -- "$app"
[ "$rc" -eq 77 ] && skip "no OpenCL runtime"
expect_rc 0 traced
[ -s "$tmp/t.pftrace" ] || fail "no timeline written; stderr: $(cat "$tmp/traced.err")"
"$dump" -r "$tmp/t.pftrace" >"$tmp/dump.txt" 2>"$tmp/dump.err" ||
  fail "the timeline does not decode or check: $(cat "$tmp/dump.err")"

# The dump as JSON lines, for jq.
awk -f "$here/dump_to_json.awk" "$tmp/dump.txt" | jq -s . >"$tmp/dump.json" || fail "cannot read the dump: $(head -5 "$tmp/dump.txt")"

problems=$(jq -r --slurpfile m "$tmp/traced.json" --slurpfile tally "$tmp/tally.json" \
  --arg mode "${mode_options:-default}" -f "$here/check_timeline.jq" "$tmp/dump.json") ||
  fail "jq failed on the dump"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: the timeline differs from what the app did:" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

# protoc, from the project's own description of the format.
protoc --decode=perfetto.protos.Trace -I "$(dirname "$proto")" "$proto" <"$tmp/t.pftrace" \
  >"$tmp/protoc.txt" 2>"$tmp/protoc.err" || fail "protoc cannot decode the timeline: $(cat "$tmp/protoc.err")"
events=$(grep -c '^  track_event {' "$tmp/protoc.txt" || true)
slices=$(jq '[.[] | select(.type == "slice")] | length' "$tmp/dump.json")
counters=$(jq '[.[] | select(.type == "counter")] | length' "$tmp/dump.json")
[ "$events" -eq $((2 * slices + counters)) ] ||
  fail "protoc sees $events track events, the decoder $slices slices and $counters counter values"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
x = sum(1 for e in d["traceEvents"] if e["ph"] == "X")
sys.exit(0 if x == int(sys.argv[2]) else "JSON holds %d X events, want %s" % (x, sys.argv[2]))
' "$tmp/t.json" "$slices" || fail "the JSON timeline does not match"

# Again, writing on a second thread (cli/reader/consumer_thread.c) and on one: the same bytes.
for threads in 1 2; do
  rc=0
  "$tracer" -q -r "$tmp/traced.trace" -l "$tmp/replay.pftrace" -j -o /dev/null --threads $threads \
    2>"$tmp/replay.err" || rc=$?
  expect_rc 0 replay
  cmp -s "$tmp/t.pftrace" "$tmp/replay.pftrace" ||
    fail "tracer -r -l --threads $threads writes another timeline"
done
# -l FILE.json: the Chrome JSON in FILE, the protobuf beside it as FILE's stem .pftrace
# (the same bytes), and no FILE.json.json; as --timeline=FILE and with --timeline-format.
for form in "-l $tmp/named.json" "--timeline=$tmp/named.json --timeline-format json"; do
  rm -f "$tmp"/named.*
  rc=0
  # shellcheck disable=SC2086 # the form's words
  "$tracer" -q -r "$tmp/traced.trace" $form -o /dev/null 2>"$tmp/named.err" || rc=$?
  expect_rc 0 named
  cmp -s "$tmp/t.json" "$tmp/named.json" || fail "tracer -r $form: $tmp/named.json is not the JSON timeline: $(head -c 200 "$tmp/named.json" | od -c | head -3)"
  cmp -s "$tmp/t.pftrace" "$tmp/named.pftrace" || fail "tracer -r $form: no protobuf timeline as named.pftrace: $(ls "$tmp")"
  [ ! -e "$tmp/named.json.json" ] || fail "tracer -r $form also wrote named.json.json"
done
# A timeline that cannot be written: a message naming the file, and the analysis status.
rc=0
"$tracer" -q -r "$tmp/traced.trace" -l "$tmp/no-such-dir/x.pftrace" -o /dev/null 2>"$tmp/bad.err" || rc=$?
[ "$rc" -eq 4 ] || fail "an unwritable timeline gave exit status $rc, expected 4"
grep -q "Cannot write the timeline: Cannot create the timeline: file=$tmp/no-such-dir/x.pftrace" \
  "$tmp/bad.err" || fail "an unwritable timeline gave: $(cat "$tmp/bad.err")"
echo "PASS: $e2e_name: ${mode_options:+$mode_options }$(basename "$app"): $slices slices, $counters counter values, $(grep -c '^track' "$tmp/dump.txt") tracks"
