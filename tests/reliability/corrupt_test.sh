#!/bin/sh
# A damaged trace: `tracer -r` says what is wrong and where, exits 4, still prints the
# tally of what it could read, and never crashes.
# Usage: corrupt_test.sh truncate|garbage|metadata TRACER FLOOD_APP
#
# The trace: one thread making 20000 clGetPlatformIDs calls (apps/flood.c), recorded with
# --blocking into 16 KiB sub-buffers, so that its stream file holds many packets and no
# event is lost; the tally of the intact trace must equal the app's count. Then a copy is
# damaged:
#   truncate  the largest stream file cut in the middle (not at a packet boundary)
#   garbage   256 bytes of a fixed garbage pattern written over the middle of that file
#   metadata  the metadata file cut in half (inside a packet)
# and `tracer -r` reads it three ways (JSON tally, text tally, -t call list). Each must:
# exit 4; not die of a signal; print no sanitizer report (with an ASan/UBSan build);
# say on stderr which file is damaged and where (the stream file and a byte offset, or
# the metadata file and a line or offset). For truncate and garbage the JSON tally is
# still printed, with 0 < calls <= the intact trace's calls, and the error in "error".
set -u
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 truncate|garbage|metadata TRACER FLOOD_APP" >&2; exit 2; }
scenario=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
rel_setup
need_exe tracer "$tracer"
need_exe "flood app" "$app"
# A sanitizer build of the tracer reports into its stderr, and must not die quietly.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"

rc=0
REL_COUNT="$tmp/count" "$tracer" --blocking --buffer-size 16k --buffer-count 4 \
  --trace-output "$tmp/trace" -j -o "$tmp/full.json" -- "$app" 1 20000 \
  >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 77 ] || grep -q "SKIP: no OpenCL" "$tmp/err"; then
  skip "no OpenCL runtime: $(cat "$tmp/err")"
fi
[ "$rc" -eq 0 ] || die "recording the trace failed ($rc): $(cat "$tmp/err")"
check_eq "intact trace: discarded events" 0 "$(jq '.discarded_events' "$tmp/full.json")"
check_counts "intact trace" "$tmp/count" "$tmp/full.json"
full=$(jq '[.backends[] | .host[] | .calls] | add' "$tmp/full.json")

cp -a "$tmp/trace" "$tmp/bad"
dir=$(dirname "$(find "$tmp/bad" -name metadata | head -n 1)")
[ -d "$dir" ] || die "no metadata file in the trace"
stream=$(ls -S "$dir"/tracer_* | head -n 1)
size=$(stat -c %s "$stream")
say "stream $(basename "$stream"): $size bytes"
case $scenario in
truncate)
  cut=$((size / 2 + 100))
  truncate -s "$cut" "$stream"
  say "cut $(basename "$stream") to $cut bytes"
  where=$(basename "$stream")
  ;;
garbage)
  at=$((size / 2 + 100))
  i=0
  while [ $i -lt 64 ]; do
    printf '\336\255\276\357'
    i=$((i + 1))
  done | dd of="$stream" bs=1 seek="$at" conv=notrunc status=none
  say "wrote 256 bytes of garbage at offset $at of $(basename "$stream")"
  where=$(basename "$stream")
  ;;
metadata)
  # LTTng writes metadata in 4 KiB packets that often end where a declaration ends: a cut
  # at a packet boundary can leave valid, shorter metadata. 1000 bytes past the middle
  # is always inside a packet.
  msize=$(stat -c %s "$dir/metadata")
  cut=$((msize / 2 + 1000))
  truncate -s "$cut" "$dir/metadata"
  say "cut metadata from $msize to $cut bytes"
  where=metadata
  ;;
*) die "unknown scenario $scenario" ;;
esac

# read_bad LABEL TRACER-OPTIONS...: tracer -r on the damaged copy.
read_bad() {
  label=$1
  shift
  rc=0
  # Leaks on the error paths count too (an ASan build; ignored otherwise).
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=1" \
    "$tracer" -r "$tmp/bad" "$@" >"$tmp/$label.out" 2>"$tmp/$label.err" || rc=$?
  check_eq "$label: exit status" 4 "$rc"
  [ "$rc" -ge 128 ] && fail "$label: the tracer died of signal $((rc - 128))"
  if grep -qE 'Sanitizer|runtime error:' "$tmp/$label.err"; then
    fail "$label: sanitizer report:"
    sed 's/^/    /' "$tmp/$label.err" | head -30
  fi
  msg=$(grep 'error' "$tmp/$label.err" | head -n 3)
  say "$label: stderr: $msg"
  case $where in
  metadata) pattern="metadata(:[0-9]+:|.*offset=[0-9]+)" ;;
  *) pattern="$where.*offset=[0-9]+" ;;
  esac
  if printf '%s\n' "$msg" | grep -qE "$pattern"; then
    ok "$label: the error names $where and where in it"
  else
    fail "$label: the error does not name $where and a line or byte offset (wanted /$pattern/)"
  fi
}

read_bad json -j
read_bad text
read_bad calls -t
if [ "$scenario" != metadata ]; then
  if jq -e . "$tmp/json.out" >/dev/null 2>&1; then
    got=$(jq '[.backends[]? | .host[] | .calls] | add // 0' "$tmp/json.out")
    if [ "$got" -gt 0 ] && [ "$got" -le "$full" ]; then
      ok "the tally of what could be read: $got calls (intact: $full)"
    else
      fail "the tally counts $got calls; expected more than 0 and at most $full"
    fi
    if jq -e '.error | strings' "$tmp/json.out" >/dev/null; then
      ok "the JSON says what went wrong: $(jq -r .error "$tmp/json.out")"
    else
      fail "the JSON tally has no \"error\""
    fi
  else
    fail "no JSON tally on stdout: $(head -c 300 "$tmp/json.out")"
  fi
  if grep -q '^clGetPlatformIDs ' "$tmp/text.out"; then
    ok "the text tally is printed"
  else
    fail "no clGetPlatformIDs row in the text tally"
  fi
fi
rel_finish "$scenario"
