#!/bin/sh
# Steps, windows, the verdict's parts and `tracer diff` (docs/steps.md,
# docs/analysis-output.md#the-verdict) on one process that drives the null CUDA driver's
# two devices with the null NCCL, as nccl-tests' -g 2 does (tests/apps/nccl_steps_app.c:
# set-up, then NVTX ranges Step.N, each with a kernel and an AllReduce per device and a
# wait for both streams). The null driver runs a kernel 2 ms a block
# (NULL_CUDA_KERNEL_NS_PER_BLOCK), inside its launch: NCCL's kernel (1 block) inside
# ncclAllReduce, so a driver call nested in an NCCL call takes real time. Checks:
#  - --steps: a table per GPU, the app's steps by name, its two kernels in each, the
#    AllReduce's kernel as communication time;
#  - --skip-steps 2: the NCCL and the app's own driver calls of steps 3 on, and their
#    kernels, exactly (each GPU's kernels too);
#  - the verdict's line: start-up set apart (cuInit, the module, the communicators) and
#    the waits for the devices apart; over the steps (--window 'Step.*'), where the host
#    is busy, its parts add up to at most 100%: NCCL's kernel launches inside
#    ncclAllReduce counted once (with every call's time they came to about 130%);
#  - tracer diff: the app's kernel made slower is the largest increase; a memset added to
#    each step is in B only, with the app's count; A's JSON result (--steps -j: two
#    GPUs' tables, kernels per device) against B's trace is A's trace against B's.
# Usage: nccl_steps_test.sh TRACER APP
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$app"
export TRACER_CUDA_TIMING=events NULL_CUDA_KERNEL_NS_PER_BLOCK=2000000
steps=6

run_traced a -b cuda,nccl,nvtx --steps -j -o "$tmp/a_steps.json" -- "$app" $steps
[ "$rc" -ne 77 ] || skip "no NVTX tool: $(cat "$tmp/a.err")"
expect_rc 0 a
problems=$(jq -r --slurpfile m "$tmp/a.json" '
  ($m[0].steps | map(.name)) as $names
  | [.steps[]?] as $t
  | [ (if ($t | length) != 2 then "\($t | length) steps tables, the app drove 2 GPUs" else empty end),
      ($t[] | select((.steps | map(.name)) != $names) | "\(.gpu): steps \(.steps | map(.name)), the app ran \($names)"),
      ($t[] | .gpu as $g | .steps[] | select(.kernels != 2) | "\($g) step \(.step): \(.kernels) kernels, the app put 2"),
      ($t[] | .gpu as $g | .steps[] | select(.comm_ns <= 0) | "\($g) step \(.step): no communication kernel time")
    ] | .[]' "$tmp/a_steps.json") || fail "jq could not read the steps"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: the steps tables differ from the app's steps:" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

# The window: steps 3 on. The app's driver calls other than launches (NCCL launches its
# kernels through the driver too) and NCCL's calls, exactly; the kernels per GPU.
"$tracer" -r "$tmp/a.trace" --skip-steps 2 -j -o "$tmp/window.json" 2>"$tmp/window.err" ||
  fail "tracer -r --skip-steps 2 failed: $(cat "$tmp/window.err")"
problems=$(jq -r --slurpfile m "$tmp/a.json" '
  ($m[0].steps[2:]) as $in
  | (reduce ($in[].calls | to_entries[]) as $c ({}; .[$c.key] += $c.value)) as $want
  | ([.backends[] | .host[]?] | map({key: .name, value: .calls}) | from_entries) as $got
  | ([.backends[] | select(.name == "cuda") | .device[]? | select(.kind == "kernel")]) as $k
  | [ ($want | to_entries[] | select(.key != "cuLaunchKernel" and $got[.key] != .value)
       | "\(.key): \($got[.key]) calls in the window, the app made \(.value) in steps 3-'$steps'"),
      ($k | group_by(.device)[] | (map(.calls) | add) as $n
       | select($n != 2 * ($in | length)) | "\(.[0].device): \($n) kernels in the window, the app put \(2 * ($in | length))"),
      (if ($k | map(.device) | unique | length) != 2 then "kernels on \($k | map(.device) | unique | length) devices, not 2" else empty end)
    ] | .[]' "$tmp/window.json") || fail "jq could not read the window's tally"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: the window's tally differs from the app's steps 3-$steps:" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

# The verdict's line: start-up and waits apart, the host's parts at most 100%.
"$tracer" -r "$tmp/a.trace" >"$tmp/text.out" 2>"$tmp/text.err" || fail "tracer -r failed: $(cat "$tmp/text.err")"
line=$(grep '^Where the ' "$tmp/text.out" | head -n 1)
case $line in
*"start-up "*) ;;
*) fail "the verdict does not set start-up apart: $line" ;;
esac
case $line in
*"waiting for devices "*) ;;
*) fail "the verdict does not set the waits for the devices apart: $line" ;;
esac
# Over the steps, where the host is busy nearly all the time (NCCL's launches, 2 ms each,
# are a third of it): with every call's time counted, CUDA's and NCCL's parts came to
# about 130%.
"$tracer" -r "$tmp/a.trace" --window 'Step.*' >"$tmp/steps_text.out" 2>"$tmp/steps_text.err" ||
  fail "tracer -r --window failed: $(cat "$tmp/steps_text.err")"
