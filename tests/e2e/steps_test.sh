#!/bin/sh
# Steps and windows (docs/steps.md) on an OpenCL app (PoCL) whose steps are ITT tasks
# (tests/apps/steps_app.c), against what the app says it did in each step.
# Usage: steps_test.sh TRACER APP
#
# Checks:
#  - --steps finds the app's steps (Step.N, the outermost repeating region, not Setup):
#    their count and names, the slow step as the most and slowest one, one kernel per
#    step with compute time on the device;
#  - --window 'Step.*', --skip-steps N, --from Step.A --to Step.B, live and with -r: the
#    OpenCL host table holds exactly the calls the app made in those steps and the kernel
#    table their kernels (none of Setup's or the teardown's); the report's first line
#    names the window; the JSON says it;
#  - the timeline (Chrome JSON) and the folded stacks of a window hold only its calls;
#  - a run with no repeating region: --steps says so in one line and how to mark steps;
#  - bad input: an unknown window name, a step pattern matching nothing, a window past
#    the run's end, more steps skipped than there are, --skip-steps on a run without
#    steps: one line on stderr, exit 2, no table on stdout.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_app "$app"
need_tracer "$tracer"

steps=6
slow=4
run_traced run -b itt,opencl --steps -j -o "$tmp/steps.json" -- "$app" $steps $slow
[ "$rc" -ne 77 ] || skip "no OpenCL device or ITT collector: $(cat "$tmp/run.err")"
expect_rc 0 run
manifest=$tmp/run.json
trace=$tmp/run.trace
[ -s "$manifest" ] || fail "the app wrote no manifest"

