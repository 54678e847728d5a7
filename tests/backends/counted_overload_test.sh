#!/bin/sh
# Counted entries survive an overload (cli/control/session.h: their own channel): 16
# threads each make CALLS rounds of a counted call (cuCtxGetCurrent) and a recorded one
# (cuDeviceGetCount) on the null CUDA driver, into the smallest buffers. The recorded
# events overflow them (discarded events > 0: the overload is real), while every thread
# writes a counted entry every 65,536 calls and at its end; the tally must still hold
# every counted call, exactly: one entry lost would take 65,536 calls with it, and the
# discarded-events count would show it as one event.
# Usage: counted_overload_test.sh TRACER APP
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$app"
threads=16 calls=200000

for run in 1 2 3; do
  run_traced "flood$run" --buffer-size 4k --buffer-count 2 -j -o "$tmp/tally$run.json" \
    -- "$app" "$threads" "$calls"
  [ "$rc" -eq 0 ] || { show_err "flood$run"; fail "run $run: the tracer exited $rc"; }
  grep -qx "counted_flood: $threads threads x $calls calls" "$tmp/flood$run.out" ||
    fail "run $run: the app did not finish: $(cat "$tmp/flood$run.out")"
  counted=$(jq '[.backends[] | select(.name == "cuda") | .host[] |
                 select(.name == "cuCtxGetCurrent") | .calls] | add // 0' "$tmp/tally$run.json")
  # As printed: jq would round a 64-bit value to a double.
  discarded=$(sed -n 's/^ *"discarded_events": \([0-9]*\),*$/\1/p' "$tmp/tally$run.json")
  echo "run $run: cuCtxGetCurrent calls in the tally $counted (app: $((threads * calls))), discarded events $discarded"
  [ "${discarded:-0}" -gt 0 ] || fail "run $run: no event was discarded: the buffers were not overloaded"
  [ "$counted" -eq $((threads * calls)) ] ||
    fail "run $run: the tally has $counted cuCtxGetCurrent calls, the app made $((threads * calls))"
done
echo "PASS: $e2e_name"
