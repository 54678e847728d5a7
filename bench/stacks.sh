#!/bin/sh
# What the stacks of submissions cost (docs/flame.md): bench/stacks_loop.py launches
# kernels through ctypes on HIP's null library (a launch that costs the wrapper alone),
# with the GIL released, DEPTH Python frames deep, and calls hipGetDevice (which submits
# nothing) as often; the app times each loop itself. Each round runs it untraced, traced
# with --no-stacks and traced (stacks on), in that order, at depths 40 and 3 (the least
# a script has: the module, main, the loop); the app's figure is the least of 50 loops of
# BENCH_CALLS (default 2000) calls, in the thread's CPU time (wall-clock time on a busy
# machine holds whatever ran meanwhile), each
# figure here the median of BENCH_ROUNDS (default 5) rounds, the least and most in
# brackets. The stacks' cost is, within a
# round, traced less --no-stacks: per launch, and per call that submits nothing (which
# should be none). Runs as nobody when started as root: a job with a session daemon of
# its own, as the tracer's users have.
# The `deep` case is PyTorch's shape (bench/stacks_deep.c): the launch at the bottom of 41
# native frames in four objects built -O2 without frame pointers (unwind tables only),
# called through ctypes 40 Python frames deep, in a process that loaded BENCH_OBJECTS
# (default 300) other objects (copies of bench's libstacks_filler.so); and the same
# launches from a thread that never ran Python (the walk then goes to the thread's first
# frame, up to the depth limit).
# Usage: stacks.sh [BUILD_DIR]
# Prints a markdown section (bench/RESULTS.md's "Stacks").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
rounds=${BENCH_ROUNDS:-5}
calls=${BENCH_CALLS:-2000}
objects=${BENCH_OBJECTS:-300}
tracer=$build/bin/tracer
hip=$build/null/hip/libamdhip64.so.5
deep=$build/bench/libstacks_deep0.so
for tool in "$tracer" "$hip" "$deep" "$build/bench/libstacks_filler.so"; do
  [ -e "$tool" ] || { echo "stacks: $tool is missing: run make first" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stacks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
as_user=env
if [ "$(id -u)" = 0 ]; then
  as_user="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$tmp/home TMPDIR=$tmp/home"
  mkdir "$tmp/home" "$tmp/traces"
  chown 65534:65534 "$tmp/home" "$tmp/traces"
fi
mkdir -p "$tmp/traces" "$tmp/objects"
python=/usr/bin/python3
for i in $(seq -w "$objects"); do
  cp "$build/bench/libstacks_filler.so" "$tmp/objects/libstacks_filler$i.so"
done

# run VARIANT CASE: one run, its "launch_ns=... other_ns=..." line. CASE: a depth of
# Python frames (launches through ctypes), or `deep`.
run() {
  out=$tmp/traces/$1-$2-$(date +%s%N)
  set -- "$1" "$2" "$python" "$here/stacks_loop.py" "$hip" "$calls" "$2" 50
  [ "$2" = deep ] && set -- "$1" "$2" "$3" "$4" "$5" "$6" 40 50 "$deep" "$tmp/objects"
  variant=$1
  shift 2
  case $variant in
  untraced) $as_user "$@" ;;
  nostacks) $as_user "$tracer" -q -b hip --no-stacks --trace-output "$out" -o /dev/null -- "$@" ;;
  stacks) $as_user "$tracer" -q -b hip --trace-output "$out" -o /dev/null -- "$@" ;;
  esac
  rm -rf "$out"
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
spread() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f-%.0f", lo, hi}'; }

cases=${BENCH_CASES:-40 3 deep}
for round in $(seq "$rounds"); do
  for depth in $cases; do
    for v in untraced nostacks stacks; do
      run "$v" "$depth" >"$tmp/$v-$depth-$round.out"
    done
    whats="launch other"
    [ "$depth" = deep ] && whats="launch other thread"
    for what in $whats; do
      s=$(field "${what}_ns" <"$tmp/stacks-$depth-$round.out")
      n=$(field "${what}_ns" <"$tmp/nostacks-$depth-$round.out")
      u=$(field "${what}_ns" <"$tmp/untraced-$depth-$round.out")
      echo "$u" >>"$tmp/untraced-$what-$depth"
      echo "$n" >>"$tmp/nostacks-$what-$depth"
      echo "$s" >>"$tmp/stacks-$what-$depth"
      awk -v s="$s" -v n="$n" 'BEGIN {print s - n}' >>"$tmp/cost-$what-$depth"
    done
  done
  echo "stacks: round $round of $rounds done" >&2
done

cell() { printf '%.0f [%s]' "$(median <"$1")" "$(spread <"$1")"; }
echo "## Stacks"
echo
echo "bench/stacks.sh on $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
echo "the least of 50 loops of $calls calls, $rounds rounds (median [least-most]), Python $($python -c 'import sys; print(sys.version.split()[0])'),"
echo "ctypes on HIP's null library, the GIL released. ns of the thread's CPU time per call, as the app timed it;"
echo "deep: the launch under 41 native frames in 4 objects (-O2, no frame pointers), $objects more objects loaded."
echo
echo "| stack | call | untraced | traced, --no-stacks | traced, stacks | stacks' cost (traced - --no-stacks) |"
echo "|---|---|---|---|---|---|"
for depth in $cases; do
  whats="launch other"
  [ "$depth" = deep ] && whats="launch other thread"
  for what in $whats; do
    name=hipLaunchKernel
    [ "$what" = other ] && name="hipGetDevice (submits nothing)"
    stack="$depth Python frames, ctypes"
    [ "$depth" = deep ] && stack="40 Python frames, ctypes, 41 native frames"
    [ "$what" = thread ] && stack="no Python (a thread of its own), 41 native frames"
    echo "| $stack | $name | $(cell "$tmp/untraced-$what-$depth") | $(cell "$tmp/nostacks-$what-$depth") | $(cell "$tmp/stacks-$what-$depth") | $(cell "$tmp/cost-$what-$depth") |"
  done
done