# The steps table, against the app's steps.
problems=$(jq -r --slurpfile m "$manifest" --argjson slow $slow '
  $m[0].steps as $want
  | [.steps[]?] as $tables
  | if ($tables | length) != 1 then "steps: \($tables | length) tables, expected 1 (one process, one device)"
    else $tables[0] as $t
    | [ (if $t.count != ($want | length) then "steps: \($t.count) found, the app ran \($want | length)" else empty end),
        (if ($t.steps | map(.name)) != ($want | map(.name)) then "step names \($t.steps | map(.name)), the app ran \($want | map(.name))" else empty end),
        (if $t.most_step != $slow then "the most step is \($t.most_step), the app slowed step \($slow)" else empty end),
        (if $t.slowest[0] != $slow then "the slowest step is \($t.slowest[0]), the app slowed step \($slow)" else empty end),
        ($t.steps[] | select(.kernels != 1) | "step \(.step): \(.kernels) kernels, the app ran 1"),
        ($t.steps[] | select(.compute_ns <= 0) | "step \(.step): no compute time"),
        ($t.steps[] | select(.compute_ns + .communication_ns + .copies_ns + .idle_ns != .ns) | "step \(.step): compute + comm + copies + idle != its time")
      ] | .[]
    end' "$tmp/steps.json") || fail "jq could not read the steps table $tmp/steps.json"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: the steps table differs from the app's steps:" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

# check_window NAME FIRST LAST: the tally $tmp/NAME.json counts exactly the app's calls
# and kernels of steps FIRST..LAST (1-based), and names its window.
check_window() {
  problems=$(jq -r --slurpfile m "$manifest" --argjson first "$2" --argjson last "$3" '
    ($m[0].steps[$first - 1:$last]) as $in
    | (reduce ($in[].calls | to_entries[]) as $c ({}; .[$c.key] += $c.value)) as $want
    | ([.backends[] | select(.name == "opencl")][0]) as $b
    | (($b.host // []) | map({key: .name, value: .calls}) | from_entries) as $got
    | ([($b.device // [])[] | select(.kind == "kernel") | .calls] | add // 0) as $kernels
    | [ ($want | to_entries[] | select($got[.key] != .value) | "host \(.key): \($got[.key]) calls in the window, the app made \(.value) in steps \($first)-\($last)"),
        ($got | to_entries[] | select($want[.key] == null) | "host \(.key): \(.value) calls in the window, the app made none in steps \($first)-\($last)"),
        (if $kernels != ($in | length) then "\($kernels) kernels in the window, the app ran \($in | length)" else empty end),
        (if (.window.label // "") == "" then "the JSON names no window" else empty end)
      ] | .[]' "$tmp/$1.json") || fail "$1: jq could not read $tmp/$1.json"
  if [ -n "$problems" ]; then
    echo "FAIL: $e2e_name: $1: the window's tally differs from the app's steps $2-$3:" >&2
    printf '%s\n' "$problems" | sed 's/^/  /' >&2
    exit 1
  fi
}

replay() {
  name=$1
  shift
  rc=0
  "$tracer" -r "$trace" "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" || rc=$?
  expect_rc 0 "$name"
}

replay all_steps --window 'Step.*' -j
check_window all_steps 1 $steps
replay skipped --skip-steps 2 -j
check_window skipped 3 $steps
replay between --from Step.2 --to Step.3 -j
check_window between 2 3
replay pattern --window 'Step.[2-3]' -j
check_window pattern 2 3

# Live: the window applies to the report of the run itself.
run_traced live -b itt,opencl --skip-steps 1 -j -o "$tmp/live_window.json" -- "$app" $steps $slow
expect_rc 0 live
manifest=$tmp/live.json
check_window live_window 2 $steps
manifest=$tmp/run.json

# The text report's first line names the window.
"$tracer" -r "$trace" --skip-steps 2 >"$tmp/text.out" 2>"$tmp/text.err" || fail "tracer -r --skip-steps failed"
head -n 1 "$tmp/text.out" | grep -q '^Window: the steps (Step\.N) after the first 2: ' ||
  fail "the report's first line does not name the window: $(head -n 1 "$tmp/text.out")"

# The timeline and the folded stacks of a window: only its calls.
"$tracer" -r "$trace" --window 'Step.[2-3]' -l "$tmp/w.pftrace" --timeline-format json \
  --flame "$tmp/w.folded" >/dev/null 2>"$tmp/exports.err" || fail "tracer -r -l --flame with a window failed: $(cat "$tmp/exports.err")"
launches=$(jq '[.traceEvents[] | select(.name == "clEnqueueNDRangeKernel" and .ph == "X")] | length' "$tmp/w.json") ||
  fail "jq could not read the window's timeline"
[ "$launches" -eq 2 ] || fail "the window's timeline has $launches kernel launches, the app made 2 in steps 2-3"
! jq -e '[.traceEvents[] | select(.name == "clBuildProgram")] | length > 0' "$tmp/w.json" >/dev/null ||
  fail "the window's timeline holds Setup's clBuildProgram"
! grep -q clBuildProgram "$tmp/w.host.folded" || fail "the window's folded stacks hold Setup's clBuildProgram"
grep -q clEnqueueNDRangeKernel "$tmp/w.host.folded" || fail "the window's folded stacks lack its launches"

# A run where no region repeats: one line says so, and how to mark steps.
run_traced single -b itt,opencl --steps -o "$tmp/single.out" -- "$app" 1
expect_rc 0 single
grep -q '^Steps: none found, no region repeats in this run; mark each step' "$tmp/single.out" ||
  fail "--steps on a run without a repeating region does not say so: $(grep -i steps "$tmp/single.out")"

# bad NAME WANT-PATTERN TRACE ARGS...: one line on stderr matching WANT, exit 2, no table.
bad() {
  name=$1
  want=$2
  on=$3
  shift 3
  rc=0
  "$tracer" -r "$on" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2; stderr: $(cat "$tmp/$name.err")"
  [ "$(wc -l <"$tmp/$name.err")" -eq 1 ] || fail "$name: not one line on stderr: $(cat "$tmp/$name.err")"
  grep -q "$want" "$tmp/$name.err" || fail "$name: the message does not say '$want': $(cat "$tmp/$name.err")"
  ! grep -q 'BACKEND_\|"backends"' "$tmp/$name.out" || fail "$name: a table was printed: $(head -n 3 "$tmp/$name.out")"
}
bad unknown 'no region of the run is named NoSuchStep' "$trace" --window NoSuchStep
bad unknown_json 'no region of the run is named NoSuchStep' "$trace" --window NoSuchStep -j
bad pattern 'no region of the run matches --steps Nothing\*' "$trace" --steps 'Nothing*'
bad past_end 'holds no part of the run' "$trace" --from 100000
bad too_many 'holds no part of the run' "$trace" --skip-steps 100
bad no_steps 'no region repeats in this run' "$tmp/single.trace" --skip-steps 1
echo "PASS: $e2e_name"
