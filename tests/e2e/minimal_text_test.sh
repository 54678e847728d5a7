#!/bin/sh
# Minimal mode writes a thread's calls in batches (runtime/tracer_call_batch.h), each
# event written after its calls. On the threads app (main + 4 workers, every call made
# by the app itself), `tracer -m minimal -t` must still:
#  - print one entry and one exit line per call: per function, as many as the app made
#    (its manifest) and as the JSON tally of the same trace counts;
#  - print the exit lines and the other events' lines in time order over the whole file
#    (no thread's batch lets lines of later moments pass its calls), and each thread's
#    lines in time order;
# and babeltrace2 must read the batches as the tracer does: the calls in the
# `lttng_ust_opencl:call` events (their `_calls_length` less the ids slot, over three)
# add up to the tally's calls.
# Usage: minimal_text_test.sh TRACER THREADS [ITERATIONS]
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 TRACER THREADS [ITERATIONS]" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
shift 2
e2e_setup
need_app "$app"
need_tracer "$tracer"

run_traced traced -q -m minimal -t -o "$tmp/lines.txt" -- "$app" "$@"
[ "$rc" -eq 77 ] && skip "no OpenCL runtime"
expect_rc 0 traced
rc=0
"$tracer" -r "$tmp/traced.trace" -j -o "$tmp/tally.json" 2>"$tmp/replay.err" || rc=$?
expect_rc 0 replay
compare_tally "$tmp/tally.json" "$tmp/traced.json"

# Lines per function against the tally.
jq -r '.backends[] | select(.name == "opencl") | .host[] | "\(.name) \(.calls)"' \
  "$tmp/tally.json" >"$tmp/calls.txt"
[ -s "$tmp/calls.txt" ] || fail "the tally has no OpenCL calls"
while read -r function calls; do
  entries=$(grep -c ":${function}_entry: {" "$tmp/lines.txt" || true)
  exits=$(grep -c ":${function}_exit: {" "$tmp/lines.txt" || true)
  [ "$entries" -eq "$calls" ] && [ "$exits" -eq "$calls" ] ||
    fail "$function: $entries entry and $exits exit lines, the tally counts $calls calls"
done <"$tmp/calls.txt"

# Time order: every line starts with HH:MM:SS.NNNNNNNNN; entry lines are placed with
# their thread, so only exit and event lines are checked over the whole file (a run
# that crosses midnight adds a day).
order=$(awk '
  function ns(t,   p) { split(t, p, /[:.]/); return ((p[1] * 60 + p[2]) * 60 + p[3]) * 1e9 + p[4] }
  /^[0-9][0-9]:/ {
    t = ns($1) + day
    if (seen && t < last - 43200e9) { day += 86400e9; t += 86400e9 }
    tid = $0; sub(/.*tid: /, "", tid); sub(/ .*/, "", tid)
    if (tid in thread_last && t < thread_last[tid]) { print "thread " tid ": " $0; exit }
    thread_last[tid] = t
    if ($0 !~ /_entry: \{/) {
      if (seen && t < last) { print "file: " $0 " (after " last_line ")"; exit }
      last = t; last_line = $1; seen = 1
    }
  }' "$tmp/lines.txt")
[ -z "$order" ] || fail "a line out of time order: $order"

# babeltrace2 reads the same calls out of the batches.
if command -v babeltrace2 >/dev/null 2>&1; then
  bt_calls=$(babeltrace2 "$tmp/traced.trace" 2>"$tmp/bt.err" |
    sed -n 's/.*lttng_ust_opencl:call: .*_calls_length = \([0-9]*\),.*/\1/p' |
    awk '{ calls += ($1 - 1) / 3 } END { print calls + 0 }')
  tally_calls=$(awk '{ n += $2 } END { print n + 0 }' "$tmp/calls.txt")
  [ "$bt_calls" -eq "$tally_calls" ] ||
    fail "babeltrace2 reads $bt_calls calls in the batches, the tally $tally_calls"
fi
echo "PASS: $e2e_name: $(awk '{ n += $2 } END { print n + 0 }' "$tmp/calls.txt") calls in batches, two lines each, in time order"
