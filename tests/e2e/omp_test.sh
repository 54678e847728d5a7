#!/bin/sh
# OpenMP offload through the tracer's OMPT tool, against what the program mapped
# (tests/apps/omp_offload.c), and with an app's own OMPT tool (tests/apps/omp_own_tool.c).
# Usage: omp_test.sh TRACER APP OWN_TOOL_LIBRARY APP_WITH_OWN_TOOL
#
#  - untraced, the app runs (exit 0) and, on this machine, the runtime offloads: its own
#    tool sees the target regions (else SKIP: no working host offload);
#  - traced (-b omp -j): backend "omp" has the rows ompt_callback_target_emi:KIND with the
#    app's count of each construct, ompt_callback_target_submit_emi with its kernels, and
#    ompt_callback_target_data_op_emi:alloc/delete/transfer_to_device/
#    transfer_from_device with its counts; the device table has the submits, and the
#    memory traffic the app's transfers each way with their exact bytes;
#  - with OMP_TOOL_LIBRARIES naming the app's own tool, the tracer's tool chains to it:
#    the app's tool counts what it counts untraced, and the tally is as above;
#  - with the tool linked into the program, the OpenMP runtime starts that tool, which
#    still counts everything, and the tracer says clearly that offload is not traced.
#
# Debian's libomptarget 19 finds libomp for its OMPT connection through libLLVM's own
# library search, which misses /usr/lib/llvm-19/lib: without it on LD_LIBRARY_PATH no
# target callback fires, traced or not (docs/trace-format.md).
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 4 ] || { echo "usage: $0 TRACER APP OWN_TOOL_LIBRARY APP_WITH_OWN_TOOL" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
own_tool=$(abspath "$3")
app_with_tool=$(abspath "$4")
e2e_setup
need_app "$app"
need_app "$app_with_tool"
need_tracer "$tracer"
[ -f "$own_tool" ] || fail "no tool library at $own_tool"
LD_LIBRARY_PATH=/usr/lib/llvm-19/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

rc=0
OMP_TOOL_LIBRARIES=$own_tool OWN_TOOL_REPORT=$tmp/plain.report APP_MANIFEST=$tmp/plain.json \
  "$app" >"$tmp/plain.out" 2>"$tmp/plain.err" || rc=$?
expect_rc 0 plain
[ "$(jq .submits "$tmp/plain.report" 2>/dev/null)" = "$(jq .submits "$tmp/plain.json")" ] ||
  skip "the OpenMP runtime did not offload here (its own tool saw: $(cat "$tmp/plain.report" 2>/dev/null))"

# check_tally NAME: the JSON tally $tmp/NAME.tally against the app's manifest.
check_tally() {
  problems=$(jq -r --slurpfile m "$tmp/$1.json" '
    $m[0] as $m
    | (.backends[] | select(.name == "omp")) as $b
    | ($b.host | map({key: .name, value: .calls}) | from_entries) as $h
    | def want(row; n): if ($h[row] // 0) != n then "\(row): \($h[row] // 0) calls, the app made \(n)" else empty end;
      def traffic(row; w): ([$b.traffic[] | select(.name == row)][0] // {calls: 0, bytes: 0}) as $t
        | if $t.calls != w.calls or $t.bytes != w.bytes then "traffic \(row): \($t.calls) transfers of \($t.bytes) bytes, the app mapped \(w.calls) of \(w.bytes)" else empty end;
    [ want("ompt_callback_target_emi:target"; $m.target),
      want("ompt_callback_target_emi:target_enter_data"; $m.target_enter_data),
      want("ompt_callback_target_emi:target_update"; $m.target_update),
      want("ompt_callback_target_emi:target_exit_data"; $m.target_exit_data),
      want("ompt_callback_target_submit_emi"; $m.submits),
      want("ompt_callback_target_data_op_emi:alloc"; $m.alloc),
      want("ompt_callback_target_data_op_emi:delete"; $m.delete),
      want("ompt_callback_target_data_op_emi:transfer_to_device"; $m.transfer_to_device.calls),
      want("ompt_callback_target_data_op_emi:transfer_from_device"; $m.transfer_from_device.calls),
      traffic("ompt_callback_target_data_op_emi:transfer_to_device"; $m.transfer_to_device),
      traffic("ompt_callback_target_data_op_emi:transfer_from_device"; $m.transfer_from_device),
      ([$b.device[] | select(.name == "ompt_callback_target_submit_emi" and .kind == "kernel") | .calls][0] // 0
       | if . != $m.submits then "device table: \(.) kernel submits, the app made \($m.submits)" else empty end)
    ] | .[]' "$tmp/$1.tally") || fail "$1: jq could not read the tally"
  if [ -n "$problems" ]; then
    echo "FAIL: $e2e_name: $1: the tally differs from what the app mapped:" >&2
    printf '%s\n' "$problems" | sed 's/^/  /' >&2
    exit 1
  fi
}

run_traced traced -b omp -j -o "$tmp/traced.tally" -- "$app"
expect_rc 0 traced
same_stdout plain traced
check_tally traced

# The app's own tool, as a library: chained.
OMP_TOOL_LIBRARIES=$own_tool OWN_TOOL_REPORT=$tmp/chained.report \
  run_traced chained -b omp -j -o "$tmp/chained.tally" -- "$app"
expect_rc 0 chained
check_tally chained
cmp -s "$tmp/plain.report" "$tmp/chained.report" ||
  fail "the app's own tool counted differently under the tracer: $(cat "$tmp/chained.report" 2>/dev/null) instead of $(cat "$tmp/plain.report")"

# The app's own tool, in the program: it runs, and the tracer says why offload is missing.
OWN_TOOL_REPORT=$tmp/inside.report run_traced inside -b omp -j -o "$tmp/inside.tally" -- "$app_with_tool"
expect_rc 0 inside
cmp -s "$tmp/plain.report" "$tmp/inside.report" ||
  fail "the program's own tool counted differently under the tracer: $(cat "$tmp/inside.report" 2>/dev/null)"
grep -q "defines its own OMPT tool (ompt_start_tool).*OpenMP offload is not traced" "$tmp/inside.err" ||
  fail "the tracer did not say that the program's own tool replaces its own; stderr: $(cat "$tmp/inside.err")"
# libomp's own ITT calls (for Intel's tools) are not the app's: not recorded, and a note
# says so; --runtime-calls records them in an ITT table.
run_traced itt -j -o "$tmp/itt.tally" -- "$app"
expect_rc 0 itt
check_tally itt
jq -e '[.backends[] | select(.name == "itt") | .host[] | .calls] | add // 0 | . == 0' \
  "$tmp/itt.tally" >/dev/null || fail "libomp's ITT calls are shown as the app's: $(jq -c '.backends[] | select(.name == "itt") | .host' "$tmp/itt.tally")"
jq -e '.notices | any(test("^libomp.so[.0-9]* calls ITT for its own tools: .*--runtime-calls"))' \
  "$tmp/itt.tally" >/dev/null || fail "no note that libomp's ITT calls are left out: $(jq -c .notices "$tmp/itt.tally")"
run_traced itt_shown --runtime-calls -j -o "$tmp/itt_shown.tally" -- "$app"
expect_rc 0 itt_shown
jq -e '[.backends[] | select(.name == "itt") | .host[] | select(.name | startswith("__itt_")) | .calls] | add // 0 | . > 0' \
  "$tmp/itt_shown.tally" >/dev/null || fail "--runtime-calls records no ITT call of libomp"

# Without /usr/lib/llvm-19/lib on LD_LIBRARY_PATH, libomptarget cannot reach the tool:
# nothing of offload is recorded, and the report says why and what to do, in one line.
unset LD_LIBRARY_PATH
run_traced dark -- "$app"
expect_rc 0 dark
grep -q "^Note: OpenMP offload is not traced: .*libomptarget.so[.0-9]* finds no libomp.so to connect its OMPT callbacks to; add /usr/lib/llvm-19/lib to LD_LIBRARY_PATH.$" \
  "$tmp/dark.out" || fail "offload went dark without a word: $(head -5 "$tmp/dark.out")"
echo "PASS: $e2e_name"
