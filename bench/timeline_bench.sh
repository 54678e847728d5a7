#!/bin/sh
# The timeline (tracer -l) against babeltrace2 reading alone, on the same traces:
#  - events per second into the timeline (bench/timeline_bench: the trace read, the
#    calls with their arguments and the device commands written as a .pftrace, no
#    tally), and babeltrace2's source.ctf.fs -> sink.utils.dummy, interleaved, the median
#    of REPS runs each (the machine is shared); wall and CPU time; target: timeline at
#    least 2x babeltrace2;
#  - peak memory on a 1M-event and a 10M-event trace: it must not grow with length;
#  - a split run (--timeline-split): every part and the summary decode on their own
#    (tests/timeline/pftrace_dump: no slice cut or lost) and hold every slice once.
# Traces: clGetPlatformIDs in a loop (bench/cl_loop), default mode (one event per call).
# Usage: timeline_bench.sh [BUILD_DIR] [--quick]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
quick=${2:-}
tracer=$build/bin/tracer
loop=$build/bench/cl_loop
bench=$build/bench/timeline_bench
dump=$build/bin/pftrace_dump
reps=5
big=10000000 # calls: 10M events
small=1000000
split=$((32 << 20))
if [ "$quick" = "--quick" ]; then reps=1; big=500000; small=100000; split=$((4 << 20)); fi
for tool in "$tracer" "$loop" "$bench" "$dump"; do
  [ -x "$tool" ] || { echo "timeline_bench: $tool is missing: run make first" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export POCL_CACHE_DIR="$tmp/pocl"

measure() { # name command...: wall, cpu (user+sys) seconds and peak KiB into $tmp/name.*
  name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/$name.t" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || {
    echo "timeline_bench: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
  awk '{print $1, $2 + $3, $4}' "$tmp/$name.t" >"$tmp/$name.last"
}
keep_run() { # name: adds the last run to the runs kept
  cat "$tmp/$1.last" >>"$tmp/$1.runs"
}
median() { # name: the median wall, median CPU and largest peak memory of the runs kept
  for column in 1 2; do
    cut -d' ' -f$column "$tmp/$1.runs" | sort -g | awk '{v[NR] = $1} END {
      printf "%s ", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
  done
  cut -d' ' -f3 "$tmp/$1.runs" | sort -g | tail -1
}

report=$tmp/report.md
{
  echo "## Timeline (tracer -l)"
  echo
  echo "$(uname -srm), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
  echo "Median of $reps interleaved runs (wall and CPU apart). Events per second (wall),"
  echo "CPU seconds (user + system), peak memory (the largest of the runs)."
  echo
  echo "| events | babeltrace2 dummy sink | timeline (.pftrace, with arguments) | timeline / bt2, wall (target >= 2) | timeline / bt2, CPU | timeline bytes |"
  echo "|---|---|---|---|---|---|"
} >"$report"
for calls in $small $big; do
  trace=$tmp/trace-$calls
  "$tracer" -q -b opencl --trace-output "$trace" -o /dev/null -- "$loop" --calls "$calls" \
    --threads 1 >/dev/null
  events=$("$tracer" -q -r "$trace" -j | jq .events)
  inputs=$(find "$trace" -name metadata -printf '"%h",' | sed 's/,$//')
  rm -f "$tmp"/*.runs
  i=0
  while [ $i -lt $reps ]; do
    measure bt2 babeltrace2 --component=source.ctf.fs --params="inputs=[$inputs]" \
      --component=sink.utils.dummy
    keep_run bt2
    rm -f "$tmp/out.pftrace" # dropping the last run's file is no part of the timeline's work
    measure timeline "$bench" "$trace" "$tmp/out.pftrace"
    keep_run timeline
    if [ "$calls" = "$small" ]; then # the writing on a second thread, forced
      rm -f "$tmp/out.pftrace"
      measure timeline2 env TIMELINE_THREADS=2 "$bench" "$trace" "$tmp/out.pftrace"
      keep_run timeline2
    fi
    i=$((i + 1))
  done
  bytes=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' "$tmp/timeline.out")
  slices=$(sed -n 's/.*slices=\([0-9]*\).*/\1/p' "$tmp/timeline.out")
  # shellcheck disable=SC2046
  set -- $(median bt2) $(median timeline)
  bw=$1 bc=$2 bk=$3 tw=$4 tc=$5 tk=$6
  if [ "$calls" = "$small" ]; then
    set -- $(median timeline2)
    pipe_note="$1 s wall, $2 s CPU against ${tw} s, ${tc} s on one, $events events"
  fi
  awk -v e="$events" -v bw="$bw" -v bc="$bc" -v bk="$bk" -v tw="$tw" -v tc="$tc" -v tk="$tk" \
      -v bytes="$bytes" 'BEGIN {
    printf "| %d | %.2fM/s, %.2f s CPU (%.0f MiB) | %.2fM/s, %.2f s CPU (%.0f MiB) | %.2f | %.2f | %.0f MiB |\n",
      e, e / bw / 1e6, bc, bk / 1024, e / tw / 1e6, tc, tk / 1024, bw / tw, bc / tc, bytes / 1048576 }' >>"$report"
  if [ "$calls" = "$big" ]; then
    # The split run: each part on its own, then all of them together.
    "$bench" "$trace" "$tmp/split.pftrace" "$split" >"$tmp/split.out"
    parts=$(sed -n 's/.*parts=\([0-9]*\).*/\1/p' "$tmp/split.out")
    total=0
    p=1
    while [ "$p" -le "$parts" ]; do
      f=$tmp/split.pftrace
      [ "$p" -gt 1 ] && f=$tmp/split.part$p.pftrace
      n=$("$dump" "$f" | sed -n 's/^check: ok, [0-9]* tracks, \([0-9]*\) slices.*/\1/p')
      [ -n "$n" ] || { echo "timeline_bench: part $p does not decode or check" >&2; exit 1; }
      total=$((total + n))
      rm -f "$f"
      p=$((p + 1))
    done
    summary=$("$dump" "$tmp/split.summary.pftrace" | sed -n 's/^check: ok, \([0-9]*\) tracks, \([0-9]*\) slices.*/\1 tracks, \2 slices/p')
    [ -n "$summary" ] || { echo "timeline_bench: the summary does not decode" >&2; exit 1; }
    {
      echo
      echo "Split at $((split >> 20)) MiB: $parts parts, each decoded and checked on its own by"
      echo "pftrace_dump (no slice cut or overlapping), $total slices in all for $slices written"
      echo "unsplit ($( [ "$total" = "$slices" ] && echo "none lost" || echo "MISMATCH")); the summary: $summary."
    } >>"$report"
  fi
  rm -rf "$trace" "$tmp/out.pftrace"
