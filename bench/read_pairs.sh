#!/bin/sh
# The ratio of issue 30 alone, steadier than bench/read_speed.sh's rounds: PAIRS pairs of
# the timeline alone (bench/timeline_bench) and `tracer -r TRACE -l` (tally, gaps and
# timeline) back to back, the pair's order alternating so that neither always runs
# second (on a shared 2-core machine a run after a long one is slower). Prints each
# pair's wall and CPU ratio, `-r -l` over the timeline alone, sorted, and their medians.
# Usage: read_pairs.sh TRACE [PAIRS] [BUILD_DIR]   (a saved trace: tracer --trace-output;
# bench/read_speed.sh makes one of cl_loop, 10M events). PAIRS defaults to 10.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: read_pairs.sh TRACE [PAIRS] [BUILD_DIR]" >&2; exit 2; }
trace=$1
pairs=${2:-10}
build=$(cd "${3:-$here/../build}" && pwd)
for tool in "$build/bin/tracer" "$build/bench/timeline_bench"; do
  [ -x "$tool" ] || { echo "read_pairs: $tool not built (make)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# timed NAME COMMAND...: "NAME wall cpu" appended to $tmp/times.
timed() {
  name=$1
  shift
  rm -f "$tmp/out.pftrace"
  start=$(date +%s%N)
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
    { echo "read_pairs: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  end=$(date +%s%N)
  awk -v n="$name" -v a="$start" -v b="$end" '{printf "%s %.3f %.3f\n", n, (b - a) / 1e9, $1 + $2}' \
    "$tmp/time" >>"$tmp/times"
}

i=1
while [ "$i" -le "$pairs" ]; do
  if [ $((i % 2)) = 0 ]; then order="timeline all"; else order="all timeline"; fi
  for p in $order; do
    case $p in
    timeline) timed timeline "$build/bench/timeline_bench" "$trace" "$tmp/out.pftrace" ;;
    all) timed all "$build/bin/tracer" -q -r "$trace" -l "$tmp/out.pftrace" -o /dev/null ;;
    esac
  done
  i=$((i + 1))
done
# Each pair's ratios, then the medians.
awk '$1 == "timeline" {tw = $2; tc = $3} $1 == "all" {aw = $2; ac = $3}
     NR % 2 == 0 {printf "%.3f %.3f\n", aw / tw, ac / tc}' "$tmp/times" >"$tmp/ratios"
median() { sort -g | awk '{v[NR] = $1} END {printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "-r -l / timeline alone, $pairs pairs ($build):"
echo "  wall: $(cut -d' ' -f1 "$tmp/ratios" | sort -g | tr '\n' ' ')-> median $(cut -d' ' -f1 "$tmp/ratios" | median)"
echo "  CPU:  $(cut -d' ' -f2 "$tmp/ratios" | sort -g | tr '\n' ' ')-> median $(cut -d' ' -f2 "$tmp/ratios" | median)"
