#!/bin/sh
# make bench: what users feel, against baselines measured in the same run.
#  1. Recording overhead per call of a cheap OpenCL function (clGetPlatformIDs) in a loop
#     of 1M calls, 1 and 2 threads: untraced, interposer preloaded with tracing off, the
#     tracer's minimal, default and full modes, the floor (two raw LTTng-UST tracepoints
#     with default mode's fields, same loop, same binary), uftrace and ltrace.
#  2. Analysis speed on 10M-event traces (1 and 4 producing threads): tally, JSON and -t
#     against babeltrace2 reading alone (dummy sink) and babeltrace2's text output.
# Prints a table and writes bench/RESULTS.md. Usage: run_bench.sh [BUILD_DIR] [--quick]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
quick=${2:-}
tracer=$build/bin/tracer
loop=$build/bench/cl_loop
lib=$build/lib/libtracer_opencl.so
reps=5
calls=1000000
analysis_calls=5000000 # entry + exit: 10M events
if [ "$quick" = "--quick" ]; then reps=1; calls=200000; analysis_calls=500000; fi
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
ns_of() { sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p'; }

# One measurement of the loop under a given way of running it; echoes ns per call.
run_variant() { # variant threads calls
  v=$1 t=$2 n=$3 out=$tmp/trace-$v-$t-$$-$(date +%s%N)
  case $v in
  untraced) $as_user "$loop" --calls "$n" --threads "$t" | ns_of ;;
  off) $as_user LD_PRELOAD=$lib "$loop" --calls "$n" --threads "$t" | ns_of ;;
  minimal | default | full)
    $as_user "$tracer" -q -m "$v" -b opencl --trace-output "$out" -j -o "$out.json" -- \
      "$loop" --calls "$n" --threads "$t" | ns_of
    du -sb "$out" | cut -f1 >"$tmp/$v-$t.bytes"
    jq .discarded_events "$out.json" >"$tmp/$v-$t.discarded"
    awk '/^clock \{/ {c = 1} c && /name = / {gsub(/.*= "|";/, ""); print; exit}' \
      "$out"/ust/uid/*/64-bit/metadata >"$tmp/clock"
    rm -rf "$out" "$out.json" ;;
  minimal-monotonic)
    $as_user "$tracer" -q -m minimal --clock monotonic -b opencl --trace-output "$out" \
      -o /dev/null -- "$loop" --calls "$n" --threads "$t" | ns_of
    rm -rf "$out" ;;
  floor)
    $as_user "$tracer" -q -b none -e 'bench_floor:*' --trace-output "$out" -o /dev/null -- \
      "$loop" --calls "$n" --threads "$t" --floor | ns_of
    du -sb "$out" | cut -f1 >"$tmp/$v-$t.bytes"
    rm -rf "$out" ;;
  uftrace) $as_user uftrace record --force -d "$tmp/uftrace.data" "$loop" --calls "$n" \
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

report=$tmp/report.md
{
  echo "# Benchmark results"
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo),"
  echo "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr)."
  echo "Date: $(date -u +%Y-%m-%d). Medians of $reps runs; ratios are against baselines"
  echo "measured in the same run. Command: \`make bench\` (bench/run_bench.sh)."
  echo
  echo "## Recording overhead: clGetPlatformIDs in a loop of $calls calls"
  echo
  echo "| threads | untraced | preloaded, off | minimal | minimal, monotonic clock | default | full | floor (2 raw tracepoints) | uftrace | ltrace |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$report"

for t in 1 2; do
  # Variants take turns within each repetition, so a slow spell of this shared machine
  # weighs on all of them alike; then the median of each.
  i=0
  while [ $i -lt $reps ]; do
    for v in untraced off minimal minimal-monotonic default full floor uftrace; do
      run_variant "$v" "$t" "$calls" >>"$tmp/$v-$t.runs"
    done
    i=$((i + 1))
  done
  for v in untraced off minimal minimal-monotonic default full floor uftrace; do
    median <"$tmp/$v-$t.runs" >"$tmp/$v-$t.ns"
  done
  # ltrace costs about 0.5 ms a call: a shorter loop gives the same per-call figure.
  measure ltrace "$t" 2000 >"$tmp/ltrace-$t.ns"
  row="| $t"
  for v in untraced off minimal minimal-monotonic default full floor uftrace ltrace; do
    row="$row | $(cat "$tmp/$v-$t.ns") ns"
  done
  echo "$row |" >>"$report"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0) ? a / b : 0}'; }
diff_ns() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a - b}'; }
{
  echo
  echo "Run as $(if [ "$as_user" != env ]; then echo "nobody (started as root)"; else id -un; fi);"
  echo "trace clock: $(cat "$tmp/clock") (tracer --clock; the floor's tracepoints use it too)."
  echo
  echo "| threads | default / floor (target <= 1.15) | minimal / uftrace (target <= 1) | off - untraced (target <= 5 ns) | events discarded (default, minimal) | bytes per call: default / floor / minimal |"
  echo "|---|---|---|---|---|---|"
  for t in 1 2; do
    u=$(cat "$tmp/untraced-$t.ns") o=$(cat "$tmp/off-$t.ns") m=$(cat "$tmp/minimal-$t.ns")
    d=$(cat "$tmp/default-$t.ns") f=$(cat "$tmp/floor-$t.ns") uf=$(cat "$tmp/uftrace-$t.ns")
    n=$((calls * t))
    bd=$(awk -v b="$(cat "$tmp/default-$t.bytes")" -v n=$n 'BEGIN {printf "%.1f", b / n}')
    bf=$(awk -v b="$(cat "$tmp/floor-$t.bytes")" -v n=$n 'BEGIN {printf "%.1f", b / n}')
    bm=$(awk -v b="$(cat "$tmp/minimal-$t.bytes")" -v n=$n 'BEGIN {printf "%.1f", b / n}')
    echo "| $t | $(ratio "$d" "$f") | $(ratio "$m" "$uf") | $(diff_ns "$o" "$u") ns | $(cat "$tmp/default-$t.discarded"), $(cat "$tmp/minimal-$t.discarded") | $bd / $bf / $bm |"
  done
} >>"$report"

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
  echo "($rate_calls calls per thread), default mode (2 events per call), default buffers"
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
  for t in 1 2; do
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
  echo "Traces of clGetPlatformIDs calls in default mode (an entry and an exit event per"
  echo "call). Events per second (peak memory); each figure is the best of $reps runs."
  echo
  echo "| producers | events | babeltrace2 dummy sink | babeltrace2 text | tracer tally | tracer -j | tracer -t | tally / bt2 dummy (target >= 3) | -t / bt2 text (target >= 1.5) |"
  echo "|---|---|---|---|---|---|---|---|---|"
} >>"$report"
for producers in 1 4; do
  trace=$tmp/analysis-$producers
  $as_user "$tracer" -q -b opencl --trace-output "$trace" -o /dev/null -- \
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

cat "$report"
if [ "$quick" != "--quick" ]; then
  cp "$report" "$here/RESULTS.md"
  echo "(written to bench/RESULTS.md)"
fi
