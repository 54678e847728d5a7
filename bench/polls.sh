#!/bin/sh
# Polls at the cost of counting (trace.polls, docs/spec-format.md): what an MPI_Test that
# finds nothing costs traced, against untraced, in the same rounds. Two programs, 2 ranks
# under Open MPI's mpirun:
#   poll_loop   bench/poll_loop.c: BENCH_POLLS (default 1000000) MPI_Test calls that find
#               nothing, then as many MPI_Testany calls of one request (hpcc's), ns per
#               call as rank 0 times each loop
#   hpcc        Debian's HPC Challenge, its example input on a 1x2 grid (as
#               tests/realapps/hpcc_test.sh runs it): MPIRandomAccess_GUPs from its
#               results file, higher is better (BENCH_HPCC=0 leaves it out)
# each untraced, traced in default mode, in minimal mode (-m minimal), and in default
# mode with --every-call (every poll an event: how polls were traced before they were
# folded). Rounds interleave the variants; each figure is the median of BENCH_ROUNDS
# (default 3) rounds, the least and most in brackets; ratios are taken within a round.
# BENCH_BASELINE=DIR adds the tracer of another build (DIR/bin/tracer, e.g. the code before
# a change) in default mode to each round, as a column of its own.
# Usage: polls.sh [BUILD_DIR]. Prints a markdown section (bench/RESULTS.md's "Polls").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
rounds=${BENCH_ROUNDS:-3}
polls=${BENCH_POLLS:-1000000}
hpcc=${BENCH_HPCC:-1}
tracer=$build/bin/tracer
loop=$build/bench/poll_loop
for tool in "$tracer" "$loop"; do
  [ -x "$tool" ] || { echo "polls: $tool is missing: run make first" >&2; exit 1; }
done
command -v mpirun.openmpi >/dev/null 2>&1 || { echo "polls: no mpirun.openmpi" >&2; exit 1; }
input=/usr/share/doc/hpcc/examples/_hpccinf.txt
if [ "$hpcc" = 1 ] && ! { command -v hpcc >/dev/null 2>&1 && [ -f "$input" ]; }; then
  echo "polls: no hpcc or $input (Debian's hpcc): hpcc left out" >&2
  hpcc=0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/polls.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACER_JOB_TIMEOUT=600
mpirun="mpirun.openmpi --oversubscribe -n 2"

# traced VARIANT: the tracer's command line for a variant, empty for untraced.
traced() {
  case $1 in
  untraced) echo "" ;;
  default) echo "$tracer -q -o $tmp/report.txt" ;;
  minimal) echo "$tracer -q -o $tmp/report.txt -m minimal" ;;
  every) echo "$tracer -q -o $tmp/report.txt --every-call" ;;
  baseline) echo "$baseline -q -o $tmp/report.txt" ;;
  esac
}
variants="untraced default minimal every"
traced_variants="default minimal every"
if [ -n "${BENCH_BASELINE:-}" ]; then
  baseline=$(cd "$BENCH_BASELINE" && pwd)/bin/tracer
  [ -x "$baseline" ] || { echo "polls: $baseline is missing" >&2; exit 1; }
  variants="$variants baseline"
  traced_variants="$traced_variants baseline"
fi

mkdir "$tmp/hpcc"
sed 's/^2\( *\)Ps$/1\1Ps/' "$input" >"$tmp/hpcc/hpccinf.txt" 2>/dev/null || true
for round in $(seq "$rounds"); do
  for v in $variants; do
    # shellcheck disable=SC2046
    $mpirun $(traced $v) "$loop" "$polls" >"$tmp/out" 2>"$tmp/err" ||
      { echo "polls: poll_loop ($v) failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    awk '/^ns_per_test / {print $2}' "$tmp/out" >>"$tmp/loop-$v"
    awk '/^ns_per_test / {print $3}' "$tmp/out" >>"$tmp/loopcpu-$v"
    awk '/^ns_per_testany/ {print $3}' "$tmp/out" >>"$tmp/anycpu-$v"
    if [ "$hpcc" = 1 ]; then
      rm -f "$tmp/hpcc/hpccoutf.txt"
      # shellcheck disable=SC2046
      (cd "$tmp/hpcc" && $mpirun $(traced $v) hpcc >"$tmp/out" 2>"$tmp/err") ||
        { echo "polls: hpcc ($v) failed:" >&2; cat "$tmp/err" >&2; exit 1; }
      sed -n 's/^MPIRandomAccess_GUPs=//p' "$tmp/hpcc/hpccoutf.txt" >>"$tmp/gups-$v"
    fi
  done
  echo "polls: round $round of $rounds done" >&2
done

# stats FILE: median [least-most]
stats() {
  sort -g "$1" | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                                        printf "%.4g [%.4g-%.4g]", m, v[1], v[NR]}'
}
# ratios A B OUT: per round, A's value over B's
ratios() { paste "$1" "$2" | awk '{printf "%.3f\n", $1 / $2}' >"$3"; }

echo "## Polls: MPI_Test that finds nothing (bench/polls.sh)"
echo
echo "2 ranks under Open MPI's mpirun; median of $rounds interleaved rounds [least-most]."
echo "poll_loop's CPU time is its thread's (CLOCK_THREAD_CPUTIME_ID), the wall MPI_Wtime's;"
echo "$(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
# row NAME KIND: a table row over the variants, then each traced variant over untraced.
row() {
  line="| $1"
  for v in $variants; do line="$line | $(stats "$tmp/$2-$v")"; done
  for v in $traced_variants; do
    ratios "$tmp/$2-$v" "$tmp/$2-untraced" "$tmp/$2-r-$v"
    line="$line | $(stats "$tmp/$2-r-$v")"
  done
  echo "$line |"
}
header="| program"
rule="|---"
for v in $variants $traced_variants; do rule="$rule|---"; done
for v in $variants; do header="$header | $v"; done
for v in $traced_variants; do header="$header | $v / untraced"; done
echo "$(echo "$header |" | sed 's/| every/| --every-call/g; s/| baseline/| baseline (default)/g')"
echo "$rule|"
row "poll_loop: CPU ns per MPI_Test ($polls calls; lower is better)" loopcpu
row "poll_loop: wall ns per MPI_Test" loop
row "poll_loop: CPU ns per MPI_Testany of 1 request" anycpu
if [ "$hpcc" = 1 ]; then
  row "hpcc: MPIRandomAccess_GUPs (higher is better; target: default / untraced >= 0.6)" gups
fi
