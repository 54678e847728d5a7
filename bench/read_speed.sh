#!/bin/sh
# Reading a trace with both cores: the tally, `-t` and the timeline against babeltrace2
# on the same trace, in the same rounds. The trace: bench/cl_loop on 2 threads (an app
# whose calls land in several streams), default mode (one event per call), recorded on
# LTTng's monotonic clock (babeltrace2's muxer was seen to refuse the tracer's TSC clock
# traces on this machine). Each round runs, in an order of its own (see below):
#   bt2 dummy   babeltrace2 reading alone (source.ctf.fs -> sink.utils.dummy)
#   bt2 text    babeltrace2's text output (to /dev/null)
#   tally       tracer -r DIR (the text tables; stream by stream, every core)
#   -t          tracer -r DIR -t (in time order; decoded on every core)
#   timeline    bench/timeline_bench DIR FILE (the timeline alone: the read in time order
#               and the Perfetto file)
#   -r -l       tracer -r DIR -l FILE (tally, device use and gaps, and the timeline)
# and the tracer's three again on one thread (--threads 1; timeline_bench: TIMELINE_THREADS=1).
# Ratios are taken within each round (babeltrace2's time over the tracer's), then the
# median and the least and most over the rounds. Wall seconds, and CPU seconds (user +
# system) apart: on this shared 2-core machine the wall is what a user waits, the CPU
# the steadier figure.
# Usage: read_speed.sh [BUILD_DIR]; BENCH_EVENTS (default 10000000), BENCH_ROUNDS (5),
# BENCH_BASELINE (a build folder: its tracer's -t and tally in the same rounds).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
events=${BENCH_EVENTS:-10000000}
rounds=${BENCH_ROUNDS:-5}
baseline=${BENCH_BASELINE:-}
tracer=$build/bin/tracer
loop=$build/bench/cl_loop
timeline_bench=$build/bench/timeline_bench
for tool in "$tracer" "$loop" "$timeline_bench"; do
  [ -x "$tool" ] || { echo "read_speed: $tool is missing: run make first" >&2; exit 1; }
done
command -v babeltrace2 >/dev/null 2>&1 || { echo "read_speed: no babeltrace2" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export POCL_CACHE_DIR="$tmp/pocl"

trace=$tmp/trace
"$tracer" -q --clock monotonic -b opencl --trace-output "$trace" -o /dev/null -- \
  "$loop" --calls $((events / 2)) --threads 2 >/dev/null
count=$("$tracer" -q -r "$trace" -j | jq .events)
inputs=$(find "$trace" -name metadata -printf '"%h",' | sed 's/,$//')
streams=$(find "$trace" -name 'tracer_[0-9]*' -size +4k | wc -l)
bytes=$(du -sb "$trace" | cut -f1)

# run NAME COMMAND...: wall and CPU seconds into $tmp/NAME.wall and $tmp/NAME.cpu.
run() {
  name=$1
  shift
  rm -f "$tmp/out.pftrace"
  start=$(date +%s%N)
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
    { echo "read_speed: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  end=$(date +%s%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", (b - a) / 1e9}' >>"$tmp/$name.wall"
  awk '{printf "%.3f\n", $1 + $2; }' "$tmp/time" >>"$tmp/$name.cpu"
  awk '{printf "%.0f\n", $3 / 1024}' "$tmp/time" >>"$tmp/$name.mib"
}

# program NAME: runs one of the programs above, timed.
program() {
  case $1 in
  bt2dummy) run bt2dummy babeltrace2 --component=source.ctf.fs --params="inputs=[$inputs]" \
    --component=sink.utils.dummy ;;
  bt2text) run bt2text babeltrace2 "$trace" ;;
  tally) run tally "$tracer" -q -r "$trace" ;;
  text) run text "$tracer" -q -r "$trace" -t ;;
  timeline) run timeline "$timeline_bench" "$trace" "$tmp/out.pftrace" ;;
  all) run all "$tracer" -q -r "$trace" -l "$tmp/out.pftrace" ;;
  tally1) run tally1 "$tracer" -q --threads 1 -r "$trace" ;;
  text1) run text1 "$tracer" -q --threads 1 -r "$trace" -t ;;
  timeline1) run timeline1 env TIMELINE_THREADS=1 "$timeline_bench" "$trace" "$tmp/out.pftrace" ;;
  tally_before) run tally_before "$baseline/bin/tracer" -q -r "$trace" ;;
  text_before) run text_before "$baseline/bin/tracer" -q -r "$trace" -t ;;
  all_before) run all_before "$baseline/bin/tracer" -q -r "$trace" -l "$tmp/out.pftrace" ;;
  esac
}
programs="bt2dummy bt2text tally text timeline all tally1 text1 timeline1"
[ -z "$baseline" ] || programs="$programs tally_before text_before all_before"

