#!/bin/sh
# LAMMPS (Debian's lammps: lmp, Open MPI, FFTW) on 2 ranks, the solvated peptide example
# of lammps-examples (PPPM long-range forces, whose FFTs go through FFTW), cut to 100
# steps. Traced with the MPI backend and FFTW's corpus spec (tests/corpus/fftw3.yaml,
# built here from the spec alone): every MPI and FFTW function's calls in the job's one
# report equal the counting library's count (call_count.c); LAMMPS itself ran its steps;
# the message traffic counts each message once.
# Usage: lammps_test.sh TRACER BUILD COUNTER
set -eu
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 TRACER BUILD COUNTER" >&2; exit 2; }
tracer=$(abspath "$1")
build=$(abspath "$2")
counter=$(abspath "$3")
root=$(cd "$e2e_dir/../.." && pwd)
example=/usr/share/lammps/examples/peptide
need_program lmp lammps
need_program mpirun.openmpi openmpi-bin
[ -f "$example/in.peptide" ] || skip "no $example (Debian's lammps-examples)"
[ -f "$counter" ] || fail "no counting library at $counter"
e2e_setup
need_tracer "$tracer"

TRACER_BACKEND_OPT=-O0 "$root/scripts/build-backend.sh" "$root/tests/corpus/fftw3.yaml" \
  "$tmp/backends" "$build" >"$tmp/build.log" 2>&1 ||
  fail "cannot build the fftw3 backend from its spec: $(tail -5 "$tmp/build.log")"
export TRACER_BACKEND_PATH="$tmp/backends"

mkdir "$tmp/run"
cp "$example"/* "$tmp/run/"
steps=100
sed "s/^run[[:space:]].*/run $steps/" "$example/in.peptide" >"$tmp/run/in.short"
cd "$tmp/run"
run_counted lammps 2 --blocking -- lmp -in in.short -log none
check_counted lammps openmpi fftw3

# LAMMPS did its work: its own loop line, for the steps asked.
grep -q "^Loop time of .* on 2 procs for $steps steps" "$tmp/lammps.out" ||
  fail "lammps: no loop over $steps steps on 2 procs in its output: $(tail -5 "$tmp/lammps.out")"
# PPPM's FFTs went through FFTW, and its messages through MPI.
jq -e '[.backends[] | select(.name == "fftw3") | .host[] | select(.name == "fftw_execute_dft")
        | .calls][0] > 0' "$tmp/lammps.json" >/dev/null || fail "lammps: no fftw_execute_dft traced"
# Message traffic: the total is the bytes of the sends and collectives, once; the
# receives' and completions' bytes are not added again.
jq -e '[.backends[] | select(.name == "openmpi") | .host[] | select(.message)] as $m
       | ($m | map(select(.in_total)) | map(.message) | unique) - ["send", "collective"] == []
         and ($m | map(select(.in_total | not)) | map(.message) | unique) - ["recv", "complete"] == []' \
  "$tmp/lammps.json" >/dev/null ||
  fail "lammps: the total counts other kinds than sends and collectives: $(jq -c '[.backends[].host[] | select(.message) | [.name, .message, .in_total]]' "$tmp/lammps.json")"
sent=$(jq '[.backends[] | select(.name == "openmpi") | .host[] | select(.in_total) | .bytes] | add' \
  "$tmp/lammps.json")
posted=$(jq '[.backends[] | select(.name == "openmpi") | .host[] | select(.name == "MPI_Irecv") | .bytes] | add' \
  "$tmp/lammps.json")
[ "$posted" -gt 0 ] || fail "lammps: no MPI_Irecv bytes"
line=$(awk '/^Message traffic \(MPI\)/ { on = 1 } on && /^Total / { print; exit }' "$tmp/lammps.txt")
total=$(echo "$line" | awk -F'|' '{ gsub(/ /, "", $3); print $3 }')
expected=$(awk -v b="$sent" 'BEGIN { u = "B"; split("KiB MiB GiB TiB", units, " ");
  for (i = 1; b >= 1024 && i <= 4; i++) { b /= 1024; u = units[i] }
  printf(u == "B" ? "%dB" : "%.2f%s", b, u) }')
[ "$total" = "$expected" ] ||
  fail "lammps: the traffic's Total is $total, the sends and collectives moved $expected: $line"
echo "lammps: Total $total, each message once"