line=$(grep '^Where the ' "$tmp/steps_text.out" | head -n 1)
host_total=$(printf '%s\n' "$line" | sed 's/ GPU .*//' | grep -o '[0-9.]*%' | tr -d % |
  awk '{ s += $1 } END { printf "%.1f", s }')
awk -v s="$host_total" 'BEGIN { exit !(s <= 100.5 && s >= 50) }' ||
  fail "the host's parts add up to $host_total% of the steps (at most 100, and the host is busy): $line"

# tracer diff: a slower kernel, then a call added to each step.
run_traced b -b cuda,nccl,nvtx -q -- "$app" $steps slower
expect_rc 0 b
run_traced c -b cuda,nccl,nvtx -q -- "$app" $steps extra
expect_rc 0 c
"$tracer" diff "$tmp/a.trace" "$tmp/b.trace" -j >"$tmp/ab.json" 2>"$tmp/ab.err" ||
  fail "tracer diff A B failed: $(cat "$tmp/ab.err")"
# The largest increase: the null NCCL's kernel waits for its peer device in wall time, so
# on a busy machine its time moves either way by as much (-102 ms in one run at load 12,
# where the slower kernel, 5 times the blocks, grew 1.83x; 1.38x in another).
jq -e '([.rows[] | select(.kind == "kernel")] | max_by(.change_ns)) as $k
       | $k.name == "compute" and $k.b_ns > $k.a_ns and ($k.noise | not)' "$tmp/ab.json" >/dev/null ||
  fail "diff A B: the slower kernel compute is not the largest increase: $(jq -c '[.rows[] | select(.kind == "kernel")]' "$tmp/ab.json")"
"$tracer" diff "$tmp/a_steps.json" "$tmp/b.trace" -j >"$tmp/ab_result.json" 2>"$tmp/ab_result.err" ||
  fail "tracer diff A's JSON result B failed: $(cat "$tmp/ab_result.err")"
jq -S 'del(.a, .b)' "$tmp/ab.json" >"$tmp/ab.rows"
jq -S 'del(.a, .b)' "$tmp/ab_result.json" >"$tmp/ab_result.rows"
cmp -s "$tmp/ab.rows" "$tmp/ab_result.rows" ||
  fail "diff of A's JSON result and B differs from the traces': $(diff "$tmp/ab.rows" "$tmp/ab_result.rows" | head -n 20)"
"$tracer" diff "$tmp/a.trace" "$tmp/c.trace" -j >"$tmp/ac.json" 2>"$tmp/ac.err" ||
  fail "tracer diff A C failed: $(cat "$tmp/ac.err")"
added=$(jq '[.steps[].calls.cuMemsetD32Async // 0] | add' "$tmp/c.json")
jq -e --argjson n "$added" '[.rows[] | select(.kind == "host" and .name == "cuMemsetD32Async")][0]
       | .only == "b" and .b_count == $n' "$tmp/ac.json" >/dev/null ||
  fail "diff A C: cuMemsetD32Async is not in B only with the app's $added calls: $(jq -c '[.rows[] | select(.name == "cuMemsetD32Async")]' "$tmp/ac.json")"
echo "PASS: $e2e_name"
