#!/bin/sh
# A real third-party program: Debian's clinfo under `tracer -j`. Its tally's counts of
# clGetPlatformInfo and clGetDeviceInfo must equal an independent count of the same run
# made by tests/apps/count_shim.c (an LD_PRELOAD shim that wraps just those two functions
# with dlsym(RTLD_NEXT)); tracer returns clinfo's status (0), and clinfo prints the same
# bytes traced and untraced.
# Usage: clinfo_test.sh TRACER COUNT_SHIM
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER COUNT_SHIM" >&2; exit 2; }
tracer=$(abspath "$1")
shim=$(abspath "$2")
e2e_setup
clinfo=$(command -v clinfo) || fail "clinfo not found (scripts/setup.sh installs package clinfo)"
[ -f "$shim" ] || fail "no count shim at $shim (is it built?)"

platforms=$("$clinfo" --raw 2>/dev/null | awk '$1 == "#PLATFORMS" { print $2 }')
[ "${platforms:-0}" -gt 0 ] || skip "clinfo finds no OpenCL platform"

rc=0
COUNT_SHIM_OUTPUT="$tmp/shim.json" LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" \
  "$clinfo" >"$tmp/plain.out" 2>"$tmp/plain.err" || rc=$?
expect_rc 0 plain
[ -s "$tmp/shim.json" ] || fail "the count shim wrote nothing"
need_tracer "$tracer"

run_traced traced -j -o "$tmp/tally.json" -- "$clinfo"
expect_rc 0 traced
same_stdout plain traced
mismatches=$(jq -r --slurpfile shim "$tmp/shim.json" '
  [.backends[]? | select(.name == "opencl")][0] as $b
  | ($b.host // [] | map({key: .name, value: .calls}) | from_entries) as $tally
  | $shim[0] | to_entries[]
  | select(.value == 0 or $tally[.key] != .value)
  | "\(.key): tally \($tally[.key] // "absent"), count shim \(.value)"' "$tmp/tally.json") ||
  fail "cannot read the tally $tmp/tally.json"
if [ -n "$mismatches" ]; then
  echo "FAIL: $e2e_name: clinfo's tally differs from the count shim's:" >&2
  printf '%s\n' "$mismatches" | sed 's/^/  /' >&2
  exit 1
fi
echo "PASS: $e2e_name: $(jq -c . "$tmp/shim.json")"
