#!/bin/sh
# Adding a corpus spec needs no edit to any build file, cli/ or runtime/: a spec written
# now, in a folder the build never saw, is built by scripts/build-backend.sh and traced
# by the tracer already built, through TRACER_BACKEND_PATH; and every tests/corpus/*.yaml
# has its ctest test without being listed anywhere.
# Usage: new_spec_test.sh BUILD
set -eu
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v bzip2 >/dev/null && [ -f /usr/include/bzlib.h ] ||
  { echo "SKIP: bzip2 and libbz2-dev are needed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/brandnew.yaml" <<'YAML'
backend: brandnew
library: libbz2.so.1.0
headers: [bzlib.h]
select:
  functions: ["BZ2_bzCompress*"]
trace: {}
YAML
TRACER_BACKEND_OPT=-O0 "$root/scripts/build-backend.sh" "$tmp/brandnew.yaml" "$tmp/backends" "$build"
seq 1 20000 >"$tmp/in.txt"
TRACER_BACKEND_PATH=$tmp/backends "$build/bin/tracer" -q -b brandnew -j -o "$tmp/tally.json" \
  --trace-output "$tmp/trace" bzip2 -c "$tmp/in.txt" >/dev/null
calls=$(jq '[.backends[] | select(.name == "brandnew") | .host[] | select(.name == "BZ2_bzCompressInit") | .calls] | add // 0' "$tmp/tally.json")
[ "$calls" = 1 ] || { echo "FAIL: BZ2_bzCompressInit counted $calls times, not 1" >&2; exit 1; }
# Without the path the tracer does not know it: the backend came from the path alone.
if "$build/bin/tracer" -q -b brandnew --trace-output "$tmp/trace2" true 2>/dev/null; then
  echo "FAIL: the tracer knows brandnew without TRACER_BACKEND_PATH" >&2; exit 1
fi
listed=$(cd "$build" && ctest -N -R '^corpus_' | sed -n 's/.*Test *#[0-9]*: corpus_//p' | grep -v new_spec | sort)
specs=$(cd "$here" && ls ./*.yaml | sed 's|^\./||; s|\.yaml$||' | sort)
[ "$listed" = "$specs" ] || { echo "FAIL: ctest lists '$listed', specs are '$specs'" >&2; exit 1; }
echo "brandnew: traced from a new spec alone (BZ2_bzCompressInit: 1 call); $(echo "$specs" | wc -l) corpus specs, each with its test"
