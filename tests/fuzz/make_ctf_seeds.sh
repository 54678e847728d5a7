#!/bin/sh
# Records the CTF seeds of the fuzz corpus (tests/fuzz/corpus/) with the real LTTng, so
# they can be made again after a change of LTTng or of the tracer's events. Not part of
# any build: run it by hand, look at the diff, commit.
#
#   ctf_metadata/lttng_ctf_test.metadata   metadata of a short ctf_test trace, as LTTng
#                                          wrote it (metadata packets); also the fixed
#                                          metadata of the ctf_stream target
#   ctf_stream/ctf_test_*                  its stream files (every field kind)
#   ctf_metadata/lttng_opencl.tsdl         metadata of `tracer -m full` on the vadd app, as
#                                          text, keeping only the event classes the trace
#                                          holds (the whole one is 230 KB); the fixed
#                                          metadata of the ctf_analysis target
#   ctf_analysis/opencl_*                  its stream files
#
# Usage: make_ctf_seeds.sh BUILD_DIR   (a built tree: tests/ctf_test_app, bin/tracer,
#                                       tests/apps/vadd)
set -eu

build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/corpus"
work=$(mktemp -d "${TMPDIR:-/tmp}/make_ctf_seeds.XXXXXX")
session="make_ctf_seeds_$$"
trap 'lttng destroy "$session" >/dev/null 2>&1; rm -rf "$work"' EXIT

lttng list >/dev/null 2>&1 || lttng-sessiond --daemonize --no-kernel >/dev/null

# ctf_test: every field kind, 20 ticks, 4 KiB packets (the smallest LTTng writes).
lttng create "$session" --output="$work/ctf_test" >/dev/null
lttng enable-channel -u -s "$session" --subbuf-size=4096 --num-subbuf=4 c0 >/dev/null
lttng enable-event -u -s "$session" -c c0 'ctf_test:*' >/dev/null
lttng add-context -u -s "$session" -c c0 -t vpid -t vtid -t procname >/dev/null
lttng start "$session" >/dev/null
LTTNG_UST_REGISTER_TIMEOUT=-1 "$build/tests/ctf_test_app" 20 0 0 1
lttng stop "$session" >/dev/null
lttng destroy "$session" >/dev/null
dir=$(dirname "$(find "$work/ctf_test" -name metadata -type f | head -1)")
cp "$dir/metadata" "$corpus/ctf_metadata/lttng_ctf_test.metadata"
rm -f "$corpus/ctf_stream"/ctf_test_*
for f in "$dir"/c0_*; do
  [ -s "$f" ] && cp "$f" "$corpus/ctf_stream/ctf_test_$(basename "$f")"
done

# opencl: the tracer's own events in full mode, on a small app.
POCL_CACHE_DIR="$work/pocl" "$build/bin/tracer" -q -m full --trace-output "$work/opencl" \
  "$build/tests/apps/vadd" >/dev/null
dir=$(dirname "$(find "$work/opencl" -name metadata -type f | head -1)")
babeltrace2 "$dir" | awk '{ sub(/:$/, "", $4); print $4 }' | sort -u >"$work/names"
babeltrace2 -o ctf-metadata "$dir" | awk -v names="$work/names" '
  BEGIN { while ((getline n < names) > 0) keep["\"" n "\";"] = 1 }
  /^event \{/ { block = $0 "\n"; inside = 1; wanted = 0; next }
  inside { block = block $0 "\n"
           if ($1 == "name" && keep[$3]) wanted = 1
           if ($0 == "};") { if (wanted) printf "%s\n", block; inside = 0 }
           next }
  { print }' >"$corpus/ctf_metadata/lttng_opencl.tsdl"
rm -f "$corpus/ctf_analysis"/opencl_*
for f in "$dir"/tracer_*; do
  [ -s "$f" ] && cp "$f" "$corpus/ctf_analysis/opencl_$(basename "$f")"
done
ls -l "$corpus/ctf_metadata" "$corpus/ctf_stream" "$corpus/ctf_analysis"
