#!/bin/sh
# Tracing follows a fork, a fork + exec, and a posix_spawn: the JSON tally of the forker
# app counts the calls of both processes, and says 2 Processes.
# Usage: forker_test.sh [-m MODE] TRACER FORKER fork
#        forker_test.sh [-m MODE] TRACER FORKER exec|spawn VADD
#
# The parent's manifest and the child's ($APP_MANIFEST.child; in exec and spawn modes the
# vadd app writes it) are added up; the tally must equal the sum in every count the tally test
# checks (calls per function, errors, kernels, transfers, bytes, threads), with
# "processes": 2; the tracer returns 0 and stdout is the untraced run's; the text tally
# of the saved trace (tracer -r) says `BACKEND_OPENCL | 1 Hostnames | 2 Processes | ...`.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
usage="usage: $0 [-m MODE] TRACER FORKER fork | [-m MODE] TRACER FORKER exec|spawn VADD"
mode_options=""
if [ "${1:-}" = -m ]; then
  [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
  mode_options="-m $2" # minimal mode: the parent's batched calls are not the child's
  shift 2
fi
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
tracer=$(abspath "$1")
forker=$(abspath "$2")
mode=$3
case $mode in
fork) set -- fork ;;
exec | spawn)
  [ $# -eq 4 ] || { echo "$usage" >&2; exit 2; }
  vadd=$(abspath "$4")
  set -- "$mode" "$vadd"
  ;;
*) echo "$usage" >&2; exit 2 ;;
esac
e2e_setup
need_app "$forker"

run_plain plain "$forker" "$@"
expect_rc 0 plain
[ -f "$tmp/plain.json.child" ] || fail "the child wrote no manifest (plain run)"
merge_manifests "$tmp/plain.all.json" "$tmp/plain.json" "$tmp/plain.json.child"
need_tracer "$tracer"

# shellcheck disable=SC2086 # mode_options is empty or two words
run_traced traced $mode_options -j -o "$tmp/tally.json" -- "$forker" "$@"
expect_rc 0 traced
[ -f "$tmp/traced.json.child" ] || fail "the child wrote no manifest (traced run)"
merge_manifests "$tmp/traced.all.json" "$tmp/traced.json" "$tmp/traced.json.child"
same_stdout plain traced
same_manifest "$tmp/plain.all.json" "$tmp/traced.all.json"
[ "$(jq '.processes' "$tmp/traced.all.json")" -eq 2 ] || fail "merged manifest: not 2 processes"
compare_tally "$tmp/tally.json" "$tmp/traced.all.json"

rc=0
"$tracer" -r "$tmp/traced.trace" -o "$tmp/replay.txt" 2>"$tmp/replay.err" || rc=$?
expect_rc 0 replay
header="BACKEND_OPENCL | 1 Hostnames | 2 Processes | $(jq .threads "$tmp/traced.all.json") Threads |"
if ! grep -qxF "$header" "$tmp/replay.txt"; then
  echo "FAIL: $e2e_name: no line \"$header\" in the text tally of the saved trace:" >&2
  sed 's/^/    /' "$tmp/replay.txt" >&2
  exit 1
fi
echo "PASS: $e2e_name: ${mode_options:+$mode_options }forker $mode: parent $(jq -c '[.calls[]] | add' "$tmp/traced.json") calls, child $(jq -c '[.calls[]] | add' "$tmp/traced.json.child") calls, 2 processes"
