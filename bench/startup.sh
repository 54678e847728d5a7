#!/bin/sh
# The fixed start-up cost of `tracer -r` (issue 48): the replay of a TINY trace (bench/
# cl_loop, BENCH_TINY_CALLS calls: what is left is the tracer's own start, the dynamic
# loader's work, the backends' tables and the tally's set-up) and the tally of a large
# one (BENCH_EVENTS events, 2 threads, as read_speed.sh's), each against babeltrace2's
# dummy sink on the same trace and, with BENCH_BASELINE=BUILD_DIR, against another build
# of the tracer (the one before a change) in the same rounds. Rounds interleave the
# programs in an order of their own (shuffled, seeded by the round), so that a busy spell
# of this shared machine weighs on all of them alike. Per program: wall and CPU (user +
# system) seconds and minor page faults, medians (least-most) over the rounds; ratios
# taken within each round.
# Usage: startup.sh [BUILD_DIR]; BENCH_ROUNDS (tiny trace, default 40), BENCH_LARGE_ROUNDS
# (large trace, default 5; 0 leaves it out), BENCH_EVENTS (default 10000000),
# BENCH_TINY_CALLS (default 10), BENCH_BASELINE (a build folder).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
rounds=${BENCH_ROUNDS:-40}
large_rounds=${BENCH_LARGE_ROUNDS:-5}
events=${BENCH_EVENTS:-10000000}
tiny_calls=${BENCH_TINY_CALLS:-10}
baseline=${BENCH_BASELINE:-}
tracer=$build/bin/tracer
loop=$build/bench/cl_loop
for tool in "$tracer" "$loop"; do
  [ -x "$tool" ] || { echo "startup: $tool is missing: run make first" >&2; exit 1; }
done
[ -z "$baseline" ] || [ -x "$baseline/bin/tracer" ] ||
  { echo "startup: no tracer in BENCH_BASELINE=$baseline" >&2; exit 1; }
command -v babeltrace2 >/dev/null 2>&1 || { echo "startup: no babeltrace2" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export POCL_CACHE_DIR="$tmp/pocl"

record() { # DIR CALLS THREADS
  "$tracer" -q --clock monotonic -b opencl --trace-output "$1" -o /dev/null -- \
    "$loop" --calls "$2" --threads "$3" >/dev/null
}
record "$tmp/tiny" "$tiny_calls" 1
tiny_inputs=$(find "$tmp/tiny" -name metadata -printf '"%h",' | sed 's/,$//')
if [ "$large_rounds" -gt 0 ]; then
  record "$tmp/large" $((events / 2)) 2
  large_count=$("$tracer" -q -r "$tmp/large" -j | jq .events)
  large_inputs=$(find "$tmp/large" -name metadata -printf '"%h",' | sed 's/,$//')
fi

# run NAME COMMAND...: wall and CPU seconds and minor faults into $tmp/NAME.{wall,cpu,faults}
# (the child's rusage in microseconds, GNU time's CPU figures being in 10 ms steps; started
# with posix_spawn, so that no copy of the timing process is charged to it).
run() {
  name=$1
  shift
  python3 -c '
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ)
_, status, use = os.wait4(pid, 0)
wall = time.perf_counter() - start
print("%.5f %.5f %d" % (wall, use.ru_utime + use.ru_stime, use.ru_minflt))
sys.exit(os.waitstatus_to_exitcode(status) != 0)' "$@" >"$tmp/time" 2>"$tmp/err" </dev/null ||
    { echo "startup: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  tail -1 "$tmp/time" | awk -v t="$tmp/$name" '{print $1 >> (t ".wall"); print $2 >> (t ".cpu");
    print $3 >> (t ".faults")}'
}

program() {
  case $1 in
  tiny) run tiny "$tracer" -q -r "$tmp/tiny" ;;
  tiny_before) run tiny_before "$baseline/bin/tracer" -q -r "$tmp/tiny" ;;
  tiny_bt2) run tiny_bt2 babeltrace2 --component=source.ctf.fs --params="inputs=[$tiny_inputs]" \
    --component=sink.utils.dummy ;;
  large) run large "$tracer" -q -r "$tmp/large" ;;
  large_before) run large_before "$baseline/bin/tracer" -q -r "$tmp/large" ;;
  large_bt2) run large_bt2 babeltrace2 --component=source.ctf.fs --params="inputs=[$large_inputs]" \
    --component=sink.utils.dummy ;;
  esac
}

