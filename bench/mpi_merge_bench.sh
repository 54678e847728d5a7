#!/bin/sh
# MPI jobs' per-node results (docs/multi-rank.md), against baselines measured in the same
# run; bench/MPI_MERGE.md shows the figures.
#  1. The merge: `tracer -r` over the results of 1,000 and 10,000 simulated nodes, each
#     a real node's result (from a traced job of 4 ranks of tests/mpi's program, and from
#     one of 2 ranks of bench/mpi_loop.c with many more events) varied by
#     bench/node_results.c with the real writer: wall time and peak memory
#     (/usr/bin/time), text and JSON. Target: under 2 s for 10,000 nodes, the same
#     whatever the events behind each result.
#  2. The per-node reduction: the events per second a rank's tracer reduces its own trace
#     at (`tracer -r --threads 1` on the job with its results removed: each rank's trace
#     reduced in turn, as each rank reduces its own), against babeltrace2 reading the same
#     trace: its text output (`babeltrace2 DIR > /dev/null`) and its dummy sink.
# Usage (as root, in a private LTTng world on a shared machine):
#   lttng-world bench/mpi_merge_bench.sh [BUILD_DIR]
# MPI_BENCH_ITERATIONS (default 250000: about 1M events over the 2 ranks) sizes the loop;
# MPI_BENCH_REPS (default 3) the repetitions, of which the best is kept.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
tracer=$build/bin/tracer
gen=$build/bench/node_results
loop=$build/bench/mpi_loop
app=$build/tests/mpi/mpi_app_mpich_c
iterations=${MPI_BENCH_ITERATIONS:-250000}
reps=${MPI_BENCH_REPS:-3}
for tool in "$tracer" "$gen" "$loop" "$app"; do
  [ -x "$tool" ] || { echo "mpi_merge_bench: $tool is missing: run make first" >&2; exit 1; }
done
for tool in mpiexec.mpich babeltrace2 jq /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "mpi_merge_bench: $tool is missing (scripts/setup.sh)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TRACER_JOB_TIMEOUT=60

# best_of NAME COMMAND...: the least wall time (s) and its peak memory (KiB) over the
# repetitions, into $tmp/NAME.best as "SECONDS KIB".
best_of() {
  name=$1
  shift
  : >"$tmp/$name.all"
  i=0
  while [ "$i" -lt "$reps" ]; do
    /usr/bin/time -f "%e %M" -o "$tmp/$name.time" "$@" >/dev/null 2>"$tmp/$name.err" ||
      { echo "mpi_merge_bench: $name failed: $(cat "$tmp/$name.err")" >&2; exit 1; }
    cat "$tmp/$name.time" >>"$tmp/$name.all"
    i=$((i + 1))
  done
  sort -n "$tmp/$name.all" | head -1 >"$tmp/$name.best"
}

# The seeds: a node's result from two real jobs.
echo "mpi_merge_bench: tracing the seed jobs" >&2
mpiexec.mpich -n 4 "$tracer" -q --trace-output "$tmp/small" "$app" >/dev/null
mpiexec.mpich -n 2 "$tracer" -q --trace-output "$tmp/loop" "$loop" "$iterations" >/dev/null
small_seed=$(ls "$tmp"/small/nodes/*.result)
loop_seed=$(ls "$tmp"/loop/nodes/*.result)
events_of() { awk '/^counts / { print $2 }' "$1"; }

echo
echo "## Merging per-node results ($(nproc) cores, $(uname -m))"
echo
echo "| seed node | events per node | nodes | ranks | result files (MiB) | tracer -r (s) | peak memory (MiB) | tracer -r -j (s) | peak memory (MiB) |"
echo "|---|---|---|---|---|---|---|---|---|"
for seed in small loop; do
  eval "file=\$${seed}_seed"
  for nodes in 1000 10000; do
    out="$tmp/sim-$seed-$nodes"
    "$gen" "$file" "$out" "$nodes"
    best_of text "$tracer" -r "$out" -o /dev/null
    best_of json "$tracer" -r "$out" -j -o /dev/null
    ranks=$("$tracer" -r "$out" -j | jq '.job.ranks | length')
    read -r ts tk <"$tmp/text.best"
    read -r js jk <"$tmp/json.best"
    echo "| $seed | $(events_of "$file") | $nodes | $ranks | $(du -sm "$out/nodes" | cut -f1) | $ts | $((tk / 1024)) | $js | $((jk / 1024)) |"
    rm -rf "$out"
  done
done

echo
echo "## Per-node reduction against babeltrace2 (same trace: bench/mpi_loop, 2 ranks)"
echo
cp -R "$tmp/loop" "$tmp/events"
rm -rf "$tmp/events/nodes" "$tmp/events"/rank-*/tracer-result.txt
events=$("$tracer" -r "$tmp/loop" -j | jq .events)
best_of reduce "$tracer" -r "$tmp/events" --threads 1 -o /dev/null
best_of bt2text babeltrace2 "$tmp/loop"
best_of bt2dummy babeltrace2 --output-format=dummy "$tmp/loop"
read -r rs rk <"$tmp/reduce.best"
read -r bs bk <"$tmp/bt2text.best"
read -r ds dk <"$tmp/bt2dummy.best"
rate() { awk -v e="$events" -v s="$1" 'BEGIN { printf "%.2f", (s > 0 ? e / s / 1e6 : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }'; }
echo "| events | tracer reduction, 1 thread (s, M events/s) | babeltrace2 text > /dev/null (s, M events/s) | babeltrace2 dummy sink (s, M events/s) | reduction vs bt2 text | reduction vs bt2 dummy |"
echo "|---|---|---|---|---|---|"
echo "| $events | $rs, $(rate "$rs") | $bs, $(rate "$bs") | $ds, $(rate "$ds") | $(ratio "$rs" "$bs")x | $(ratio "$rs" "$ds")x |"
