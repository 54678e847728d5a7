#!/bin/sh
# Builds the program that proves a committed model exact against the installed headers.
# Usage: model-check.sh APIGEN SPEC MODEL_DIR OUTPUT
#   writes OUTPUT.c (apigen --check-source) and compiles it into OUTPUT.
set -eu
apigen=$1 spec=$2 modeldir=$3 out=$4
cflags=$("$apigen" --spec "$spec" --print-cflags)
"$apigen" --spec "$spec" --output "$modeldir" --check-source "$out.c"
# -w: vendor headers warn about themselves; the checks are static assertions.
# shellcheck disable=SC2086
${CC:-cc} -w $cflags "$out.c" -o "$out"
