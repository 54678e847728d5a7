#!/bin/sh
# A machine without the CUDA toolkit (a fresh Debian 12): configuring leaves out the
# backends whose headers it lacks, one line each, naming the header and the spec's
# missing_hint as apigen reads the spec (CMake takes them from generated/B/B_build.cmake),
# and a backend named with TRACER_BACKENDS (make backend=...) is an error. The toolkit is
# hidden by CUDA_HOME and NVML_INCLUDE_DIR naming folders that do not exist; which backends
# lack a header, and which, is apigen's own verdict on the same environment.
# Usage: generated_headers_missing_test.sh APIGEN SOURCE_DIR
set -eu
apigen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CUDA_HOME=$tmp/no-cuda NVML_INCLUDE_DIR=$tmp/no-nvml
export CUDA_HOME NVML_INCLUDE_DIR
: >"$tmp/expected"
for spec in "$src"/api-specs/*.yaml; do
  b=$(basename "$spec" .yaml)
  if ! "$apigen" --spec "$spec" --print-cflags >/dev/null 2>"$tmp/err"; then
    # api-specs/B.yaml:L:C: error: Cannot find header: header=H (searched: ...); HINT
    line=$(grep -m1 "Cannot find header" "$tmp/err") ||
      { echo "FAIL: apigen --print-cflags on $b: $(cat "$tmp/err")" >&2; exit 1; }
    header=$(printf '%s\n' "$line" | sed 's/.*Cannot find header: header=\([^ ]*\) .*/\1/')
    hint=$(printf '%s\n' "$line" | sed 's/^[^)]*); //')
    printf '%s|%s|%s\n' "$b" "$header" "$hint" >>"$tmp/expected"
    # The folder the environment hid, where the spec names one, is said too.
    if grep -q "searched: $tmp/no-" "$tmp/err"; then echo "$b" >>"$tmp/hidden"; fi
  fi
done
[ -s "$tmp/expected" ] || { echo "FAIL: apigen finds every header without the toolkit" >&2; exit 1; }
cmake -S "$src" -B "$tmp/build" >"$tmp/out" 2>"$tmp/configure.err" ||
  { echo "FAIL: configuring without the toolkit failed: $(tail -5 "$tmp/configure.err")" >&2; exit 1; }
grep "^Backend .* left out: " "$tmp/configure.err" >"$tmp/lines" || true
sed 's/^Backend \([^ ]*\) left out: \([^ ]*\) not found[^;]*; \(.*\)$/\1|\2|\3/' \
  "$tmp/lines" >"$tmp/said"
if ! diff "$tmp/expected" "$tmp/said" >"$tmp/diff"; then
  echo "FAIL: the backends left out differ from apigen's missing headers (< apigen, > cmake):" >&2
  cat "$tmp/diff" >&2
  exit 1
fi
for b in $(cat "$tmp/hidden" 2>/dev/null); do
  grep -q "^Backend $b left out: [^ ]* not found in $tmp/no-" "$tmp/lines" ||
    { echo "FAIL: cmake does not name the folder it searched for $b: $(cat "$tmp/lines")" >&2; exit 1; }
done
# Named, a backend without its headers stops the configuration, with the same reason.
b=$(sed -n '1s/|.*//p' "$tmp/expected")
why=$(sed -n "/^Backend $b left out: /s/^Backend [^ ]* left out: //p" "$tmp/lines")
if cmake -S "$src" -B "$tmp/named" -DTRACER_BACKENDS="$b" >/dev/null 2>"$tmp/named.err"; then
  echo "FAIL: TRACER_BACKENDS=$b configured without its headers" >&2
  exit 1
fi
tr -s ' \n' ' ' <"$tmp/named.err" | grep -qF "Cannot build backend $b: api-specs/$b.yaml: $why" ||
  { echo "FAIL: TRACER_BACKENDS=$b: $(cat "$tmp/named.err")" >&2; exit 1; }
echo "left out as apigen says: $(cut -d'|' -f1 "$tmp/expected" | tr '\n' ' ')"
