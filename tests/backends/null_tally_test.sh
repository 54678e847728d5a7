#!/bin/sh
# A backend traced against its null library (docs/null-library.md): the JSON tally equals
# the app's own count (tests/apps/manifest.h): every host call, kernels by name, copies by
# name, count and bytes; and the output says the device times are host-side.
# Usage: null_tally_test.sh BACKEND TRACER APP
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
e2e_dir=$(cd "$(dirname "$0")/../e2e" && pwd) # compare.jq lives there
[ $# -eq 3 ] || { echo "usage: $0 BACKEND TRACER APP" >&2; exit 2; }
E2E_BACKEND=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
e2e_setup
need_app "$app"

run_plain plain "$app"
expect_rc 0 plain
need_tracer "$tracer"
run_traced traced -j -o "$tmp/tally.json" -- "$app"
expect_rc 0 traced
same_stdout plain traced
same_manifest "$tmp/plain.json" "$tmp/traced.json"
compare_tally "$tmp/tally.json" "$tmp/traced.json"

# Host-side times, said so in JSON and in the text tables.
jq -e --arg b "$E2E_BACKEND" '.backends[] | select(.name == $b) | .device_times == "host"' \
  "$tmp/tally.json" >/dev/null || fail "the JSON tally does not say device_times: host"
rc=0
"$tracer" -r "$tmp/traced.trace" >"$tmp/replay.txt" 2>"$tmp/replay.err" || rc=$?
expect_rc 0 replay
grep -q "^Host-side times" "$tmp/replay.txt" ||
  fail "the text tables do not say the device times are host-side: $(cat "$tmp/replay.txt")"
echo "PASS: $e2e_name: $E2E_BACKEND: $(jq -c '{calls: ([.calls[]] | add), kernels, bytes}' "$tmp/traced.json")"
