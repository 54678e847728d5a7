#!/bin/sh
# Generated C is laid out as clang-format lays it out with the repository's .clang-format
# (apigen runs it on what it writes: generator/format.c), and so fits 100 columns: no line
# of generated/ is longer. generated_fresh proves every file byte-identical to apigen's
# output; clang-format checks here the files of the smaller backends (FORMAT_SAMPLE), a
# second opinion on the formatting path that takes seconds instead of a minute and a half
# for all of generated/ (2 cores).
# Usage: generated_format_test.sh SOURCE_DIR
set -eu
cd "$1"
command -v "${CLANG_FORMAT:-clang-format}" >/dev/null ||
  { echo "SKIP: ${CLANG_FORMAT:-clang-format} not found" >&2; exit 77; }
files=$(find generated -name '*.[ch]' | sort)
[ -n "$files" ] || { echo "FAIL: no generated C file under generated/" >&2; exit 1; }
status=0
sample=$(for b in ${FORMAT_SAMPLE:-itt nvtx nccl omp}; do find "generated/$b" -name '*.[ch]'; done | sort)
[ -n "$sample" ] || { echo "FAIL: none of the sampled backends is in generated/" >&2; exit 1; }
# shellcheck disable=SC2086
if ! "${CLANG_FORMAT:-clang-format}" --style=file:.clang-format --dry-run -Werror $sample \
  2>"${TMPDIR:-/tmp}/format-$$.txt"; then
  echo "FAIL: generated/ is not formatted (run 'make models'):" >&2
  head -20 "${TMPDIR:-/tmp}/format-$$.txt" >&2
  status=1
fi
rm -f "${TMPDIR:-/tmp}/format-$$.txt"
# shellcheck disable=SC2086
long=$(awk 'length > 100 { print FILENAME ":" FNR }' $files | head -5)
if [ -n "$long" ]; then
  echo "FAIL: generated lines longer than 100 columns:" >&2
  echo "$long" >&2
  status=1
fi
count=$(echo "$files" | wc -l)
[ "$status" -eq 0 ] && echo "generated/: $count C files none wider than 100 columns; $(echo "$sample" | wc -l) of them as clang-format lays them out"
exit $status
