#!/bin/sh
# MPICH loaded after start: a Python app (mpich_ctypes_app.py, Debian's /usr/bin/python3)
# that loads libmpich.so.12 itself with ctypes, under MPICH's mpiexec on 2 ranks. python3
# links no MPI library: the tracer takes MPICH from the launcher (trace.launcher_variables)
# and says so on rank 0; the calls made through the handle ctypes dlopen'd are traced. The
# job's report counts exactly what the ranks counted themselves, calls and bytes.
# Usage: mpich_ctypes_test.sh TRACER
set -eu
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
[ $# -eq 1 ] || { echo "usage: $0 TRACER" >&2; exit 2; }
tracer=$(abspath "$1")
python=/usr/bin/python3 # Debian's: the python3 on PATH may be another
need_program "$python" python3
need_program mpiexec.mpich mpich
e2e_setup
need_tracer "$tracer"

# A fresh machine: no calibration cached yet (XDG_CACHE_HOME empty); the job's report
# still says what tracing cost, measured once on the node.
mkdir "$tmp/cache"
rc=0
XDG_CACHE_HOME="$tmp/cache" APP_MANIFEST="$tmp/app" mpiexec.mpich -n 2 "$tracer" -j -o "$tmp/job.json" \
  --trace-output "$tmp/job.trace" "$python" "$e2e_dir/../realapps/mpich_ctypes_app.py" \
  >"$tmp/job.out" 2>"$tmp/job.err" || rc=$?
[ "$rc" -eq 0 ] || fail "exit status $rc: $(tail -20 "$tmp/job.err")"
grep -q "mpi: $python links none of the mpi libraries; PMI_RANK is set by the launcher of libmpich.so.12: traced as mpich" \
  "$tmp/job.err" || fail "rank 0 does not say why MPICH is traced: $(cat "$tmp/job.err")"
[ "$(grep -c 'traced as mpich' "$tmp/job.err")" -eq 1 ] ||
  fail "more than rank 0 said which MPI is traced: $(cat "$tmp/job.err")"
for r in 0 1; do [ -s "$tmp/app.$r" ] || fail "rank $r wrote no count"; done
jq -s '{calls: (map(.calls | to_entries) | add | group_by(.key)
                | map({(.[0].key): (map(.value) | add)}) | add),
        bytes: (map(.bytes | to_entries) | add | group_by(.key)
                | map({(.[0].key): (map(.value) | add)}) | add)}' "$tmp/app.0" "$tmp/app.1" \
  >"$tmp/expected.json"
jq '.backends[] | select(.name == "mpich")
    | {calls: (.host | map({(.name): .calls}) | add),
       bytes: (.host | map(select((.bytes // 0) > 0) | {(.name): .bytes}) | add)}' \
  "$tmp/job.json" >"$tmp/actual.json"
jq -e --slurpfile e "$tmp/expected.json" '. == $e[0]' "$tmp/actual.json" >/dev/null ||
  fail "the report differs from the ranks' own count:
expected $(jq -c . "$tmp/expected.json")
got      $(jq -c . "$tmp/actual.json")"
jq -e '.tracing_cost.event_ps > 0 and .tracing_cost.ns > 0' "$tmp/job.json" >/dev/null ||
  fail "a fresh machine's job does not know what tracing cost: $(jq -c .tracing_cost "$tmp/job.json")"
[ "$(grep -c . "$tmp/cache/tracer/calibration")" -eq 1 ] ||
  fail "the node did not measure once: $(cat "$tmp/cache/tracer/calibration" 2>/dev/null)"
"$tracer" -r "$tmp/job.trace" 2>/dev/null | grep -q '^Cost of tracing: [0-9]* events x ' ||
  fail "the text report has no cost of tracing: $("$tracer" -r "$tmp/job.trace" 2>&1 | tail -3)"
# HPE Cray PALS (Cray MPICH) names the MPICH ABI too; a launcher the specs do not know
# (Slurm's srun) names none, and the tracer says so rather than guessing.
PALS_RANKID=0 PMI_SIZE=1 PALS_APID=x1 "$tracer" -j -o "$tmp/pals.json" --trace-output \
  "$tmp/pals.trace" "$python" -c pass >"$tmp/pals.out" 2>"$tmp/pals.err" ||
  fail "PALS: $(cat "$tmp/pals.err")"
grep -q "PALS_RANKID is set by the launcher of libmpich.so.12: traced as mpich" "$tmp/pals.err" ||
  fail "PALS: MPICH not taken from the launcher: $(cat "$tmp/pals.err")"
SLURM_PROCID=0 SLURM_NTASKS=1 SLURM_JOB_ID=7 SLURM_STEP_ID=0 "$tracer" -j -o "$tmp/slurm.json" \
  --trace-output "$tmp/slurm.trace" "$python" -c pass >"$tmp/slurm.out" 2>"$tmp/slurm.err" ||
  fail "Slurm: $(cat "$tmp/slurm.err")"
grep -q "mpi: $python links none of the mpi libraries and Slurm is not a launcher the mpi backends know: none is traced (-b NAME picks one)" \
  "$tmp/slurm.err" || fail "Slurm: no word on the MPI left untraced: $(cat "$tmp/slurm.err")"
echo "mpich_ctypes: $(jq -c .calls "$tmp/actual.json")"
