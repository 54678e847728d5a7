#!/bin/sh
# `tracer diff` of two MPI jobs (docs/steps.md#two-runs-compared), as their folders and
# as their JSON reports (rank 0's `-j -o`): job A runs tests/mpi/mpi_app.c on 2 ranks,
# job B the same with APP_SLOW_RANK=1, where every rank makes one more MPI_Barrier.
# Usage: job_diff_test.sh TRACER MPI_APP LAUNCHER [OPTIONS...]
#
# Checks:
#  - the job folders: MPI_Barrier was called as many more times as the ranks' own counts
#    say, and no other MPI call of the app changed its count;
#  - the JSON reports against each other, and a report against the other job's folder
#    either way: the same rows as the folders', value for value (the paths aside), and
#    the text the same tables;
#  - each line of the text but the two naming the runs fits 100 columns.
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -ge 3 ] || { echo "usage: $0 TRACER MPI_APP LAUNCHER [OPTIONS...]" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
shift 2
e2e_setup
need_tracer "$tracer"
need_app "$app"
command -v "$1" >/dev/null 2>&1 || skip "no MPI launcher $1 (scripts/setup.sh installs it)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACER_JOB_TIMEOUT=60
backend=$(basename "$app" | sed 's/^mpi_app_\([a-z]*\)_.*/\1/')

# job NAME [VAR=VALUE...]: the app on 2 ranks under the tracer, its folder $tmp/NAME and
# rank 0's JSON report $tmp/NAME.json.
job() {
  name=$1
  shift
  rc=0
  env "$@" APP_MANIFEST="$tmp/$name.manifest" "$launcher" -n 2 "$tracer" -q -j \
    -o "$tmp/$name.json" --trace-output "$tmp/$name" "$app" >"$tmp/$name.out" \
    2>"$tmp/$name.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "job $name: exit status $rc: $(cat "$tmp/$name.err")"
  [ -s "$tmp/$name.json" ] || fail "job $name: no report from rank 0: $(cat "$tmp/$name.err")"
}
launcher=$1
job a
job b APP_SLOW_RANK=1

"$tracer" diff "$tmp/a" "$tmp/b" -j >"$tmp/ab.json" 2>"$tmp/ab.err" ||
  fail "tracer diff JOB_A JOB_B failed: $(cat "$tmp/ab.err")"
# The calls the ranks counted, summed over them, per job.
jq -s 'map(.calls | to_entries[]) | group_by(.key) | map({key: .[0].key, value: (map(.value) | add)})
       | from_entries' "$tmp"/a.manifest.* >"$tmp/a.calls"
jq -s 'map(.calls | to_entries[]) | group_by(.key) | map({key: .[0].key, value: (map(.value) | add)})
       | from_entries' "$tmp"/b.manifest.* >"$tmp/b.calls"
problems=$(jq -r --arg b "$backend" --slurpfile ca "$tmp/a.calls" --slurpfile cb "$tmp/b.calls" '
  ([.rows[] | select(.backend == $b and .kind == "host")] | map({key: .name, value: .}) | from_entries) as $r
  | ($cb[0].MPI_Barrier - $ca[0].MPI_Barrier) as $added
  | [ (if $added <= 0 then "the app made no more MPI_Barrier calls in B" else empty end),
      (if ($r.MPI_Barrier | not) then "MPI_Barrier: no row changed, the ranks made \($added) more"
       elif ($r.MPI_Barrier.b_count - $r.MPI_Barrier.a_count) != $added
       then "MPI_Barrier: \($r.MPI_Barrier.b_count - $r.MPI_Barrier.a_count) calls more, the ranks made \($added)"
       else empty end),
      ($ca[0] | to_entries[] | select(.key != "MPI_Barrier" and $r[.key] and $r[.key].a_count != $r[.key].b_count)
       | "\(.key): count changed \($r[.key].a_count) -> \($r[.key].b_count), the ranks made the same")
    ] | .[]' "$tmp/ab.json") || fail "jq could not read $tmp/ab.json"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: job A against job B:" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

"$tracer" diff "$tmp/a" "$tmp/b" >"$tmp/ab.txt" 2>"$tmp/ab.err" ||
  fail "tracer diff JOB_A JOB_B (text) failed: $(cat "$tmp/ab.err")"
grep -q '^MPI_Barrier ' "$tmp/ab.txt" || fail "the text has no MPI_Barrier row: $(cat "$tmp/ab.txt")"
jq -S 'del(.a, .b)' "$tmp/ab.json" >"$tmp/ab.rows"
tail -n +3 "$tmp/ab.txt" >"$tmp/ab.tables"
# same_as_jobs NAME A B: tracer diff A B gives what the job folders' diff gave.
same_as_jobs() {
  "$tracer" diff "$2" "$3" -j >"$tmp/$1.json" 2>"$tmp/$1.err" ||
    fail "tracer diff $2 $3 failed: $(cat "$tmp/$1.err")"
  jq -S 'del(.a, .b)' "$tmp/$1.json" >"$tmp/$1.rows" || fail "jq could not read $tmp/$1.json"
  cmp -s "$tmp/ab.rows" "$tmp/$1.rows" || {
    echo "FAIL: $e2e_name: tracer diff $2 $3 differs from the diff of the job folders:" >&2
    diff "$tmp/ab.rows" "$tmp/$1.rows" | head -n 20 >&2
    exit 1
  }
  "$tracer" diff "$2" "$3" >"$tmp/$1.txt" 2>"$tmp/$1.err" ||
    fail "tracer diff $2 $3 (text) failed: $(cat "$tmp/$1.err")"
  tail -n +3 "$tmp/$1.txt" | cmp -s "$tmp/ab.tables" - ||
    fail "the text of tracer diff $2 $3 differs from the folders': $(tail -n +3 "$tmp/$1.txt" | diff "$tmp/ab.tables" - | head -n 10)"
}
same_as_jobs reports "$tmp/a.json" "$tmp/b.json"
same_as_jobs report_job "$tmp/a.json" "$tmp/b"
same_as_jobs job_report "$tmp/a" "$tmp/b.json"

wide=$(tail -n +3 "$tmp/ab.txt" | awk 'length($0) > 100 { print length($0) ": " $0 }')
[ -z "$wide" ] || fail "lines wider than 100 columns:
$wide"
echo "PASS: $e2e_name: $backend, 2 ranks: MPI_Barrier $(jq -c --arg b "$backend" \
  '.rows[] | select(.backend == $b and .name == "MPI_Barrier") | [.a_count, .b_count]' "$tmp/ab.json")"
