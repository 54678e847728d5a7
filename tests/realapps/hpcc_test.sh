#!/bin/sh
# HPC Challenge (Debian's hpcc, Open MPI) on 2 ranks, its example input on a 1x2 process
# grid: HPL, PTRANS, the FFTs and RandomAccess, whose MPI version polls with millions of
# MPI_Testany and MPI_Test calls that nearly all answer "not yet". Every MPI function's
# calls in the job's report equal the counting library's count (call_count.c), polls
# included; hpcc's own results file says the run passed.
# Usage: hpcc_test.sh TRACER COUNTER
set -eu
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER COUNTER" >&2; exit 2; }
tracer=$(abspath "$1")
counter=$(abspath "$2")
input=/usr/share/doc/hpcc/examples/_hpccinf.txt
need_program hpcc hpcc
need_program mpirun.openmpi openmpi-bin
[ -f "$input" ] || skip "no $input (Debian's hpcc)"
e2e_setup
need_tracer "$tracer"

mkdir "$tmp/run"
# hpcc reads hpccinf.txt from the current folder: the example's 2x2 grid made 1x2.
sed 's/^2\( *\)Ps$/1\1Ps/' "$input" >"$tmp/run/hpccinf.txt"
grep -q '^1 *Ps$' "$tmp/run/hpccinf.txt" || fail "cannot make the example's grid 1x2"
cd "$tmp/run"
# --blocking: a loaded machine's consumer may fall behind millions of polls; every call
# must be kept for the count to be exact.
run_counted hpcc 2 -m minimal --blocking -- hpcc
check_counted hpcc openmpi
grep -q '^Success=1' hpccoutf.txt || fail "hpcc: its results file does not say Success=1"
polls=$(jq '[.backends[] | select(.name == "openmpi") | .host[]
             | select(.name == "MPI_Testany" or .name == "MPI_Test") | .calls] | add // 0' \
  "$tmp/hpcc.json")
[ "$polls" -gt 1000 ] || fail "hpcc: only $polls MPI_Test and MPI_Testany calls: RandomAccess did not poll"
