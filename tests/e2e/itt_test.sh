#!/bin/sh
# ITT regions, pause and resume through the tracer's collector, against what the app
# (tests/apps/itt_regions.c) says it did.
# Usage: itt_test.sh TRACER APP
#
# The app loads the collector that the tracer names in INTEL_LIBITTNOTIFY64. Checks, for a
# plain run and for `--start-paused` (the app then resumes after one task):
#  - the tracer exits 0 and the app ran as untraced (same stdout);
#  - backend "itt" has exactly the regions Step, Forward and Layer, each with the app's
#    count, none shorter than the app's sleeps inside it, average within min and max, and
#    no region that the app ran while paused;
#  - __itt_task_begin is counted once per recorded task (none while paused);
#  - the run reports the app's number of pauses, and at least the time it slept paused;
#  - babeltrace2 reads the same regions: on two threads, at the app's depths (Step 0,
#    Forward 1, Layer 2), each inside the one that encloses it on its thread;
#  - `tracer -r DIR -t` shows the region events, and the text tally has the regions table.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_app "$app"
need_tracer "$tracer"
command -v babeltrace2 >/dev/null 2>&1 || fail "babeltrace2 not found (scripts/setup.sh installs it)"

rc=0
"$app" >"$tmp/plain.out" 2>"$tmp/plain.err" || rc=$?
[ "$rc" -eq 77 ] || fail "the app ran without a collector and did not say so (exit $rc)"

check_run() {
  name=$1
  tally=$tmp/$name.json
  manifest=$tmp/$name.manifest.json
  mv "$tmp/$name.json" "$manifest" 2>/dev/null || fail "$name: the app wrote no manifest"
  "$tracer" -r "$tmp/$name.trace" -j -o "$tally" >/dev/null 2>"$tmp/$name.replay.err" ||
    fail "$name: tracer -r failed: $(cat "$tmp/$name.replay.err")"
  problems=$(jq -r --slurpfile m "$manifest" '
    $m[0] as $m
    | (.backends[] | select(.name == "itt")) as $b
    | ($b.regions | map({key: .name, value: .}) | from_entries) as $r
    | [ ($m.regions | to_entries[] | .key as $k | .value as $want
         | if ($r[$k] | not) then "region \($k) missing"
           elif $r[$k].calls != $want.calls then "region \($k): \($r[$k].calls) calls, app made \($want.calls)"
           elif $r[$k].min_ns < $want.min_ns then "region \($k): min \($r[$k].min_ns) ns, shorter than the app slept (\($want.min_ns) ns)"
           elif ($r[$k].time_ns / $r[$k].calls) < $r[$k].min_ns or ($r[$k].time_ns / $r[$k].calls) > $r[$k].max_ns then "region \($k): average outside min..max"
           else empty end),
        ($b.regions[] | select(.name as $n | $m.regions | has($n) | not) | "unexpected region \(.name) (\(.calls) calls)"),
        ([$b.host[] | select(.name == "__itt_task_begin") | .calls][0] // 0
         | if . != $m.task_begin_recorded then "__itt_task_begin: \(.) calls recorded, app made \($m.task_begin_recorded) while recording" else empty end),
        (if .pauses != $m.pauses then "\(.pauses) pauses reported, app made \($m.pauses)" else empty end),
        (if .paused_ns < $m.min_paused_ns then "paused \(.paused_ns) ns, app slept \($m.min_paused_ns) ns paused" else empty end)
      ] | .[]' "$tally") || fail "$name: jq could not read $tally"
  if [ -n "$problems" ]; then
    echo "FAIL: $e2e_name: $name: the tally differs from what the app did:" >&2
    printf '%s\n' "$problems" | sed 's/^/  /' >&2
    exit 1
  fi

  # The reference decoder: tid, name, depth, start, end of every region.
  babeltrace2 "$tmp/$name.trace" 2>"$tmp/$name.bt.err" |
    sed -n 's/.*lttng_ust_tracer:region: .* tid = \([0-9]*\), backend = "itt", name = "\([^"]*\)", depth = \([0-9]*\), start = \([0-9]*\), end = \([0-9]*\) }.*/\1 \2 \3 \4 \5/p' \
      >"$tmp/$name.regions" || fail "$name: babeltrace2 cannot read the trace"
  nesting=$(jq -rs --slurpfile m "$manifest" -R '
    $m[0] as $m
    | split("\n") | map(select(length > 0) | split(" ")
        | {tid: .[0], name: .[1], depth: (.[2] | tonumber), start: (.[3] | tonumber), end: (.[4] | tonumber)}) as $r
    | [ (if ($r | map(.tid) | unique | length) != $m.threads then "regions on \($r | map(.tid) | unique | length) threads, app used \($m.threads)" else empty end),
        ($r[] | select($m.regions[.name].depth != .depth) | "\(.name) at depth \(.depth), app nested it at \($m.regions[.name].depth)"),
        ($r[] | select(.depth > 0) | . as $x
         | select([$r[] | select(.tid == $x.tid and .depth == $x.depth - 1 and .start <= $x.start and .end >= $x.end)] | length != 1)
         | "\(.name) on thread \(.tid) is not inside exactly one region at depth \(.depth - 1)")
      ] | .[]' "$tmp/$name.regions") || fail "$name: jq could not read the regions"
  if [ -n "$nesting" ]; then
    echo "FAIL: $e2e_name: $name: babeltrace2's regions differ from the app's nesting:" >&2
    printf '%s\n' "$nesting" | sed 's/^/  /' >&2
    exit 1
  fi
}

run_traced traced -b itt -j -o "$tmp/traced.tally" -- "$app"
expect_rc 0 traced
check_run traced

run_traced paused -b itt --start-paused -j -o "$tmp/paused.tally" -- "$app" start-paused
expect_rc 0 paused
check_run paused

# The text forms: the regions table, the pause line, and the region events under -t.
"$tracer" -r "$tmp/traced.trace" >"$tmp/text.out" 2>"$tmp/text.err" || fail "tracer -r failed"
grep -q '^BACKEND_ITT | 3 Regions |' "$tmp/text.out" || fail "no regions table in the text tally"
grep -q '^Layer  *|' "$tmp/text.out" || fail "no Layer row in the regions table"
grep -q '^The recording was paused 1 time' "$tmp/text.out" || fail "the text tally does not say the run was paused"
"$tracer" -r "$tmp/traced.trace" -t >"$tmp/trace.out" 2>"$tmp/trace.err" || fail "tracer -r -t failed"
[ "$(grep -c 'lttng_ust_tracer:region' "$tmp/trace.out")" -eq 18 ] ||
  fail "tracer -t shows $(grep -c 'lttng_ust_tracer:region' "$tmp/trace.out") region events, expected 18"
echo "PASS: $e2e_name"
