#!/bin/sh
# make bench: what users feel, against baselines measured in the same run.
#  1. Recording overhead per call of a cheap OpenCL function (clGetPlatformIDs) in a loop
#     of 1M calls, 1 and 2 threads: untraced, interposer preloaded with tracing off, the
#     tracer's minimal, default and full modes, three floors (raw LTTng-UST tracepoints
#     in the same loop of the same binary: two events of 3 and 2 integer fields; one
#     event after the call with start, end and status; two events with what default
#     mode recorded before one event per call), on the tracer's clock and on LTTng's
#     monotonic clock, uftrace and ltrace. Also: the tally's reported time for the call
#     against its untraced cost, and the report's cost estimate against the measured
#     difference between traced and untraced runs.
#  2. Analysis speed on 10M-event traces (1 and 4 producing threads): tally, JSON and -t
#     against babeltrace2 reading alone (dummy sink) and babeltrace2's text output.
#  3. Several reports from one read: `tracer -r DIR -l` (tally, gaps, timeline) against
#     the timeline alone, on a 10M-event trace with device commands.
#  4. fixed: a traced run's fixed cost by phase against LTTng's floor (fixed_cost.sh).
#  5. read: the tally, -t and the timeline against babeltrace2 on a 2-thread trace, on
#     both cores and on one (read_speed.sh).
#  6. scaling: the tally's and the timeline's time and memory on 1M, 10M and 100M events
#     (scaling.sh).
#  7. polls: MPI_Test calls that find nothing, and hpcc's RandomAccess, traced against
#     untraced (polls.sh).
#  8. exports: the exports that read the trace's events: `tracer -r DIR --otf2 X`,
#     `--flame F` and both, against `tracer -r DIR` alone, on the same kind of trace.
# BENCH_BASELINE=BUILD_DIR: another build (before a change) measured in the same rounds
# by fixed and read.
# Prints a table and writes bench/RESULTS.md. Usage: run_bench.sh [BUILD_DIR] [--quick]
# BENCH_SECTIONS="overhead rate analysis once fixed read scaling polls exports" (the
# default) picks the parts to run; BENCH_REPS
# the repetitions (default 5), BENCH_CALLS the loop's calls (default 1000000),
# BENCH_THREADS the thread counts (default "1 2"); BENCH_RESULTS the file to write
# (default bench/RESULTS.md); BENCH_UFTRACE_OPTS extra uftrace options (a carried
# uftrace needs --libmcount-path).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
quick=${2:-}
tracer=$build/bin/tracer
loop=$build/bench/cl_loop
lib=$build/lib/libtracer_opencl.so
reps=${BENCH_REPS:-5}
sections=${BENCH_SECTIONS:-overhead rate analysis once fixed read scaling polls exports}
results=${BENCH_RESULTS:-$here/RESULTS.md}
calls=${BENCH_CALLS:-1000000}
thread_counts=${BENCH_THREADS:-1 2}
analysis_calls=10000000 # one event per call: 10M events
if [ "$quick" = "--quick" ]; then reps=1; calls=200000; analysis_calls=1000000; fi
for tool in "$tracer" "$loop" "$lib"; do
  [ -e "$tool" ] || { echo "run_bench: $tool is missing: run make first" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export POCL_CACHE_DIR="$tmp/pocl"
# Measured as the tracer's users run it: as an unprivileged user, whose job gets a session
# daemon of its own (and the TSC clock where the kernel keeps time with it). Started as
# root, the runs are made as nobody: a root job shares the machine's daemon and keeps the
# monotonic clock, which the "minimal, monotonic clock" column shows the cost of.
as_user=env
if [ "$(id -u)" = 0 ]; then
  as_user="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$tmp/home"
  mkdir "$tmp/home"
  chown 65534:65534 "$tmp" "$tmp/home"
  chmod 755 "$tmp"
fi

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }
ns_of() { sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p'; }

# One measurement of the loop under a given way of running it; echoes ns per call.
# Variants ending in -mono run on LTTng's monotonic clock (tracer --clock monotonic).
run_variant() { # variant threads calls
  v=$1 t=$2 n=$3 out=$tmp/trace-$v-$t-$$-$(date +%s%N)
  clock=
  case $v in *-mono) clock="--clock monotonic" ;; esac
  case $v in
  untraced) $as_user "$loop" --calls "$n" --threads "$t" | ns_of ;;
  off) $as_user LD_PRELOAD=$lib "$loop" --calls "$n" --threads "$t" | ns_of ;;
  minimal* | default* | full*)
    mode=${v%-mono}
    # shellcheck disable=SC2086
    $as_user "$tracer" -q -m "$mode" $clock -b opencl --trace-output "$out" -j \
      -o "$out.json" -- "$loop" --calls "$n" --threads "$t" | ns_of
    du -sb "$out" | cut -f1 >>"$tmp/$v-$t.bytes"
    jq .discarded_events "$out.json" >"$tmp/$v-$t.discarded"
    # The tally's time per call, less the call that initialises the platform; the
    # report's estimate of what tracing cost, per call.
    jq -r --argjson n "$((n * t))" '(.backends[] | select(.name == "opencl") | .host[] |
           select(.name == "clGetPlatformIDs") | (.time_ns - .max_ns) / (.calls - 1)),
           ((.tracing_cost.ns // 0) / $n)' "$out.json" | paste -sd' ' >>"$tmp/$v-$t.tally"
    awk '/^clock \{/ {c = 1} c && /name = / {gsub(/.*= "|";/, ""); print; exit}' \
      "$out"/ust/uid/*/64-bit/metadata >"$tmp/clock${clock:+-mono}"
    rm -rf "$out" "$out.json" ;;
  floor-*)
    kind=${v#floor-}
    kind=${kind%-mono}
    # shellcheck disable=SC2086
    $as_user "$tracer" -q $clock -b none --events 'bench_floor:*' --trace-output "$out" -o /dev/null \
      -- "$loop" --calls "$n" --threads "$t" --floor "$kind" | ns_of
    du -sb "$out" | cut -f1 >>"$tmp/$v-$t.bytes"
    rm -rf "$out" ;;
  uftrace) # shellcheck disable=SC2086
           $as_user uftrace record ${BENCH_UFTRACE_OPTS:-} --force -d "$tmp/uftrace.data" "$loop" --calls "$n" \
             --threads "$t" 2>/dev/null | ns_of
           rm -rf "$tmp/uftrace.data" ;;
  ltrace) # ltrace -f sometimes loses the output of a threaded program: try again.
    for try in 1 2 3 4 5; do
      ns=$($as_user ltrace -f -o /dev/null -e clGetPlatformIDs "$loop" --calls "$n" \
             --threads "$t" 2>/dev/null | ns_of)
      [ -n "$ns" ] && break
    done
    echo "$ns" ;;
  esac
}

measure() { # variant threads calls -> median over reps
  i=0
  while [ $i -lt $reps ]; do run_variant "$@"; i=$((i + 1)); done | median
}

variants="untraced off minimal default full floor-two floor-one floor-old minimal-mono default-mono floor-two-mono floor-one-mono"
command -v uftrace >/dev/null 2>&1 && variants="$variants uftrace"
report=$tmp/report.md
has_section() { case " $sections " in *" $1 "*) return 0 ;; esac; return 1; }
{
  echo "# Benchmark results"
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo),"
  echo "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr)."
  echo "Date: $(date -u +%Y-%m-%d). Medians of $reps runs; ratios are against baselines"
  echo "measured in the same run. Command: \`make bench\` (bench/run_bench.sh)."
} >"$report"
if has_section overhead; then
{
  echo
  echo "## Recording overhead: clGetPlatformIDs in a loop of $calls calls"
  echo
  echo "Floors: raw LTTng-UST tracepoints in the same loop: *two* = two events of 3 and 2"
  echo "integer fields around the call; *one* = one event after it with start, end (two clock"
  echo "reads) and status; *old* = two events with what default mode recorded before it"
  echo "wrote one event per call. \"mono\": on LTTng's monotonic clock (\`--clock monotonic\`)."
  echo
  echo "| threads | untraced | off | minimal | default | full | floor two | floor one | floor old | minimal mono | default mono | floor two mono | floor one mono | uftrace | ltrace |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >>"$report"

med() { median <"$tmp/$1-$2.runs"; }
for t in $thread_counts; do
  # Variants take turns within each repetition, so a slow spell of this shared machine
  # weighs on all of them alike; then the median of each.
  i=0
  while [ $i -lt $reps ]; do
    for v in $variants; do
      run_variant "$v" "$t" "$calls" >>"$tmp/$v-$t.runs"
    done
    i=$((i + 1))
  done
  # ltrace costs about 0.5 ms a call: a shorter loop gives the same per-call figure.
  command -v ltrace >/dev/null 2>&1 && measure ltrace "$t" 2000 >"$tmp/ltrace-$t.runs"
  row="| $t"
  for v in untraced off minimal default full floor-two floor-one floor-old minimal-mono \
           default-mono floor-two-mono floor-one-mono uftrace ltrace; do
    if [ -s "$tmp/$v-$t.runs" ]; then row="$row | $(med "$v" "$t") ns"; else row="$row | -"; fi
  done
  echo "$row |" >>"$report"
done

diff_ns() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a - b}'; }
bytes_per_call() { median <"$tmp/$1-$2.bytes" | awk -v n="$3" '{printf "%.1f", $1 / n}'; }
column_median() { awk -v c="$1" '{print $c}' | median; }
{
  echo
  echo "Run as $(if [ "$as_user" != env ]; then echo "nobody (started as root)"; else id -un; fi);"
  echo "the tracer's clock here: $(cat "$tmp/clock"); the floors read start and end on it."
  echo
  echo "| threads | clock | default / floor two (target <= 0.8) | default / floor one (target <= 1.15) | minimal / floor one (target <= 0.85) | minimal / uftrace (aim <= 1) | off - untraced (target <= 2 ns) |"
  echo "|---|---|---|---|---|---|---|"
  for t in $thread_counts; do
    u=$(med untraced "$t") o=$(med off "$t")
    uf=$( [ -s "$tmp/uftrace-$t.runs" ] && med uftrace "$t" || echo 0)
    for c in "" -mono; do
      d=$(med "default$c" "$t") m=$(med "minimal$c" "$t")
      f2=$(med "floor-two$c" "$t") f1=$(med "floor-one$c" "$t")
      name=$(if [ -z "$c" ]; then cat "$tmp/clock"; else cat "$tmp/clock-mono"; fi)
      echo "| $t | $name | $(ratio "$d" "$f2") | $(ratio "$d" "$f1") | $(ratio "$m" "$f1") | $(if [ -z "$c" ]; then ratio "$m" "$uf"; else echo -; fi) | $(if [ -z "$c" ]; then diff_ns "$o" "$u"; else echo -; fi) |"
    done
  done
  echo
  echo "Bytes per call on disk (the whole trace folder over the calls), and what full mode's"
  echo "extra bytes cost. Before one event per call (2026-11-22, bench/RESULTS.md of then):"
  echo "default 72.4, minimal 30.1 bytes per call, 1 thread."
  echo
  echo "| threads | minimal | default | full | floor two | floor one | floor old | full - default, per extra byte |"
  echo "|---|---|---|---|---|---|---|---|"
  for t in $thread_counts; do
    n=$((calls * t))
    bd=$(bytes_per_call default "$t" "$n") bfu=$(bytes_per_call full "$t" "$n")
    per_byte=$(awk -v a="$(med full "$t")" -v b="$(med default "$t")" -v x="$bfu" -v y="$bd" \
      'BEGIN {printf "%.2f ns", (x > y) ? (a - b) / (x - y) : 0}')
    echo "| $t | $(bytes_per_call minimal "$t" "$n") | $bd | $bfu | $(bytes_per_call floor-two "$t" "$n") | $(bytes_per_call floor-one "$t" "$n") | $(bytes_per_call floor-old "$t" "$n") | $per_byte |"
  done
  echo
  echo "The tally's time for clGetPlatformIDs (its average less the first call, which"
  echo "initialises the platform) against the loop's untraced cost per call (target: within"
  echo "10 ns on the TSC clock, 30 ns on the monotonic clock); and the report's \"Cost of"
  echo "tracing\" per call against the measured one, traced minus untraced (target: within 25%)."
  echo
  echo "| threads | mode | untraced | tally's time | difference | estimated cost | measured cost | estimate / measured |"
  echo "|---|---|---|---|---|---|---|---|"
  for t in $thread_counts; do
    u=$(med untraced "$t")
    for v in minimal default full minimal-mono default-mono; do
      reported=$(column_median 1 <"$tmp/$v-$t.tally")
      estimate=$(column_median 2 <"$tmp/$v-$t.tally")
      measured=$(diff_ns "$(med "$v" "$t")" "$u")
      echo "| $t | $v | $u ns | $(printf %.1f "$reported") ns | $(diff_ns "$reported" "$u") ns | $(printf %.1f "$estimate") ns | $measured ns | $(ratio "$estimate" "$measured") |"
    done
  done
} >>"$report"

fi # overhead

if has_section rate; then
# ---- No loss at a sustained 1M calls per second per thread ----
# LTTng's consumer waits for each sub-buffer to reach the disk (sync_file_range), so a
# storage stall longer than the buffers last (32 MiB per CPU: ~450 ms at 2M events/s)
# loses events: the same runs with the trace in memory (/dev/shm) tell the storage's share.
rate_runs=3
rate_calls=5000000
[ "$quick" = "--quick" ] && rate_runs=1 && rate_calls=500000
{
  echo
  echo "Sustained rate: clGetPlatformIDs paced at 1M calls per second per thread"
  echo "($rate_calls calls per thread), default mode (one event per call), default buffers"
  echo "($("$tracer" --help | sed -n 's/.*; here \([0-9]*\)).*/\1/p') x 2 MiB per CPU here), $rate_runs runs each; the trace on this machine's"
  echo "disk, then in memory (/dev/shm)."
  echo
  echo "| trace on | threads | calls per run | runs without loss | events recorded | events discarded |"
  echo "|---|---|---|---|---|---|"
} >>"$report"
shm=
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  shm=$(mktemp -d /dev/shm/tracer-bench.XXXXXX)
  chmod 755 "$shm"
  [ "$as_user" != env ] && chown 65534:65534 "$shm"
  trap 'rm -rf "$tmp" "$shm"' EXIT
fi
for storage in disk memory; do
  case $storage in disk) dir=$tmp ;; memory) dir=$shm ;; esac
  [ -n "$dir" ] || continue
  for t in $thread_counts; do
    clean=0 recorded=0 discarded=0 i=0
    while [ $i -lt $rate_runs ]; do
      out=$dir/rate-$t-$i
      $as_user "$tracer" -q -b opencl --trace-output "$out" -j -o "$tmp/rate.json" -- \
        "$loop" --calls "$rate_calls" --threads "$t" --rate 1000000 >/dev/null
      d=$(jq .discarded_events "$tmp/rate.json")
      [ "$d" = 0 ] && clean=$((clean + 1))
      recorded=$((recorded + $(jq .events "$tmp/rate.json")))
      discarded=$((discarded + d))
      rm -rf "$out" "$tmp/rate.json"
      i=$((i + 1))
    done
    echo "| $storage | $t | $((rate_calls * t)) | $clean of $rate_runs | $recorded | $discarded |" >>"$report"
  done
