#!/bin/sh
# How reading cost grows with the trace: the tally (tracer -r DIR) and the timeline
# (bench/timeline_bench: the read in time order and the Perfetto file) on traces of 1M,
# 10M and 100M events of bench/cl_loop on 2 threads (default mode, one event per call),
# wall seconds, ns per event and peak memory (the resident set, /usr/bin/time's %M).
# Time should grow as the events (ns per event flat) and memory not at all. Each trace is
# recorded, read BENCH_ROUNDS times for each (interleaved), then removed with its
# timeline: 100M events take about 7 GB of trace and 9 GB of timeline, and the script
# stops before it starts a size the disk cannot hold.
# Usage: scaling.sh [BUILD_DIR]; BENCH_SIZES (default "1000000 10000000 100000000"),
# BENCH_ROUNDS (3), BENCH_DIR (where the traces go; default a folder in $TMPDIR).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
sizes=${BENCH_SIZES:-1000000 10000000 100000000}
rounds=${BENCH_ROUNDS:-3}
tracer=$build/bin/tracer
loop=$build/bench/cl_loop
timeline_bench=$build/bench/timeline_bench
for tool in "$tracer" "$loop" "$timeline_bench"; do
  [ -x "$tool" ] || { echo "scaling: $tool is missing: run make first" >&2; exit 1; }
done
tmp=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/scaling.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export POCL_CACHE_DIR="$tmp/pocl"

run() { # NAME SIZE COMMAND...: wall s, peak MiB appended to $tmp/NAME-SIZE
  name=$1 size=$2
  shift 2
  start=$(date +%s%N)
  /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/err" ||
    { echo "scaling: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  end=$(date +%s%N)
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", (b - a) / 1e9}') $(awk '{printf "%.0f", $1 / 1024}' "$tmp/rss")" \
    >>"$tmp/$name-$size"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for size in $sizes; do
  # About 75 bytes of trace and 90 of timeline per event, and a margin.
  need=$((size / 1048576 * 180 + 512))
  free=$(df -Pm "$tmp" | awk 'NR == 2 {print $4}')
  if [ "$free" -lt "$need" ]; then
    echo "scaling: $size events need about $need MiB in $tmp, $free MiB free: stopping" >&2
    break
  fi
  trace=$tmp/trace-$size
  "$tracer" -q -b opencl --trace-output "$trace" -o /dev/null -- \
    "$loop" --calls $((size / 2)) --threads 2 >/dev/null
  "$tracer" -q -r "$trace" -j | jq .events >"$tmp/events-$size"
  du -sm "$trace" | cut -f1 >"$tmp/trace-mib-$size"
  r=0
  while [ $r -lt "$rounds" ]; do
    run tally "$size" "$tracer" -q -r "$trace"
    run timeline "$size" "$timeline_bench" "$trace" "$tmp/out.pftrace"
    du -sm "$tmp/out.pftrace" | cut -f1 >"$tmp/timeline-mib-$size"
    rm -f "$tmp/out.pftrace"
    r=$((r + 1))
  done
  rm -rf "$trace"
done

echo "## Reading cost against the trace's size"
echo
echo "bench/cl_loop on 2 threads, default mode; each trace read $rounds times by each, in turn."
echo "Wall seconds (median, least-most), ns per event of the median, peak resident memory"
echo "(the most of the runs). Command: \`bench/scaling.sh\`; $(nproc) cores, load average at"
echo "the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| events | trace | tally | tally ns/event | tally peak | timeline | timeline ns/event | timeline peak | timeline file |"
echo "|---|---|---|---|---|---|---|---|---|"
for size in $sizes; do
  [ -s "$tmp/tally-$size" ] || continue
  events=$(cat "$tmp/events-$size")
  cells=""
  for name in tally timeline; do
    f=$tmp/$name-$size
    m=$(cut -d' ' -f1 "$f" | median)
    lo=$(cut -d' ' -f1 "$f" | sort -g | head -1)
    hi=$(cut -d' ' -f1 "$f" | sort -g | tail -1)
    rss=$(cut -d' ' -f2 "$f" | sort -g | tail -1)
    cells="$cells | $m s ($lo-$hi) | $(awk -v s="$m" -v e="$events" 'BEGIN {printf "%.1f", s * 1e9 / e}') | $rss MiB"
  done
  echo "| $events | $(cat "$tmp/trace-mib-$size") MiB$cells | $(cat "$tmp/timeline-mib-$size") MiB |"
done