done
if [ -x "$build/bench/pb_compare" ]; then
  {
    echo
    echo "Encoding one call's begin packet (five arguments), 5M times, into the same bytes"
    echo "(bench/pb_compare.c): $("$build/bench/pb_compare")."
  } >>"$report"
fi
{
  echo
  echo "The timeline decodes every event's arguments (babeltrace2's dummy sink decodes them"
  echo "too), encodes them as slice details and writes the file (babeltrace2 writes nothing:"
  echo "the timeline's system time is mostly that writing). With more than 2 CPUs the writing"
  echo "runs on a second thread (cli/reader/consumer_thread.c); on this 2-core machine, which"
  echo "others use too, the scheduler kept both threads on one core and the copies between"
  echo "them made the timeline no faster than one thread, for more CPU (2 threads: $pipe_note), so it runs on one."
  echo "The machine is shared and noisy: the CPU ratio is the steadier figure. Peak memory is"
  echo "the writer's fixed buffers plus the pages of the mapped trace files that the reader"
  echo "has touched, which grow a little with the trace for babeltrace2 as well; nothing the"
  echo "timeline keeps grows with the number of events (docs/timeline.md)."
} >>"$report"
cat "$report"
if [ "$quick" != "--quick" ]; then
  cp "$report" "$here/TIMELINE.md"
  echo "(written to bench/TIMELINE.md)"
fi
