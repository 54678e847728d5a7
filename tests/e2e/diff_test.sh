#!/bin/sh
# `tracer diff A B` (docs/steps.md#two-runs-compared) on traces whose difference the test
# makes on purpose: the OpenCL app of tests/apps/steps_app.c run plainly (A), with every
# step's kernel made SLOWER_FACTOR times longer (B), and with a call added to each step (C).
# Usage: diff_test.sh TRACER STEPS_APP VADD_APP
#
# Checks:
#  - A against B: the kernel `spin` is the kernels' largest change, B's time over twice
#    A's, not marked noise; each row's share is its change over the whole difference,
#    which is the rows' changes added up (start-up, clGetPlatformIDs and clBuildProgram,
#    varies from run to run as much: the test does not rank the kernel among them);
#    both runs' steps are found (their median step time grows);
#  - A against C: clGetDeviceInfo made as many more times as the app added (the app's
#    own count of its steps' calls), the rest of the steps' calls unchanged in count;
#  - the text names both runs and the kernel;
#  - JSON results (A and B also written with -j --steps -o FILE): the diff of the two
#    results, and of a result against a trace, is the diff of the two traces, row for row
#    (their paths aside), in JSON and in text;
#  - bad input: a path that is no trace, two traces with no backend in common, a file
#    that is not JSON (named with the parser's line and column), JSON that is not a
#    tracer result (the app's own manifest), a result cut short, an empty file, a result
#    of a version to come: one line on stderr naming the file, exit 2, nothing on stdout.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 TRACER STEPS_APP VADD_APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
vadd=$(abspath "$3")
e2e_setup
need_app "$app"
need_app "$vadd"
need_tracer "$tracer"

# PoCL's program cache made first, so that no run pays for a build the others skip.
APP_MANIFEST= INTEL_LIBITTNOTIFY64= "$app" 1 0 >/dev/null 2>&1 || true
run_traced a -b itt,opencl -q -j --steps -o "$tmp/a.result.json" -- "$app" 6 0
[ "$rc" -ne 77 ] || skip "no OpenCL device or ITT collector: $(cat "$tmp/a.err")"
expect_rc 0 a
run_traced b -b itt,opencl -q -j --steps -o "$tmp/b.result.json" -- "$app" 6 0 slower
expect_rc 0 b
run_traced c -b itt,opencl -q -- "$app" 6 0 extra
expect_rc 0 c

"$tracer" diff "$tmp/a.trace" "$tmp/b.trace" -j >"$tmp/ab.json" 2>"$tmp/ab.err" ||
  fail "tracer diff A B failed: $(cat "$tmp/ab.err")"
