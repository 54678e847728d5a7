#!/bin/sh
# A call's reported time is its own: for a cheap call (clGetPlatformIDs asking for the
# count, a few ns), the tally's average, less the one call that initialises the platform,
# is within BOUND ns of the same loop's cost per call measured untraced in this test.
# BOUND is 10 ns where the trace clock is the TSC and 30 ns where it is CLOCK_MONOTONIC
# (docs/trace-format.md says why). Machines are shared: the best of up to 10 runs each
# way counts, since a preemption inside a call's span lengthens it (the tally reports
# that time too; it is the machine's, not the tracer's).
#
#   call_time_test.sh TRACER CL_LOOP
. "$(dirname "$0")/lib.sh"
tracer=$(abspath "$1")
app=$(abspath "$2")
need_tracer "$tracer"
need_app "$app"
e2e_setup
calls=100000

untraced=
for run in 1 2 3 4 5; do
  ns=$("$app" --calls $calls | sed -n 's/^ns_per_call=\([0-9.]*\) .*/\1/p')
  [ -n "$ns" ] || fail "the loop app printed no ns_per_call"
  untraced=$(awk -v a="$untraced" -v b="$ns" 'BEGIN { print (a == "" || b < a) ? b : a }')
done
echo "untraced: $untraced ns a call (best of 5)"

for mode in default minimal full; do
  best=
  bound=
  for run in 1 2 3 4 5 6 7 8 9 10; do
    rm -rf "$tmp/trace"
    "$tracer" -q -m $mode -j -o "$tmp/tally.json" --trace-output "$tmp/trace" -- \
      "$app" --calls $calls >/dev/null 2>"$tmp/err" || fail "$mode: tracer failed: $(cat "$tmp/err")"
    if [ -z "$bound" ]; then
      if grep -aq 'name = "tracer_tsc"' "$(find "$tmp/trace" -name metadata | head -1)"; then
        bound=10
      else
        bound=30
      fi
    fi
    # The loop app's warm-up makes 1000 calls more than --calls; the first initialises
    # the platform (milliseconds) and is the slowest: leave it out.
    ns=$(jq -r '.backends[] | select(.name == "opencl") | .host[] |
                select(.name == "clGetPlatformIDs") | (.time_ns - .max_ns) / (.calls - 1)' \
           "$tmp/tally.json")
    [ -n "$ns" ] || fail "$mode: no clGetPlatformIDs in the tally"
    best=$(awk -v a="$best" -v b="$ns" 'BEGIN { print (a == "" || b < a) ? b : a }')
    awk -v t="$best" -v u="$untraced" -v b="$bound" 'BEGIN { d = t - u; if (d < 0) d = -d; exit !(d <= b) }' && break
  done
  if awk -v t="$best" -v u="$untraced" -v b="$bound" 'BEGIN { d = t - u; if (d < 0) d = -d; exit !(d <= b) }'; then
    echo "ok: $mode: reported $best ns a call, untraced $untraced ns: within $bound ns"
  else
    fail "$mode: reported $best ns a call (best of 10 runs), untraced $untraced ns: more than $bound ns apart"
  fi
done
