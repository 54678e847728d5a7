#!/bin/sh
# A golden case: apigen's model of a small header written to break naive parsers must be
# exactly CASE_DIR/expected.yaml (values checked by hand when the case was written), and
# the compiler must find that model exact against the header.
# Usage: golden_test.sh APIGEN CASE_DIR [--update]
#   --update rewrites CASE_DIR/expected.yaml from apigen's output; read the diff after.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 APIGEN CASE_DIR [--update]" >&2; exit 2; }
apigen=$1
case_dir=$2
update=${3:-}
case $apigen in /*) ;; *) apigen=$(pwd)/$apigen ;; esac
templates=$(cd "$(dirname "$0")/../templates" && pwd)
cd "$case_dir"
name=$(basename "$(pwd)")
[ -f spec.yaml ] || { echo "FAIL: $name: no spec.yaml in $(pwd)" >&2; exit 1; }
[ -f expected.yaml ] || [ "$update" = --update ] ||
  { echo "FAIL: $name: no expected.yaml in $(pwd); make it with --update" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The model, byte for byte.
"$apigen" --spec spec.yaml --stdout >"$tmp/model.yaml"
[ -s "$tmp/model.yaml" ] || { echo "FAIL: $name: apigen wrote an empty model" >&2; exit 1; }
if [ "$update" = --update ]; then
  cp "$tmp/model.yaml" expected.yaml
  echo "updated $(pwd)/expected.yaml: read it and check every value by hand"
elif ! cmp -s expected.yaml "$tmp/model.yaml"; then
  echo "FAIL: $name: model differs from expected.yaml (- expected, + apigen):" >&2
  diff -u expected.yaml "$tmp/model.yaml" >&2 || true
  exit 1
fi
counts=$(grep '^counts:' "$tmp/model.yaml")
echo "$name: model matches expected.yaml ($counts)"

# 2. The same model written to a folder, proved exact by the compiler.
"$apigen" --quiet --spec spec.yaml --templates "$templates" --output "$tmp/model"
cmp -s "$tmp/model.yaml" "$tmp/model/model.yaml" ||
  { echo "FAIL: $name: --output and --stdout wrote different models" >&2; exit 1; }
"$apigen" --spec spec.yaml --output "$tmp/model" --check-source "$tmp/check.c"
cflags=$("$apigen" --spec spec.yaml --print-cflags)
# Warnings stay on here: these headers are ours, and the check must not hide behind -w.
# shellcheck disable=SC2086
if ! ${CC:-cc} $cflags "$tmp/check.c" -o "$tmp/check" 2>"$tmp/cc.log"; then
  echo "FAIL: $name: the exactness check does not compile:" >&2
  cat "$tmp/cc.log" >&2
  exit 1
fi
if ! "$tmp/check" >"$tmp/check.log" 2>&1; then
  echo "FAIL: $name: the exactness check failed:" >&2
  cat "$tmp/check.log" >&2
  exit 1
fi
cat "$tmp/check.log"
grep -q 'checked: exact$' "$tmp/check.log" ||
  { echo "FAIL: $name: the check did not print 'checked: exact'" >&2; exit 1; }
echo "$name: exactness check passed"

# 3. A spec with a trace section: the generated tracer sources build with warnings as
#    errors, as the build compiles them (with and without CMake's release -DNDEBUG).
if grep -q '^trace:' spec.yaml; then
  runtime=$templates/../runtime
  backend=$("$apigen" --spec spec.yaml --print backend)
  for release in -DNDEBUG -UNDEBUG; do
    for source in interposer tracepoints events; do
      # shellcheck disable=SC2086
      if ! ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -fPIC -D_GNU_SOURCE $release $cflags \
           -I"$tmp/model" -I"$runtime" -I"$runtime/stacks" -c "$tmp/model/${backend}_$source.c" \
           -o "$tmp/$source.o" 2>"$tmp/cc.log"; then
        echo "FAIL: $name: ${backend}_$source.c does not build ($release):" >&2
        cat "$tmp/cc.log" >&2
        exit 1
      fi
    done
  done
  echo "$name: the generated tracer sources build with -Werror"
fi
