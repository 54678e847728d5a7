#!/bin/sh
# __itt_pause/__itt_resume pause every backend: the OpenCL calls an app makes while
# paused through ITT are not counted, those before and after are (tests/apps/
# itt_pause_opencl.c), in every mode.
# Usage: itt_pause_test.sh TRACER APP
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_app "$app"
need_tracer "$tracer"
for mode in minimal default full; do
  run_traced "$mode" -b opencl,itt -m "$mode" -j -o "$tmp/$mode.tally" -- "$app"
  if [ "$rc" -eq 77 ]; then
    skip "$(cat "$tmp/$mode.err")"
  fi
  expect_rc 0 "$mode"
  problems=$(jq -r --slurpfile m "$tmp/$mode.json" '
    $m[0] as $m
    | ([.backends[] | select(.name == "opencl") | .host[] | select(.name == "clGetPlatformIDs") | .calls][0] // 0) as $n
    | [ (if $n != $m.clGetPlatformIDs then "clGetPlatformIDs: \($n) calls counted, \($m.clGetPlatformIDs) made while recording (\($m.made) in all)" else empty end),
        (if .pauses != $m.pauses then "\(.pauses) pauses reported, the app made \($m.pauses)" else empty end)
      ] | .[]' "$tmp/$mode.tally") || fail "$mode: jq could not read the tally"
  [ -z "$problems" ] || fail "$mode: $problems"
done
echo "PASS: $e2e_name"
