#!/bin/sh
# A test app run untraced: exits 0 (it checks its own results), prints the same output
# with and without APP_MANIFEST, and writes a sound manifest when asked.
# Usage: plain_test.sh APP [ARGS...]
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 APP [ARGS...]" >&2; exit 2; }
app=$(abspath "$1")
shift
e2e_setup
need_app "$app"

run_plain plain "$app" "$@"
expect_rc 0 plain
[ -s "$tmp/plain.out" ] || fail "the app printed nothing"
jq -e '
  (.processes == 1) and (.threads >= 1) and (.calls | length > 0)
  and (.errors == ([.failed[]] | add // 0))
  and ([.calls | to_entries[] | .value >= 1] | all)
  and ((.bytes | keys) == (.transfers | keys))
  and ([.kernels[]] | all(. >= 1))' "$tmp/plain.json" >/dev/null ||
  fail "unsound manifest: $(cat "$tmp/plain.json")"

rc=0
env -u APP_MANIFEST "$app" "$@" >"$tmp/again.out" 2>"$tmp/again.err" || rc=$?
expect_rc 0 again
cmp -s "$tmp/plain.out" "$tmp/again.out" || fail "output differs without APP_MANIFEST"
echo "PASS: $e2e_name: $(basename "$app")${*:+ $*}"
