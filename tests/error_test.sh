#!/bin/sh
# An error case: apigen must refuse CASE_DIR/spec.yaml with the exit status in
# CASE_DIR/exit, print exactly CASE_DIR/expected.txt on stderr (located messages with
# the source line and a caret), and write nothing: no out/model.yaml, no temp file.
# Usage: error_test.sh APIGEN CASE_DIR [--update]
#   CASE_DIR/args, if present, holds extra arguments for apigen (split on spaces).
#   --update rewrites expected.txt from what apigen prints; read it after.
# The case folder's absolute path is written "." in messages (and removed before a
# file name), so expected.txt does not depend on where the source tree is.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 APIGEN CASE_DIR [--update]" >&2; exit 2; }
apigen=$1
update=${3:-}
case $apigen in /*) ;; *) apigen=$(pwd)/$apigen ;; esac
cd "$2"
dir=$(pwd -P)
name=$(basename "$dir")
fail() { echo "FAIL: $name: $*" >&2; exit 1; }
[ -f exit ] || fail "no file 'exit' with the expected exit status in $dir"
[ -f expected.txt ] || [ "$update" = --update ] || fail "no expected.txt in $dir"
expected_status=$(cat exit)
case $expected_status in '' | *[!0-9]*) fail "'exit' must hold a number, not '$expected_status'" ;; esac
[ "$expected_status" -ne 0 ] || fail "an error case must expect a non-zero exit status"
[ ! -e out ] || fail "$dir/out exists before the run; remove it"
extra=
[ -f args ] && extra=$(cat args)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$dir/out"' EXIT
find . | LC_ALL=C sort >"$tmp/before"

status=0
# shellcheck disable=SC2086
"$apigen" --spec spec.yaml --output out $extra >"$tmp/stdout" 2>"$tmp/stderr" || status=$?

# Absolute paths of the case folder, as apigen resolves them, are made relative.
awk -v dir="$dir" '{
  out = ""
  while ((i = index($0, dir)) > 0) {
    rest = substr($0, i + length(dir))
    out = out substr($0, 1, i - 1) (substr(rest, 1, 1) == "/" ? "" : ".")
    $0 = substr(rest, 1, 1) == "/" ? substr(rest, 2) : rest
  }
  print out $0
}' "$tmp/stderr" >"$tmp/actual"

if [ "$update" = --update ]; then
  cp "$tmp/actual" expected.txt
  echo "updated $dir/expected.txt (exit status $status): read it"
  exit 0
fi

status_ok=1
[ "$status" -eq "$expected_status" ] || status_ok=0
[ "$status_ok" -eq 1 ] ||
  echo "FAIL: $name: exit status $status, expected $expected_status" >&2
if ! cmp -s expected.txt "$tmp/actual"; then
  echo "FAIL: $name: stderr differs from expected.txt (- expected, + apigen):" >&2
  diff -u expected.txt "$tmp/actual" >&2 || true
  exit 1
fi
[ "$status_ok" -eq 1 ] || exit 1
[ -s "$tmp/actual" ] || fail "apigen printed no message"
[ ! -s "$tmp/stdout" ] || { cat "$tmp/stdout" >&2; fail "apigen wrote to stdout"; }
# Nothing written: no model, no half-written temp file, nothing else in the case folder.
[ ! -e out/model.yaml ] || fail "out/model.yaml was written"
find . | LC_ALL=C sort >"$tmp/after"
if ! cmp -s "$tmp/before" "$tmp/after"; then
  echo "FAIL: $name: apigen left files behind:" >&2
  diff "$tmp/before" "$tmp/after" >&2 || true
  exit 1
fi
echo "$name: exit status $status and the expected message:"
cat "$tmp/actual"
echo "$name: nothing written"
