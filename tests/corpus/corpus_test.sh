#!/bin/sh
# A corpus library: its spec (tests/corpus/BACKEND.yaml) is all it has. The model must be
# exact, the tracer's sources must compile with -Werror (scripts/build-backend.sh), and
# where programs.txt names a real program for it, the tracer, built and found through
# TRACER_BACKEND_PATH, must count the program's calls as ltrace does. Without a program
# the sources are compiled only (--check): building them takes four times as long and
# adds nothing that the specs with a program do not test.
# Usage: corpus_test.sh BUILD BACKEND
set -eu
[ $# -eq 2 ] || { echo "usage: $0 BUILD BACKEND" >&2; exit 2; }
build=$(cd "$1" && pwd) backend=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

spec=$here/$backend.yaml
[ -f "$spec" ] || spec=$backend  # a spec given by path (the corpus_new_spec test)
lines=$(wc -l <"$spec")
[ "$lines" -le 30 ] || { echo "FAIL: $backend: the spec has $lines lines (at most 30)" >&2; exit 1; }
backend=$("$build/bin/apigen" --spec "$spec" --print backend)
command=$(sed -n "s/^$backend: //p" "$here/programs.txt")
if [ -z "$command" ]; then
  "$root/scripts/build-backend.sh" --check "$spec" "$tmp/backends" "$build"
  echo "$backend: model exact, sources compile with -Werror (no program to trace)"
  exit 0
fi
# -O0: the product's -O2 triples the compile time of a few hundred wrappers on 2 cores.
TRACER_BACKEND_OPT=-O0 "$root/scripts/build-backend.sh" "$spec" "$tmp/backends" "$build"
program=${command%% *}
command -v "$program" >/dev/null || { echo "SKIP: $program not installed"; exit 77; }
command -v ltrace >/dev/null || { echo "SKIP: ltrace not installed"; exit 77; }

# The inputs: a text, an XML document with its DTD, an SQL script.
mkdir -p "$tmp/in"
i=0
while [ $i -lt 2000 ]; do echo "line $i of a text that compresses well"; i=$((i + 1)); done \
  >"$tmp/in/text.txt"
cat >"$tmp/in/doc.xml" <<'XML'
<?xml version="1.0"?>
<!DOCTYPE notes [<!ELEMENT notes (note*)> <!ELEMENT note (#PCDATA)> <!ATTLIST note id CDATA #REQUIRED>]>
<notes><note id="1">one</note><note id="2">two</note><note id="3">three</note></notes>
XML
echo "create table t(x); insert into t values (1), (2), (3); select sum(x) from t;" \
  >"$tmp/in/script.sql"
run=$(echo "$command" | sed "s|INPUT|$tmp/in|g")

# The independent count: ltrace, calls from the program's own code, per function.
rm -f "$tmp/in/out.tar" "$tmp/in/db.sqlite"
# shellcheck disable=SC2086
ltrace -c -e '*@MAIN' -o "$tmp/ltrace.txt" $run >/dev/null
awk 'NF == 5 && $4 ~ /^[0-9]+$/ { print $5, $4 }' "$tmp/ltrace.txt" | sort >"$tmp/ltrace.counts"

rm -f "$tmp/in/out.tar" "$tmp/in/db.sqlite"
# shellcheck disable=SC2086
TRACER_BACKEND_PATH=$tmp/backends "$build/bin/tracer" -q -b "$backend" -j -o "$tmp/tally.json" \
  --trace-output "$tmp/trace" $run >/dev/null
jq -r --arg b "$backend" '.backends[] | select(.name == $b) | .host[] | "\(.name) \(.calls)"' \
  "$tmp/tally.json" | sort >"$tmp/tracer.counts"
[ -s "$tmp/tracer.counts" ] || { echo "FAIL: $backend: the tracer counted no call" >&2; exit 1; }

# Every wrapped function (the exports map) that the program calls, as ltrace saw it. The
# tracer may count more: calls that reach the library from elsewhere (another library, a
# variadic function of the library that it does not wrap), which ltrace -e @MAIN skips.
grep -o '^ *[A-Za-z_][A-Za-z0-9_]*;' "$tmp/backends/${backend}_exports.map" | tr -d ' ;' |
  sort >"$tmp/functions"
join "$tmp/ltrace.counts" "$tmp/functions" >"$tmp/expected"
[ -s "$tmp/expected" ] || { echo "FAIL: $backend: ltrace saw no wrapped call" >&2; exit 1; }
join "$tmp/tracer.counts" "$tmp/expected" | cut -d' ' -f1,2 >"$tmp/counted"
if ! diff -u "$tmp/expected" "$tmp/counted" >"$tmp/diff"; then
  echo "FAIL: $backend: the tracer's counts differ from ltrace's (- ltrace, + tracer):" >&2
  cat "$tmp/diff" >&2
  exit 1
fi
# The programs run cleanly: with the spec's status rules (a stream's end, a row, "not
# ready"), none of their calls is an error.
errors=$(jq --arg b "$backend" '[.backends[] | select(.name == $b) | .host[] |
                                 select((.errors // 0) > 0) | "\(.name): \(.errors)"]' \
         "$tmp/tally.json")
[ "$errors" = "[]" ] || { echo "FAIL: $backend: calls counted as errors: $errors" >&2; exit 1; }
# babeltrace2's plugin decodes the backend found on the path as `tracer -t` does
# (docs/babeltrace2.md).
bt2=""
if command -v babeltrace2 >/dev/null && [ -d "$build/lib/babeltrace2" ]; then
  export TRACER_BACKEND_PATH="$tmp/backends"
  babeltrace2 --plugin-path="$build/lib/babeltrace2" "$tmp/trace" -c filter.tracer.decode \
    >"$tmp/decoded.txt"
  "$build/bin/tracer" -q -r "$tmp/trace" -t -o "$tmp/text.txt"
  if ! /usr/bin/python3 "$root/tests/exports/babeltrace2_check.py" "$tmp/text.txt" \
    "$tmp/decoded.txt" >"$tmp/bt2.txt" 2>&1; then
    echo "FAIL: $backend: babeltrace2's plugin and tracer -t differ:" >&2
    cat "$tmp/bt2.txt" >&2
    exit 1
  fi
  unset TRACER_BACKEND_PATH
  bt2=$(cat "$tmp/bt2.txt")
fi
echo "$backend: $(wc -l <"$tmp/expected") functions, $(awk '{ n += $2 } END { print n }' "$tmp/expected") calls, counted as ltrace counts them: $run${bt2:+; babeltrace2: $bt2}"