# Each round runs the programs in an order of its own (shuffled, seeded by the round, so
# a run can be repeated): a short run on both cores right after a long one on a single
# core (babeltrace2's 20 s text output) was seen 60% slower than the same run back to back
# (the idle core's wake-up on this KVM guest), and a fixed order would charge that to
# whichever program follows.
r=0
while [ $r -lt "$rounds" ]; do
  for name in $(echo $programs | tr ' ' '\n' |
    awk -v seed=$((r + 1)) 'BEGIN {srand(seed)} {printf "%.9f %s\n", rand(), $0}' |
    sort -g | cut -d' ' -f2); do
    program "$name"
  done
  r=$((r + 1))
done
rm -f "$tmp/out.pftrace"

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# cell NAME: "median s (least-most), events/s, median CPU s, peak MiB"
cell() {
  [ -s "$tmp/$1.wall" ] || { echo -; return; }
  w=$(median <"$tmp/$1.wall")
  printf '%s s (%s-%s), %s, %s s CPU, %s MiB' "$w" "$(sort -g "$tmp/$1.wall" | head -1)" \
    "$(sort -g "$tmp/$1.wall" | tail -1)" \
    "$(awk -v e="$count" -v s="$w" 'BEGIN {printf "%.2fM/s", e / s / 1e6}')" \
    "$(median <"$tmp/$1.cpu")" "$(sort -g "$tmp/$1.mib" | tail -1)"
}
# ratio A B KIND: per round A's time over B's (wall or cpu): "median (least-most)"
ratio() {
  paste "$tmp/$1.$3" "$tmp/$2.$3" | awk '{print ($2 > 0) ? $1 / $2 : 0}' >"$tmp/ratio"
  printf '%.2f (%.2f-%.2f)' "$(median <"$tmp/ratio")" "$(sort -g "$tmp/ratio" | head -1)" \
    "$(sort -g "$tmp/ratio" | tail -1)"
}

echo "## Reading with both cores"
echo
echo "A trace of bench/cl_loop on 2 threads, default mode, LTTng's monotonic clock: $count"
echo "events, $streams streams, $((bytes / 1048576)) MiB. $rounds rounds, each running every"
echo "program below once, in an order of its own; medians (least-most). Command: \`bench/read_speed.sh\`;"
echo "$(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| program | wall (least-most), events/s, CPU, peak memory |"
echo "|---|---|"
echo "| babeltrace2 reading alone (dummy sink) | $(cell bt2dummy) |"
echo "| babeltrace2 text output | $(cell bt2text) |"
echo "| tracer -r DIR (tally) | $(cell tally) |"
echo "| tracer -r DIR -t | $(cell text) |"
echo "| timeline alone (bench/timeline_bench) | $(cell timeline) |"
echo "| tracer -r DIR -l (tally, gaps, timeline) | $(cell all) |"
echo "| tally, one thread | $(cell tally1) |"
echo "| -t, one thread | $(cell text1) |"
echo "| timeline alone, one thread | $(cell timeline1) |"
if [ -n "$baseline" ]; then
  echo "| tally, before | $(cell tally_before) |"
  echo "| -t, before | $(cell text_before) |"
  echo "| -r -l, before | $(cell all_before) |"
fi
echo
echo "| ratio, per round | wall | CPU | target (wall) |"
echo "|---|---|---|---|"
echo "| bt2 dummy / tally | $(ratio bt2dummy tally wall) | $(ratio bt2dummy tally cpu) | >= 15 |"
echo "| bt2 text / -t | $(ratio bt2text text wall) | $(ratio bt2text text cpu) | >= 4 |"
echo "| bt2 dummy / timeline alone | $(ratio bt2dummy timeline wall) | $(ratio bt2dummy timeline cpu) | >= 4 |"
echo "| bt2 dummy / -r -l | $(ratio bt2dummy all wall) | $(ratio bt2dummy all cpu) | - |"
echo "| -r -l / timeline alone (issue 30) | $(ratio all timeline wall) | $(ratio all timeline cpu) | <= 1.1 |"
echo "| one thread / both: tally | $(ratio tally1 tally wall) | $(ratio tally1 tally cpu) | - |"
echo "| one thread / both: -t | $(ratio text1 text wall) | $(ratio text1 text cpu) | - |"
echo "| one thread / both: timeline | $(ratio timeline1 timeline wall) | $(ratio timeline1 timeline cpu) | - |"
if [ -n "$baseline" ]; then
  echo "| before / after: tally | $(ratio tally_before tally wall) | $(ratio tally_before tally cpu) | - |"
  echo "| before / after: -t | $(ratio text_before text wall) | $(ratio text_before text cpu) | - |"
  echo "| before / after: -r -l | $(ratio all_before all wall) | $(ratio all_before all cpu) | - |"
  echo "| -r -l before / timeline alone | $(ratio all_before timeline wall) | $(ratio all_before timeline cpu) | - |"
fi