problems=$(jq -r '
  ([.rows[] | select(.kind == "kernel")] | sort_by(-(.change_ns | fabs))) as $k
  | [ (if ($k | length) == 0 then "no kernel row changed" else empty end),
      (if ($k[0].name // "") != "spin" then "the largest kernel change is \($k[0].name), not spin" else empty end),
      (if ($k[0].b_ns // 0) <= 2 * ($k[0].a_ns // 0) then "spin: B \($k[0].b_ns) ns, not over twice A (\($k[0].a_ns) ns)" else empty end),
      (if $k[0].noise then "spin made slower on purpose is marked noise" else empty end),
      ((.whole_ns) as $w | .rows[] | select(((.change_ns | fabs) / $w - .share | fabs) > 1e-5)
       | "\(.name): share \(.share), but its change is \((.change_ns | fabs) / $w) of the whole difference"),
      (if ([.rows[] | .change_ns | fabs] | add) != .whole_ns then "the whole difference is not the sum of the changes of the rows" else empty end),
      (if (.a_steps.count // 0) != 6 or (.b_steps.count // 0) != 6 then "steps: \(.a_steps.count) in A, \(.b_steps.count) in B, the app ran 6" else empty end),
      (if (.b_steps.median_ns // 0) <= (.a_steps.median_ns // 0) then "the median step did not grow" else empty end)
    ] | .[]' "$tmp/ab.json") || fail "jq could not read $tmp/ab.json"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: A against B (a slower kernel):" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

"$tracer" diff "$tmp/a.trace" "$tmp/c.trace" -j >"$tmp/ac.json" 2>"$tmp/ac.err" ||
  fail "tracer diff A C failed: $(cat "$tmp/ac.err")"
problems=$(jq -r --slurpfile ma "$tmp/a.json" --slurpfile mc "$tmp/c.json" '
  (reduce ($ma[0].steps[].calls | to_entries[]) as $c ({}; .[$c.key] += $c.value)) as $in_a
  | (reduce ($mc[0].steps[].calls | to_entries[]) as $c ({}; .[$c.key] += $c.value)) as $in_c
  | ([.rows[] | select(.backend == "opencl" and .kind == "host")] | map({key: .name, value: .}) | from_entries) as $r
  | [ (($in_c.clGetDeviceInfo // 0) - ($in_a.clGetDeviceInfo // 0)) as $added
      | if ($r.clGetDeviceInfo | not) then "clGetDeviceInfo: no row changed, the app added \($added) calls"
        elif ($r.clGetDeviceInfo.b_count - $r.clGetDeviceInfo.a_count) != $added then "clGetDeviceInfo: \($r.clGetDeviceInfo.b_count - $r.clGetDeviceInfo.a_count) calls more, the app added \($added)"
        else empty end,
      ($in_a | to_entries[] | select(.key != "clGetDeviceInfo") | select($r[.key] and $r[.key].a_count != $r[.key].b_count)
       | "\(.key): count changed \($r[.key].a_count) -> \($r[.key].b_count), the app made the same")
    ] | .[]' "$tmp/ac.json") || fail "jq could not read $tmp/ac.json"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: A against C (a call added):" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

"$tracer" diff "$tmp/a.trace" "$tmp/b.trace" >"$tmp/ab.txt" 2>"$tmp/ab.err" || fail "tracer diff (text) failed"
grep -q "^Comparing A: $tmp/a.trace" "$tmp/ab.txt" || fail "the text does not name A"
grep -q '^spin ' "$tmp/ab.txt" || fail "the text has no row for the kernel spin"

# The JSON results of the same runs: the same comparison as of their traces.
jq -S 'del(.a, .b)' "$tmp/ab.json" >"$tmp/ab.rows" || fail "jq could not read $tmp/ab.json"
tail -n +3 "$tmp/ab.txt" >"$tmp/ab.tables"
# same_as_traces NAME A B: tracer diff A B gives what the traces' diff gave.
same_as_traces() {
  "$tracer" diff "$2" "$3" -j >"$tmp/$1.json" 2>"$tmp/$1.err" ||
    fail "tracer diff $2 $3 failed: $(cat "$tmp/$1.err")"
  jq -S 'del(.a, .b)' "$tmp/$1.json" >"$tmp/$1.rows" || fail "jq could not read $tmp/$1.json"
  if ! cmp -s "$tmp/ab.rows" "$tmp/$1.rows"; then
    echo "FAIL: $e2e_name: tracer diff $2 $3 differs from the diff of the traces:" >&2
    diff "$tmp/ab.rows" "$tmp/$1.rows" | head -n 20 >&2
    exit 1
  fi
  "$tracer" diff "$2" "$3" >"$tmp/$1.txt" 2>"$tmp/$1.err" ||
    fail "tracer diff $2 $3 (text) failed: $(cat "$tmp/$1.err")"
  grep -q "^Comparing A: $2\$" "$tmp/$1.txt" || fail "the text of $1 does not name A ($2)"
  tail -n +3 "$tmp/$1.txt" | cmp -s "$tmp/ab.tables" - ||
    fail "the text of tracer diff $2 $3 differs from the traces': $(tail -n +3 "$tmp/$1.txt" | diff "$tmp/ab.tables" - | head -n 10)"
}
same_as_traces results "$tmp/a.result.json" "$tmp/b.result.json"
same_as_traces result_trace "$tmp/a.result.json" "$tmp/b.trace"
same_as_traces trace_result "$tmp/a.trace" "$tmp/b.result.json"

# bad NAME WANT A B: one line on stderr matching WANT, exit 2, nothing on stdout.
bad() {
  rc=0
  "$tracer" diff "$3" "$4" >"$tmp/$1.out" 2>"$tmp/$1.err" || rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2; stderr: $(cat "$tmp/$1.err")"
  [ "$(wc -l <"$tmp/$1.err")" -eq 1 ] || fail "$1: not one line on stderr: $(cat "$tmp/$1.err")"
  grep -q "$2" "$tmp/$1.err" || fail "$1: the message does not say '$2': $(cat "$tmp/$1.err")"
  [ ! -s "$tmp/$1.out" ] || fail "$1: something was printed: $(head -n 3 "$tmp/$1.out")"
}
bad missing 'not a trace folder' "$tmp/a.trace" "$tmp/no-such-trace"
run_traced itt_only -b itt -q -- "$app" 2 0
expect_rc 0 itt_only
run_traced cl_only -b opencl -q -- "$vadd"
expect_rc 0 cl_only
bad disjoint 'no backend in common' "$tmp/itt_only.trace" "$tmp/cl_only.trace"
printf '{\n  "tracer_result": 1,\n  "backends": ]\n}\n' >"$tmp/broken.json"
bad not_json "^tracer: error: $tmp/broken.json:3:15: Cannot read the JSON result: " \
  "$tmp/broken.json" "$tmp/b.trace"
bad not_result "$tmp/a.json: Cannot read the JSON result: not a tracer result" \
  "$tmp/a.trace" "$tmp/a.json"
# A result cut short (a run that ended while writing it) and an empty file: named, with
# the line and column where the JSON stops.
head -c "$(($(wc -c <"$tmp/a.result.json") / 2))" "$tmp/a.result.json" >"$tmp/cut.json"
bad truncated "^tracer: error: $tmp/cut.json:[0-9]*:[0-9]*: Cannot read the JSON result: " \
  "$tmp/b.trace" "$tmp/cut.json"
: >"$tmp/empty.json"
bad empty "^tracer: error: $tmp/empty.json:1: Cannot read the JSON result: " \
  "$tmp/empty.json" "$tmp/b.trace"
jq '.tracer_result = 99' "$tmp/a.result.json" >"$tmp/later.json"
bad later_version "$tmp/later.json: Cannot read the JSON result: a result of version 99" \
  "$tmp/later.json" "$tmp/b.result.json"
echo "PASS: $e2e_name"
