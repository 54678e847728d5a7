#!/bin/sh
# tracer returns the app's exit status: a code (vadd --exit-code 3 -> 3, after a full
# tally), a signal (128 + N), and 127 for an app that does not exist.
# Usage: exit_status_test.sh TRACER VADD
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER VADD" >&2; exit 2; }
tracer=$(abspath "$1")
vadd=$(abspath "$2")
e2e_setup
need_app "$vadd"

run_plain plain "$vadd" --exit-code 3
expect_rc 3 plain
need_tracer "$tracer"

run_traced code -j -o "$tmp/tally.json" -- "$vadd" --exit-code 3
expect_rc 3 code
same_stdout plain code
compare_tally "$tmp/tally.json" "$tmp/code.json"

run_traced signal -j -o "$tmp/signal.json" -- sh -c 'kill -TERM $$'
expect_rc 143 signal

run_traced missing -j -o "$tmp/missing.json" -- "$tmp/no-such-app"
expect_rc 127 missing
echo "PASS: $e2e_name: exit code 3, SIGTERM -> 143, missing app -> 127"
