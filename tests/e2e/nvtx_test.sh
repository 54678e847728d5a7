#!/bin/sh
# NVTX ranges and marks through the tracer's NVTX tool, against what the app
# (tests/apps/nvtx_app.c) says it did.
# Usage: nvtx_test.sh TRACER APP
#
# The app's NVTX (header-only) loads the tool that the tracer names in
# NVTX_INJECTION64_PATH. Checks:
#  - untraced (no tool named) the app says so (77); traced, it exits 0 with the same output;
#  - backend "nvtx" counts each NVTX call as the app made it;
#  - its regions are exactly Step, Forward (a domain range), Layer (named by attributes),
#    Checkpoint (marks, no length) and Epoch (start/end), each with the app's count, none
#    shorter than the app's sleeps inside it, average within min and max;
#  - babeltrace2 reads the same regions, on the app's threads, at the app's depths, each
#    inside the one that encloses it on its thread;
#  - the text report has the regions table.
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
env -u NVTX_INJECTION64_PATH "$app" >"$tmp/plain.out" 2>"$tmp/plain.err" || rc=$?
[ "$rc" -eq 77 ] || fail "the app ran without an NVTX tool and did not say so (exit $rc)"

run_traced traced -j -o "$tmp/tally.json" -- "$app"
expect_rc 0 traced
grep -q "^nvtx_app: " "$tmp/traced.out" || fail "the app's output is missing: $(cat "$tmp/traced.out")"
manifest=$tmp/traced.json

problems=$(jq -r --slurpfile m "$manifest" '
  $m[0] as $m
  | (.backends[] | select(.name == "nvtx")) as $b
  | ($b.host | map({key: .name, value: .calls}) | from_entries) as $calls
  | ($b.regions | map({key: .name, value: .}) | from_entries) as $r
  | [ ($m.calls | to_entries[] | select($calls[.key] != .value)
       | "\(.key): \($calls[.key] // 0) calls recorded, the app made \(.value)"),
      ($calls | to_entries[] | select($m.calls[.key] == null)
       | "\(.key): \(.value) calls recorded, the app made none"),
      ($m.regions | to_entries[] | .key as $k | .value as $want
       | if ($r[$k] | not) then "region \($k) missing"
         elif $r[$k].calls != $want.calls then "region \($k): \($r[$k].calls) calls, the app made \($want.calls)"
         elif $r[$k].min_ns < $want.min_ns then "region \($k): min \($r[$k].min_ns) ns, shorter than the app slept (\($want.min_ns) ns)"
         elif ($r[$k].time_ns / $r[$k].calls) < $r[$k].min_ns or ($r[$k].time_ns / $r[$k].calls) > $r[$k].max_ns then "region \($k): average outside min..max"
         else empty end),
      ($b.regions[] | select(.name as $n | $m.regions | has($n) | not)
       | "unexpected region \(.name) (\(.calls) calls)")
    ] | .[]' "$tmp/tally.json") || fail "jq could not read the tally"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: the tally differs from what the app did:" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

# The reference decoder: tid, name, depth, start, end of every region.
babeltrace2 "$tmp/traced.trace" 2>"$tmp/bt.err" |
  sed -n 's/.*lttng_ust_tracer:region: .* tid = \([0-9]*\), backend = "nvtx", name = "\([^"]*\)", depth = \([0-9]*\), start = \([0-9]*\), end = \([0-9]*\) }.*/\1 \2 \3 \4 \5/p' \
    >"$tmp/regions" || fail "babeltrace2 cannot read the trace"
nesting=$(jq -rs --slurpfile m "$manifest" -R '
  $m[0] as $m
  | split("\n") | map(select(length > 0) | split(" ")
      | {tid: .[0], name: .[1], depth: (.[2] | tonumber), start: (.[3] | tonumber), end: (.[4] | tonumber)}) as $r
  | [ (if ($r | map(.tid) | unique | length) != $m.threads then "regions on \($r | map(.tid) | unique | length) threads, the app used \($m.threads)" else empty end),
      ($r[] | select($m.regions[.name].depth != .depth) | "\(.name) at depth \(.depth), the app nested it at \($m.regions[.name].depth)"),
      ($r[] as $in | select($in.depth > 0)
       | select([$r[] | select(.tid == $in.tid and .depth == $in.depth - 1 and .start <= $in.start and .end >= $in.end)] | length == 0)
       | "\($in.name) (thread \($in.tid), depth \($in.depth)) lies in no region of depth \($in.depth - 1) on its thread")
    ] | .[]' "$tmp/regions") || fail "jq could not read the regions babeltrace2 printed"
if [ -n "$nesting" ]; then
  echo "FAIL: $e2e_name: babeltrace2's regions differ from what the app did:" >&2
  printf '%s\n' "$nesting" | sed 's/^/  /' >&2
  exit 1
fi

"$tracer" -r "$tmp/traced.trace" >"$tmp/replay.txt" 2>"$tmp/replay.err" || fail "tracer -r failed: $(cat "$tmp/replay.err")"
grep -q "^BACKEND_NVTX | .* Regions |" "$tmp/replay.txt" || fail "the text report has no NVTX regions table"
echo "PASS: $e2e_name: $(jq -c '[.backends[] | select(.name == "nvtx") | .regions[] | {(.name): .calls}] | add' "$tmp/tally.json")"