done

fi # rate

if has_section analysis; then
# ---- Analysis speed ----
peak_rss_mib() { awk '{printf "%.0f", $1 / 1024}' "$1"; }
timed() { # name outfile command... : wall seconds into $tmp/name.s, peak RSS into $tmp/name.kb
  name=$1
  shift
  start=$(date +%s.%N)
  /usr/bin/time -f %M -o "$tmp/$name.kb" "$@" >/dev/null 2>"$tmp/$name.err" || {
    echo "run_bench: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}' >"$tmp/$name.s"
}
best_of() { # name command... : the fastest of reps runs
  name=$1
  shift
  best=
  i=0
  while [ $i -lt $reps ]; do
    timed "$name" "$@"
    s=$(cat "$tmp/$name.s")
    if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN {exit !(a < b)}'; then
      best=$s; cp "$tmp/$name.kb" "$tmp/$name.best.kb"
    fi
    i=$((i + 1))
  done
  echo "$best" >"$tmp/$name.s"
}

{
  echo
  echo "## Analysis speed"
  echo
  echo "Traces of clGetPlatformIDs calls in default mode (one event per call). Events per"
  echo "second (peak memory); each figure is the best of $reps runs."
  echo
  echo "| producers | events | babeltrace2 dummy sink | babeltrace2 text | tracer tally | tracer -j | tracer -t | tally / bt2 dummy (target >= 3) | -t / bt2 text (target >= 1.5) |"
  echo "|---|---|---|---|---|---|---|---|---|"
} >>"$report"
for producers in 1 4; do
  trace=$tmp/analysis-$producers
  # LTTng's monotonic clock: babeltrace2's muxer was seen to refuse the tracer's TSC
  # clock traces.
  $as_user "$tracer" -q --clock monotonic -b opencl --trace-output "$trace" -o /dev/null -- \
    "$loop" --calls $((analysis_calls / producers)) --threads "$producers" >/dev/null
  events=$("$tracer" -q -r "$trace" -j | jq .events)
  inputs=$(find "$trace" -name metadata -printf '"%h",' | sed 's/,$//')
  best_of bt2dummy babeltrace2 --component=source.ctf.fs --params="inputs=[$inputs]" \
    --component=sink.utils.dummy
  best_of bt2text babeltrace2 "$trace"
  best_of tally "$tracer" -q -r "$trace"
  best_of json "$tracer" -q -r "$trace" -j
  best_of text "$tracer" -q -r "$trace" -t
  cell() { awk -v e="$events" -v s="$(cat "$tmp/$1.s")" -v k="$(cat "$tmp/$1.best.kb")" \
             'BEGIN {printf "%.2fM/s (%.0f MiB)", e / s / 1e6, k / 1024}'; }
  speed() { awk -v a="$(cat "$tmp/$1.s")" -v b="$(cat "$tmp/$2.s")" 'BEGIN {printf "%.2f", b / a}'; }
  echo "| $producers | $events | $(cell bt2dummy) | $(cell bt2text) | $(cell tally) | $(cell json) | $(cell text) | $(speed tally bt2dummy) | $(speed text bt2text) |" >>"$report"
  rm -rf "$trace"
done

fi # analysis

if has_section once; then
# ---- Several reports, one read of the trace ----
# `tracer -r DIR -l` prints the tally and the device-use/gap report and writes the
# timeline; it reads the trace once, so it should cost little more than the timeline
# alone (bench/timeline_bench: the trace read and the timeline written, nothing else).
# The trace has device commands (a 4 KiB copy after every 1000 calls), so that the gap
# report has work to do. Interleaved runs, the median of each.
once_bench=$build/bench/timeline_bench
[ -x "$once_bench" ] || { echo "run_bench: $once_bench is missing: run make first" >&2; exit 1; }
trace=$tmp/once
$as_user "$tracer" -q -b opencl --trace-output "$trace" -o /dev/null -- \
  "$loop" --calls "$analysis_calls" --copy-every 1000 >/dev/null
events=$("$tracer" -q -r "$trace" -j | jq .events)
wall() { # name command...: wall seconds appended to $tmp/name.runs
  name=$1
  shift
  start=$(date +%s.%N)
  "$@" >/dev/null 2>"$tmp/$name.err" || {
    echo "run_bench: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b - a}' >>"$tmp/$name.runs"
}
rm -f "$tmp/alone.runs" "$tmp/all.runs"
i=0
while [ $i -lt "$reps" ]; do
  rm -f "$tmp/once.pftrace"
  wall alone "$once_bench" "$trace" "$tmp/once.pftrace"
  rm -f "$tmp/once.pftrace"
  wall all "$tracer" -q -r "$trace" -l "$tmp/once.pftrace" -o "$tmp/once.txt"
  i=$((i + 1))
done
grep -q '^Device use' "$tmp/once.txt" || { echo "run_bench: no gap report in tracer -r -l" >&2; exit 1; }
alone=$(median <"$tmp/alone.runs") all=$(median <"$tmp/all.runs")
{
  echo
  echo "## Several reports from one read of the trace"
  echo
  echo "A trace of clGetPlatformIDs calls with a 4 KiB copy to the device after every 1000"
  echo "($events events, default mode). Wall seconds, median of $reps interleaved runs."
  echo
  echo "| timeline alone (bench/timeline_bench) | \`tracer -r DIR -l\`: tally, device use and gaps, timeline | ratio (target <= 1.1) |"
  echo "|---|---|---|"
  echo "| $alone s | $all s | $(ratio "$all" "$alone") |"
} >>"$report"
rm -rf "$trace"

fi # once

if has_section fixed; then
  echo >>"$report"
  if [ "$quick" = "--quick" ]; then BENCH_ROUNDS=2; else BENCH_ROUNDS=${BENCH_ROUNDS:-9}; fi
  BENCH_ROUNDS=$BENCH_ROUNDS sh "$here/fixed_cost.sh" "$build" >>"$report"
fi
if has_section read; then
  echo >>"$report"
  if [ "$quick" = "--quick" ]; then
    BENCH_EVENTS=1000000 BENCH_ROUNDS=1 sh "$here/read_speed.sh" "$build" >>"$report"
  else
    sh "$here/read_speed.sh" "$build" >>"$report"
  fi
fi
if has_section scaling; then
  echo >>"$report"
  if [ "$quick" = "--quick" ]; then
    BENCH_SIZES=1000000 BENCH_ROUNDS=1 sh "$here/scaling.sh" "$build" >>"$report"
  else
    sh "$here/scaling.sh" "$build" >>"$report"
  fi
fi
if has_section polls; then
  echo >>"$report"
  if [ "$quick" = "--quick" ]; then
    BENCH_ROUNDS=1 BENCH_HPCC=0 sh "$here/polls.sh" "$build" >>"$report"
  else
    sh "$here/polls.sh" "$build" >>"$report"
  fi
fi
if has_section exports; then
# ---- The exports that read the events: OTF2 and folded stacks ----
# Each is a consumer of the one read (it needs time order, as the gap report does). The
# wall time of a loaded 2-core machine varies with the other jobs; the CPU time (user +
# sys) of the same runs is steadier, so both are given. Interleaved runs, medians.
trace=$tmp/exports
$as_user "$tracer" -q -b opencl --trace-output "$trace" -o /dev/null -- \
  "$loop" --calls "$analysis_calls" --copy-every 1000 >/dev/null
events=$("$tracer" -q -r "$trace" -j | jq .events)
cpu_and_wall() { # name command...: "wall cpu" seconds appended to $tmp/name.runs
  name=$1
  shift
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$tmp/$name.cpu" "$@" >/dev/null 2>"$tmp/$name.err" || {
    echo "run_bench: $name failed:" >&2; cat "$tmp/$name.err" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" '{printf "%.3f %.3f\n", b - a, $1 + $2}' "$tmp/$name.cpu" \
    >>"$tmp/$name.runs"
}
for k in plain otf2 flame both; do rm -f "$tmp/$k.runs"; done
i=0
while [ $i -lt "$reps" ]; do
  rm -rf "$tmp/x.otf2"
  cpu_and_wall plain "$tracer" -q -r "$trace" -o /dev/null
  cpu_and_wall otf2 "$tracer" -q -r "$trace" -o /dev/null --otf2 "$tmp/x.otf2"
  cpu_and_wall flame "$tracer" -q -r "$trace" -o /dev/null --flame "$tmp/x.folded"
  cpu_and_wall both "$tracer" -q -r "$trace" -o /dev/null --otf2 "$tmp/x.otf2" \
    --flame "$tmp/x.folded"
  i=$((i + 1))
done
archive_mib=$(du -sm "$tmp/x.otf2" | cut -f1)
wall_of() { awk '{print $1}' "$tmp/$1.runs" | median; }
cpu_of() { awk '{print $2}' "$tmp/$1.runs" | median; }
{
  echo
  echo "## The exports that read the events (OTF2, folded stacks)"
  echo
  echo "The same kind of trace as above ($events events, a copy after every 1000 calls);"
  echo "\`tracer -r DIR\` alone (tally and gap report) against the same with the exports."
  echo "Seconds, median of $reps interleaved runs: wall, and CPU (user + sys). The OTF2"
  echo "archive holds ${archive_mib} MiB."
  echo
  echo "| run | wall | CPU | wall / -r alone | CPU / -r alone |"
  echo "|---|---|---|---|---|"
  for k in plain otf2 flame both; do
    case $k in
    plain) label="\`-r DIR\`" ;;
    otf2) label="\`-r DIR --otf2 X\`" ;;
    flame) label="\`-r DIR --flame F\`" ;;
    both) label="\`-r DIR --otf2 X --flame F\`" ;;
    esac
    echo "| $label | $(wall_of $k) s | $(cpu_of $k) s | $(ratio "$(wall_of $k)" "$(wall_of plain)") | $(ratio "$(cpu_of $k)" "$(cpu_of plain)") |"
  done
} >>"$report"
rm -rf "$trace" "$tmp/x.otf2"

fi # exports

# Sections measured on other machines (the GPU machine's: bench/gpu/) are kept as they are.
if [ "$quick" != "--quick" ] && [ -f "$results" ]; then
  sed -n '/^## Measured on the GPU machine/,$p' "$results" >>"$report"
fi
cat "$report"
if [ "$quick" != "--quick" ]; then
  cp "$report" "$results"
  echo "(written to $results)"
fi
