#!/bin/sh
# Quantum ESPRESSO (Debian's pw.x: Fortran, Open MPI's `mpi` module) on 2 ranks: an SCF
# run of bulk silicon (2 atoms, 12 Ry, 2x2x2 k-points) with the pseudopotential that
# Debian's quantum-espresso-data ships. Its Fortran MPI calls pass strings (the processor
# name first: mpi_get_processor_name_(name, resultlen, ierror, 255), the last argument
# Fortran's hidden length), which the tracer's Fortran wrappers must pass on: traced, the
# run ends as untraced, with the same total energy and number of SCF iterations, and the
# job's report has each rank's call, as QE makes one a rank.
# Usage: qe_test.sh TRACER
set -eu
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
[ $# -eq 1 ] || { echo "usage: $0 TRACER" >&2; exit 2; }
tracer=$(abspath "$1")
pseudo_dir=/usr/share/espresso/pseudo
need_program pw.x quantum-espresso
need_program mpirun.openmpi openmpi-bin
[ -f "$pseudo_dir/Si.pz-vbc.UPF" ] || skip "no $pseudo_dir/Si.pz-vbc.UPF (Debian's quantum-espresso-data)"
e2e_setup
need_tracer "$tracer"

mkdir "$tmp/untraced" "$tmp/traced"
cat >"$tmp/si.scf.in" <<EOF
 &control
    calculation = 'scf'
    prefix = 'si'
    pseudo_dir = '$pseudo_dir'
    outdir = './out'
 /
 &system
    ibrav = 2, celldm(1) = 10.2, nat = 2, ntyp = 1,
    ecutwfc = 12.0
 /
 &electrons
    conv_thr = 1.0d-8
 /
ATOMIC_SPECIES
 Si  28.086  Si.pz-vbc.UPF
ATOMIC_POSITIONS alat
 Si 0.00 0.00 0.00
 Si 0.25 0.25 0.25
K_POINTS automatic
 2 2 2 0 0 0
EOF

# results DIR: the run's total energy and SCF iterations, as pw.x printed them.
results() {
  energy=$(sed -n 's/^! *total energy *= *\([-0-9.]*\) Ry$/\1/p' "$1/pw.out")
  iterations=$(sed -n 's/^ *convergence has been achieved in *\([0-9]*\) iterations$/\1/p' "$1/pw.out")
  [ -n "$energy" ] && [ -n "$iterations" ] && grep -q "JOB DONE" "$1/pw.out" ||
    fail "$1: pw.x did not converge: $(tail -20 "$1/pw.out")"
  echo "$energy $iterations"
}

(cd "$tmp/untraced" && mpirun.openmpi --oversubscribe -n 2 pw.x -in "$tmp/si.scf.in" \
  >pw.out 2>pw.err) || fail "untraced: exit status $?: $(tail -20 "$tmp/untraced/pw.err")"
untraced=$(results "$tmp/untraced")

rc=0
(cd "$tmp/traced" && mpirun.openmpi --oversubscribe -n 2 "$tracer" -q -j -o "$tmp/qe.json" \
  --trace-output "$tmp/qe.trace" pw.x -in "$tmp/si.scf.in" >pw.out 2>pw.err) || rc=$?
[ "$rc" -eq 0 ] || fail "traced: exit status $rc (untraced 0): $(tail -20 "$tmp/traced/pw.err")"
traced=$(results "$tmp/traced")
[ "$traced" = "$untraced" ] ||
  fail "traced, the total energy (Ry) and SCF iterations differ: $traced, untraced $untraced"

# The job's report: both ranks, no event lost, each rank's processor name asked once.
[ -s "$tmp/qe.json" ] || fail "no report from rank 0: $(tail -5 "$tmp/traced/pw.err")"
jq -e '.job.ranks == [0, 1] and .discarded_events == 0' "$tmp/qe.json" >/dev/null ||
  fail "the report is not of ranks 0 and 1 without loss: $(jq -c '[.job.ranks, .discarded_events]' "$tmp/qe.json")"
names=$(jq '[.backends[] | select(.name == "openmpi") | .host[]
             | select(.name == "MPI_Get_processor_name") | .calls] | add // 0' "$tmp/qe.json")
[ "$names" -eq 2 ] || fail "MPI_Get_processor_name: $names calls in the report, 2 made"
echo "PASS: $e2e_name: pw.x on 2 ranks traced as untraced: $traced (total energy in Ry, SCF iterations)," \
  "$(jq '[.backends[] | select(.name == "openmpi") | .host[].calls] | add' "$tmp/qe.json") MPI calls"