shuffled() { # ROUND PROGRAMS...
  seed=$1
  shift
  echo "$@" | tr ' ' '\n' | awk -v seed="$seed" 'BEGIN {srand(seed)} {printf "%.9f %s\n", rand(), $0}' |
    sort -g | cut -d' ' -f2
}
tiny_programs="tiny tiny_bt2"
large_programs="large large_bt2"
if [ -n "$baseline" ]; then
  tiny_programs="$tiny_programs tiny_before"
  large_programs="$large_programs large_before"
fi
# A first run of each: cold caches.
for name in $tiny_programs; do program "$name"; done
for name in $tiny_programs; do rm -f "$tmp/$name.wall" "$tmp/$name.cpu" "$tmp/$name.faults"; done
r=0
while [ $r -lt "$rounds" ]; do
  for name in $(shuffled $((r + 1)) $tiny_programs); do program "$name"; done
  r=$((r + 1))
done
r=0
while [ $r -lt "$large_rounds" ]; do
  for name in $(shuffled $((r + 1)) $large_programs); do program "$name"; done
  r=$((r + 1))
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
spread() { # FILE [SCALE]: "median (least-most)", times SCALE
  s=${2:-1}
  printf '%s (%s-%s)' "$(median <"$1" | awk -v s="$s" '{printf "%g", $1 * s}')" \
    "$(sort -g "$1" | head -1 | awk -v s="$s" '{printf "%g", $1 * s}')" \
    "$(sort -g "$1" | tail -1 | awk -v s="$s" '{printf "%g", $1 * s}')"
}
cell() { # NAME SCALE UNIT: wall | CPU | faults
  [ -s "$tmp/$1.wall" ] || { echo "| - | - | - |"; return; }
  echo "| $(spread "$tmp/$1.wall" "$2") $3 | $(spread "$tmp/$1.cpu" "$2") $3 | $(spread "$tmp/$1.faults") |"
}
ratio() { # A B KIND: per round A's over B's, "median (least-most)"
  paste "$tmp/$1.$3" "$tmp/$2.$3" | awk '{print ($2 > 0) ? $1 / $2 : 0}' >"$tmp/ratio"
  printf '%.2f (%.2f-%.2f)' "$(median <"$tmp/ratio")" "$(sort -g "$tmp/ratio" | head -1)" \
    "$(sort -g "$tmp/ratio" | tail -1)"
}

echo "## Start-up of \`tracer -r\`"
echo
echo "A tiny trace (bench/cl_loop, $tiny_calls calls) read $rounds times$(if [ "$large_rounds" -gt 0 ]; then echo ", and a large one ($large_count events, 2"; echo "threads, default mode) $large_rounds times"; fi); each round runs every program once, in an"
echo "order of its own; medians (least-most). Command: \`$(if [ -n "$baseline" ]; then echo "BENCH_BASELINE=... "; fi)bench/startup.sh\`;"
echo "$(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| program | wall | CPU (user + system) | minor page faults |"
echo "|---|---|---|---|"
echo "| tracer -r TINY | $(cell tiny 1000 ms | cut -c3-)"
[ -z "$baseline" ] || echo "| tracer -r TINY, before | $(cell tiny_before 1000 ms | cut -c3-)"
echo "| babeltrace2 dummy sink, TINY | $(cell tiny_bt2 1000 ms | cut -c3-)"
if [ "$large_rounds" -gt 0 ]; then
  echo "| tracer -r LARGE (tally) | $(cell large 1 s | cut -c3-)"
  [ -z "$baseline" ] || echo "| tracer -r LARGE, before | $(cell large_before 1 s | cut -c3-)"
  echo "| babeltrace2 dummy sink, LARGE | $(cell large_bt2 1 s | cut -c3-)"
fi
echo
echo "| ratio, per round | wall | CPU |"
echo "|---|---|---|"
if [ -n "$baseline" ]; then
  echo "| before / after: tracer -r TINY | $(ratio tiny_before tiny wall) | $(ratio tiny_before tiny cpu) |"
fi
echo "| bt2 dummy / tracer -r TINY | $(ratio tiny_bt2 tiny wall) | $(ratio tiny_bt2 tiny cpu) |"
if [ "$large_rounds" -gt 0 ]; then
  if [ -n "$baseline" ]; then
    echo "| before / after: tally LARGE | $(ratio large_before large wall) | $(ratio large_before large cpu) |"
    echo "| bt2 dummy / tally LARGE, before | $(ratio large_bt2 large_before wall) | $(ratio large_bt2 large_before cpu) |"
  fi
  echo "| bt2 dummy / tally LARGE (target >= 15) | $(ratio large_bt2 large wall) | $(ratio large_bt2 large cpu) |"
fi
