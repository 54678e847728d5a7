#!/bin/sh
# Level Zero on the loader with the upstream null driver: the JSON tally equals the test
# app's own count (tests/apps/ze_app.c, manifest.h): every host call, those made through
# dispatch tables included; kernels by name; copies by kind (H2D, D2M, ...), count and
# bytes. The null driver's timestamps are 0, so times are not checked; the device times
# are the device's, and the output must not call them host-side.
# Usage: ze_test.sh TRACER APP (with ZE_ENABLE_NULL_DRIVER=1 and the driver on
# LD_LIBRARY_PATH)
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
e2e_dir=$(cd "$(dirname "$0")/../e2e" && pwd) # compare.jq lives there
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
E2E_BACKEND=ze
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_app "$app"

run_plain plain "$app"
if [ "$rc" -ne 0 ] && grep -q "zeInit failed" "$tmp/plain.err"; then
  skip "Level Zero has no driver here (ZE_ENABLE_NULL_DRIVER=${ZE_ENABLE_NULL_DRIVER:-unset})"
fi
expect_rc 0 plain
need_tracer "$tracer"
for mode in minimal default full; do
  run_traced "$mode" -m "$mode" -j -o "$tmp/$mode.tally.json" -- "$app"
  expect_rc 0 "$mode"
  same_stdout plain "$mode"
  same_manifest "$tmp/plain.json" "$tmp/$mode.json"
  compare_tally "$tmp/$mode.tally.json" "$tmp/$mode.json"
  jq -e '.backends[] | select(.name == "ze") | has("device_times") | not' \
    "$tmp/$mode.tally.json" >/dev/null || fail "$mode: ze device times are said to be host-side"
done

# The calls made through dispatch tables are in the decoded trace as the API's calls.
rc=0
"$tracer" -r "$tmp/default.trace" -t >"$tmp/text.out" 2>"$tmp/text.err" || rc=$?
expect_rc 0 text
for call in zeGetCommandListProcAddrTable zeCommandListCreateImmediate; do
  grep -q "lttng_ust_ze:${call}_exit" "$tmp/text.out" || fail "no $call in the decoded trace"
done
echo "PASS: $e2e_name: $(jq -c '{calls: ([.calls[]] | add), kernels, bytes}' "$tmp/plain.json")"
