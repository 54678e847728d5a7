#!/bin/sh
# --help tells the truth about the options, and so does the man page made from it: every
# long option the program's getopt table accepts is in --help and in the page, and every
# long option --help shows is accepted (not answered "unrecognized option"); and, given
# the header of the program's exit statuses (an `enum ..._exit`), each of them is in the
# Exit status paragraph of --help.
# Usage: help_test.sh PROGRAM SOURCE_OF_ITS_MAIN MAN_PAGE [EXIT_HEADER]
set -eu
program=$1
source=$2
page=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer-help.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$program" --help >"$tmp/help" || fail "$program --help failed"
[ -s "$page" ] || fail "no man page $page"
sed 's/\\-/-/g' "$page" >"$tmp/page" # roff's \- is a plain hyphen
# The getopt_long table: entries such as {"trace-output", required_argument, NULL, ...}.
grep -o '{"[a-z][a-z-]*", *\(no\|required\|optional\)_argument' "$source" |
  sed 's/^{"\([a-z-]*\)".*/\1/' | sort -u >"$tmp/accepted"
[ -s "$tmp/accepted" ] || fail "no long options found in $source"
while read -r opt; do
  grep -q -- "--$opt\b" "$tmp/help" || fail "--$opt is accepted but not in --help"
  grep -q -- "--$opt\b" "$tmp/page" || fail "--$opt is accepted but not in the man page"
done <"$tmp/accepted"
grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sed 's/^--//' | sort -u >"$tmp/shown"
while read -r opt; do
  grep -qx "$opt" "$tmp/accepted" && continue
  # Shown but not in the table: it must at least not be rejected as unknown.
  "$program" "--$opt" </dev/null >/dev/null 2>"$tmp/err" || true
  grep -q "unrecognized option" "$tmp/err" && fail "--help shows --$opt, which is not accepted"
done <"$tmp/shown"
if [ $# -ge 4 ]; then
  sed -n '/^enum [a-z_]*_exit {/,/^};/p' "$4" | grep -o '= *[0-9][0-9]*' | tr -d '= ' |
    sort -un >"$tmp/codes"
  [ -s "$tmp/codes" ] || fail "no exit statuses found in $4"
  sed -n '/Exit status/,$p' "$tmp/help" | tr '\n' ' ' >"$tmp/exits"
  while read -r code; do
    [ "$code" = 0 ] && continue
    grep -qE "(^|[^0-9+])$code([^0-9]|\$)" "$tmp/exits" ||
      fail "exit status $code of $4 is not in the Exit status paragraph of --help"
  done <"$tmp/codes"
  echo "exit statuses $(tr '\n' ' ' <"$tmp/codes")each in --help"
fi
echo "$(wc -l <"$tmp/accepted") long options, each in --help and in the man page"
