#!/bin/sh
# What `tracer --sample` costs (docs/sampling.md), measured in one run on this machine:
#  1. the sampler's CPU time per reading: `tracer --sample=1 -b opencl -- sleep 3`, the
#     sampler recorded by the run's session and reading the null NVML and Level Zero
#     libraries of the build (tests/backends/*_null_behaviour.c: one device each, 7 and 2
#     counters), its own count of readings and CPU time (TRACER_SAMPLER_STATS);
#  2. its effect on a traced app: bench/cl_loop (clGetPlatformIDs in a loop, PoCL, minimal
#     mode) under the tracer without --sample, with --sample (100 ms, the default) and
#     --sample=1, runs alternated, the median of each; the ratio of the app's time per
#     call with sampling to without.
# The app's threads make no call for the sampler, so what it can cost the app is CPU
# time taken from it on a busy machine.
# Usage: bench/sample_bench.sh [BUILD_DIR] [RUNS]  (default build, 5)
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${2:-5}
tracer=$build/bin/tracer
loop=$build/bench/cl_loop
for f in "$tracer" "$build/bin/tracer-sampler" "$loop" "$build/null/nvml/libnvidia-ml.so.1" \
  "$build/null/ze/libze_loader.so.1"; do
  [ -e "$f" ] || { echo "sample_bench: $f is missing: build first (make)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LD_LIBRARY_PATH=$build/null/nvml:$build/null/ze${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

# 1. CPU per reading.
TRACER_SAMPLER_STATS=1 "$tracer" -q --sample=1 -b opencl --trace-output "$tmp/s.trace" -- sleep 3 \
  2>"$tmp/stats.txt" >/dev/null
stats=$(grep '^readings=' "$tmp/stats.txt") || { cat "$tmp/stats.txt" >&2; exit 1; }
per_reading=$(printf '%s\n' "$stats" | tr ' ' '\n' | awk -F= '
  { v[$1] = $2 } END { printf "%.1f us (%.1f us in the reads), %d readings, %d values",
    v["cpu_ns"] / v["readings"] / 1000, v["read_cpu_ns"] / v["readings"] / 1000, v["readings"], v["values"] }')

# 2. The app, without and with the sampler, alternated.
calls=4000000
: >"$tmp/none.txt"; : >"$tmp/default.txt"; : >"$tmp/fast.txt"
i=0
while [ "$i" -lt "$runs" ]; do
  for mode in none default fast; do
    case $mode in
    none) opt="" ;;
    default) opt="--sample" ;;
    fast) opt="--sample=1" ;;
    esac
    # shellcheck disable=SC2086 # opt is one option or none
    "$tracer" -q -m minimal -b opencl $opt --trace-output "$tmp/$mode.trace" -o /dev/null -- \
      "$loop" --calls "$calls" | sed -n 's/^ns_per_call=\([0-9.]*\).*/\1/p' >>"$tmp/$mode.txt"
    rm -rf "$tmp/$mode.trace"
  done
  i=$((i + 1))
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
none=$(median "$tmp/none.txt")
default=$(median "$tmp/default.txt")
fast=$(median "$tmp/fast.txt")
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
cat <<REPORT
## Sampler (tracer --sample): bench/sample_bench.sh

Machine: $(nproc) cores, $cpu. Date: $(date -u +%Y-%m-%d). Null NVML and Level Zero
libraries of the build (no GPU here): the figures are the sampler's own work and the
event writes, not a driver's.

- CPU time per reading (1 ms period, 3 s): $per_reading.
- cl_loop, $calls calls of clGetPlatformIDs, minimal mode, medians of $runs alternated runs:
  without --sample $none ns per call; --sample (100 ms) $default ns
  (ratio $(awk -v a="$default" -v b="$none" 'BEGIN { printf "%.3f", a / b }')); --sample=1 $fast ns (ratio $(awk -v a="$fast" -v b="$none" 'BEGIN { printf "%.3f", a / b }')).
REPORT
