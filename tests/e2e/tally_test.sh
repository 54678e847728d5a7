#!/bin/sh
# The JSON tally of one test app equals the app's own count of what it did.
# Usage: tally_test.sh [-m MODE] TRACER APP [ARGS...]
#
# Runs APP untraced, then as `tracer [-m MODE] -j -o TALLY --trace-output DIR -- APP ARGS`
# (every mode must give the same counts), each with
# APP_MANIFEST set (tests/apps/cl_count.h), and checks:
#  - tracer exits with the app's status (0), and the app printed the same bytes on stdout
#    traced and untraced (the tally goes to the -o file, not to stdout);
#  - the app made the same OpenCL calls traced and untraced;
#  - backend "opencl": each function of the manifest has a host entry with exactly that
#    many calls, and no host entry exists that the manifest lacks; errors in total and per
#    function equal the app's; each kernel is a "device" entry of kind "kernel" with the
#    app's launch count (and no other kernel); transfer commands per enqueue function and
#    their bytes ("traffic") equal the app's; processes and threads are the app's;
#  - `tracer -r DIR -j` on the saved trace gives the same JSON again.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
usage="usage: $0 [-m MODE] TRACER APP [ARGS...]"
mode_options=""
if [ "${1:-}" = -m ]; then
  [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
  mode_options="-m $2"
  shift 2
fi
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
shift 2
e2e_setup
need_app "$app"

run_plain plain "$app" "$@"
expect_rc 0 plain
need_tracer "$tracer"

# shellcheck disable=SC2086 # mode_options is empty or two words
run_traced traced $mode_options -j -o "$tmp/tally.json" -- "$app" "$@"
expect_rc 0 traced
[ -s "$tmp/tally.json" ] || fail "tracer wrote no tally to $tmp/tally.json"
same_stdout plain traced
same_manifest "$tmp/plain.json" "$tmp/traced.json"
compare_tally "$tmp/tally.json" "$tmp/traced.json"

rc=0
"$tracer" -r "$tmp/traced.trace" -j -o "$tmp/replay.json" 2>"$tmp/replay.err" || rc=$?
expect_rc 0 replay
if ! jq -e -n --slurpfile a "$tmp/tally.json" --slurpfile b "$tmp/replay.json" '$a[0] == $b[0]' \
  >/dev/null; then
  echo "FAIL: $e2e_name: tracer -r gives another tally than the live run (- live, + replay):" >&2
  diff -u "$tmp/tally.json" "$tmp/replay.json" >&2 || true
  exit 1
fi
echo "PASS: $e2e_name: ${mode_options:+$mode_options }$(basename "$app")${*:+ $*}: $(jq -c '{calls: ([.calls[]] | add), errors, kernels, bytes}' "$tmp/traced.json")"
