#!/bin/sh
# Adding a corpus spec needs no edit to any build file, cli/ or runtime/: a spec written
# now, in a folder the build never saw (quoted values, comments, flow style: read as YAML
# by apigen, never by sed), is built by scripts/build-backend.sh and traced by the tracer
# already built, found through --backend-path or TRACER_BACKEND_PATH. Without either,
# the tracer says where it looked, and `tracer -r` of the trace names the backend it
# cannot decode. Every tests/corpus/*.yaml has its ctest test without being listed.
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
backend: "brandnew"   # quoted, with a comment
library: 'libbz2.so.1.0'
headers: [ "bzlib.h" ]
select: {functions: ["BZ2_bzCompress*"]}  # flow style
trace: {}
YAML
TRACER_BACKEND_OPT=-O0 "$root/scripts/build-backend.sh" "$tmp/brandnew.yaml" "$tmp/backends" "$build"
seq 1 20000 >"$tmp/in.txt"
compress_init_calls() {
  jq '[.backends[] | select(.name == "brandnew") | .host[] | select(.name == "BZ2_bzCompressInit") | .calls] | add // 0' "$1"
}
TRACER_BACKEND_PATH=$tmp/backends "$build/bin/tracer" -q -b brandnew -j -o "$tmp/tally.json" \
  --trace-output "$tmp/trace" bzip2 -c "$tmp/in.txt" >/dev/null
calls=$(compress_init_calls "$tmp/tally.json")
[ "$calls" = 1 ] || { echo "FAIL: BZ2_bzCompressInit counted $calls times, not 1" >&2; exit 1; }
# --backend-path DIR does the same, wherever it is among the options (after -b NAME), and
# --help says so. (LTTng's own statedump events
# too: a provider of LTTng's, no backend the tracer lacks.)
(unset TRACER_BACKEND_PATH; "$build/bin/tracer" -q -b brandnew --backend-path "$tmp/backends" -j \
  -o "$tmp/tally2.json" --events 'lttng_ust_statedump:*' --trace-output "$tmp/trace2" \
  bzip2 -c "$tmp/in.txt" >/dev/null)
calls=$(compress_init_calls "$tmp/tally2.json")
[ "$calls" = 1 ] || { echo "FAIL: with --backend-path, BZ2_bzCompressInit counted $calls times" >&2; exit 1; }
(unset TRACER_BACKEND_PATH; "$build/bin/tracer" --help) | grep -q -- "--backend-path DIR" ||
  { echo "FAIL: tracer --help does not mention --backend-path DIR" >&2; exit 1; }
# Without the path the tracer does not know it: the backend came from the path alone, and
# the message says how to give it and where the tracer looked.
if (unset TRACER_BACKEND_PATH; "$build/bin/tracer" -q -b brandnew --trace-output "$tmp/trace3" true) \
     2>"$tmp/unknown.txt"; then
  echo "FAIL: the tracer knows brandnew without TRACER_BACKEND_PATH" >&2; exit 1
fi
for words in "Unknown backend: brandnew" "--backend-path DIR or TRACER_BACKEND_PATH" \
             "looked in: no backend path"; do
  grep -q -- "$words" "$tmp/unknown.txt" ||
    { echo "FAIL: the unknown-backend message lacks '$words': $(cat "$tmp/unknown.txt")" >&2; exit 1; }
done
# A path to the folder above the backend's: the message says that it holds no backend.
if (unset TRACER_BACKEND_PATH; "$build/bin/tracer" -q --backend-path "$tmp" -b brandnew \
      --trace-output "$tmp/trace4" true) 2>"$tmp/above.txt"; then
  echo "FAIL: the tracer finds brandnew in the folder above its own" >&2; exit 1
fi
grep -q -- "looked in: the backend path $tmp (--backend-path, TRACER_BACKEND_PATH), which holds no backend" \
  "$tmp/above.txt" ||
  { echo "FAIL: the unknown-backend message does not say $tmp holds no backend: $(cat "$tmp/above.txt")" >&2; exit 1; }
# tracer -r of the trace: without the path, a warning names the backend it cannot decode;
# with it, the calls are there again.
(unset TRACER_BACKEND_PATH; "$build/bin/tracer" -r "$tmp/trace2" -j -o "$tmp/replay.json") \
  >/dev/null 2>"$tmp/replay.txt" || true
grep -q "Cannot decode the calls of backend brandnew: .*looked in: no backend path" "$tmp/replay.txt" ||
  { echo "FAIL: tracer -r without the path does not name brandnew: $(cat "$tmp/replay.txt")" >&2; exit 1; }
(unset TRACER_BACKEND_PATH; "$build/bin/tracer" --backend-path "$tmp/backends" -r "$tmp/trace2" \
  -j -o "$tmp/replay.json") >/dev/null 2>"$tmp/replay2.txt"
calls=$(compress_init_calls "$tmp/replay.json")
[ "$calls" = 1 ] || { echo "FAIL: tracer --backend-path -r counted BZ2_bzCompressInit $calls times" >&2; exit 1; }
! grep -q "Cannot decode" "$tmp/replay2.txt" ||
  { echo "FAIL: tracer --backend-path -r still warns: $(cat "$tmp/replay2.txt")" >&2; exit 1; }
# tracer diff reads the traces through the same backends: without the path it finds no
# backend to compare, with --backend-path it compares the run with itself.
if (unset TRACER_BACKEND_PATH; "$build/bin/tracer" diff -o "$tmp/diff0.txt" "$tmp/trace2" \
      "$tmp/trace2") >/dev/null 2>&1; then
  echo "FAIL: tracer diff compared brandnew's traces without the backend path" >&2; exit 1
fi
(unset TRACER_BACKEND_PATH; "$build/bin/tracer" diff -o "$tmp/diff.txt" --backend-path "$tmp/backends" \
  "$tmp/trace2" "$tmp/trace2") >/dev/null 2>"$tmp/diff.err" ||
  { echo "FAIL: tracer diff --backend-path failed: $(cat "$tmp/diff.err")" >&2; exit 1; }
grep -q "The whole difference: 0ns" "$tmp/diff.txt" ||
  { echo "FAIL: tracer diff --backend-path: $(cat "$tmp/diff.err" "$tmp/diff.txt")" >&2; exit 1; }
listed=$(cd "$build" && ctest -N -R '^corpus_' | sed -n 's/.*Test *#[0-9]*: corpus_//p' | grep -v new_spec | sort)
specs=$(cd "$here" && ls ./*.yaml | sed 's|^\./||; s|\.yaml$||' | sort)
[ "$listed" = "$specs" ] || { echo "FAIL: ctest lists '$listed', specs are '$specs'" >&2; exit 1; }
echo "brandnew: traced from a new spec alone (BZ2_bzCompressInit: 1 call), by --backend-path and TRACER_BACKEND_PATH, and -r; $(echo "$specs" | wc -l) corpus specs, each with its test"
