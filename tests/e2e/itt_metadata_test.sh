#!/bin/sh
# ITT's string metadata decoded as ITT says: `length` chars of `data`, or up to its NUL
# when `length` is -1 (0 in older ittnotify.h). The app (tests/apps/itt_metadata.c) adds
# one string each way, the last 7 chars at the end of a readable page with no NUL after
# them; `tracer -b itt -m full -t` must run it to its end and show each string as the
# app wrote it (api-specs/itt.yaml: `data` is a string of at most `length` chars), and the
# project's decoder and babeltrace2 must agree on the trace.
# Usage: itt_metadata_test.sh TRACER APP CTF_DUMP
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 TRACER APP CTF_DUMP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
ctf_dump=$(abspath "$3")
e2e_setup
need_app "$app"
need_tracer "$tracer"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 not found"

run_traced traced -q -b itt -m full -t -o "$tmp/trace.txt" -- "$app" "$tmp/expect.tsv"
expect_rc 0 traced
[ -s "$tmp/expect.tsv" ] || fail "the app wrote no expectation"
tab=$(printf '\t')
checked=0
while IFS="$tab" read -r event text; do
  if ! grep -F ":$event: {" "$tmp/trace.txt" | grep -qF -- "$text"; then
    echo "--- lines of $event:" >&2
    grep -F ":$event: {" "$tmp/trace.txt" >&2 || true
    fail "no $event line shows: $text"
  fi
  checked=$((checked + 1))
done <"$tmp/expect.tsv"
[ "$checked" -eq 4 ] || fail "the app expects $checked strings, not 4"

LC_ALL=C babeltrace2 --clock-cycles --no-delta "$tmp/traced.trace" >"$tmp/bt2.txt"
"$ctf_dump" "$tmp/traced.trace" >"$tmp/ours.txt" || fail "ctf_dump failed"
if ! cmp -s "$tmp/bt2.txt" "$tmp/ours.txt"; then
  diff "$tmp/bt2.txt" "$tmp/ours.txt" | head -10 >&2
  fail "the project's decoder and babeltrace2 disagree"
fi
echo "PASS: $e2e_name: 4 metadata strings shown as the app wrote them"
