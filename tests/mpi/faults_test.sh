#!/bin/sh
# A job traced ends as it would untraced, and its report tells what happened
# (docs/reliability.md, docs/multi-rank.md). rank_crash.c's two ranks under the real
# launcher:
#
#   crash   rank 0 segfaults after MPI_Init and a barrier; rank 1 sits in MPI_Recv from it.
#           Untraced, the launcher ends the job at once. Traced: the job ends as soon
#           (well before TRACER_JOB_TIMEOUT: no tracer waits for a dead rank) with the
#           launcher's own exit status; the MPI library's crash report (Open MPI's
#           "*** Process received signal ***", UCX's "Caught signal 11") is printed as
#           untraced; rank 0's tracer says where the job's report is; `tracer -r JOB`
#           names rank 0 as the rank that ended first, of SIGSEGV, and has rank 1's
#           MPI_Recv as a call that never returned.
#   inside  (MPICH, whose hwloc probes the OpenCL devices in MPI_Init, untraced too: PoCL
#           here) the program makes no OpenCL call: the job's tables and its verdict have
#           none, the OpenCL calls hwloc made are set apart as made inside another API's
#           calls, -t shows them inside MPI_Init, and `tracer -r --runtime-calls` counts
#           them as the app's, on a rank's trace and on the job's (its ranks reduced again).
# Usage: faults_test.sh crash|inside TRACER APP LAUNCHER [LAUNCHER-OPTIONS...]
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -ge 4 ] || { echo "usage: $0 crash|inside TRACER APP LAUNCHER [OPTIONS...]" >&2; exit 2; }
scenario=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
shift 3
command -v "$1" >/dev/null 2>&1 || skip "no MPI launcher $1 (scripts/setup.sh installs it)"
launcher=$1
shift
launcher_options="$*" # a word each, no spaces (--oversubscribe)
e2e_setup
need_tracer "$tracer"
need_app "$app"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACER_JOB_TIMEOUT=100
failures=0
ok() { echo "ok: $*"; }
bad() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
check_eq() { # what expected actual
  if [ "$2" = "$3" ]; then ok "$1: $3"; else bad "$1: expected '$2', got '$3'"; fi
}
now() { date +%s; }

# job NAME COMMAND...: the command as a job of 2 ranks, at most 150 s; its exit status in
# $rc, its time in $secs, its output in $tmp/NAME.out and .err.
# shellcheck disable=SC2086 # the launcher's options, a word each
job() {
  name=$1
  shift
  start=$(now)
  rc=0
  APP_MANIFEST="$tmp/$name.manifest" timeout -k 5 150 "$launcher" $launcher_options -n 2 "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  secs=$(($(now) - start))
}

case $scenario in
crash)
  job plain "$app" crash
  [ "$rc" -ne 0 ] || fail "untraced: the job exited 0 although rank 0 crashed"
  plain_rc=$rc plain_secs=$secs
  echo "untraced: the job ended in $secs s with status $rc"
  job traced "$tracer" --trace-output "$tmp/job" "$app" crash
  echo "traced: the job ended in $secs s with status $rc"
  check_eq "the launcher's exit status, traced as untraced" "$plain_rc" "$rc"
  if [ "$secs" -le $((plain_secs + 20)) ] && [ "$secs" -lt "$TRACER_JOB_TIMEOUT" ]; then
    ok "the traced job ended within 20 s of the untraced one's time ($secs s, untraced $plain_secs s)"
  else
    bad "the traced job took $secs s (untraced $plain_secs s; a tracer waited for a dead rank)"
  fi
  # The MPI library's own crash report, as untraced.
  for marker in "Process received signal" "Caught signal 11"; do
    if grep -q "$marker" "$tmp/plain.err"; then
      if grep -q "$marker" "$tmp/traced.err"; then
        ok "the MPI library's crash report ('$marker') is printed traced as untraced"
      else
        bad "untraced, the job printed '$marker'; traced it did not: $(head -c 2000 "$tmp/traced.err")"
      fi
    fi
  done
  want="tracer: rank 0: the app was killed by signal 11 (SIGSEGV); the job ends without its report: once every rank has ended, \`tracer -r $tmp/job\` gives it"
  if grep -qxF "$want" "$tmp/traced.err"; then
    ok "rank 0's tracer says where the job's report is"
  else
    bad "no line '$want' in the job's output: $(grep '^tracer' "$tmp/traced.err" | head -5)"
  fi
  # The job's report afterwards: every rank's tracer has ended (the launcher waited).
  "$tracer" -r "$tmp/job" -j -o "$tmp/replay.json" 2>"$tmp/replay.err" ||
    bad "tracer -r -j: $(cat "$tmp/replay.err")"
  "$tracer" -r "$tmp/job" -o "$tmp/replay.txt" 2>"$tmp/replay-text.err" ||
    bad "tracer -r: $(cat "$tmp/replay-text.err")"
  check_eq "rank 0's end in the job's JSON" '{"rank":0,"end_seen":true,"status":"killed by signal 11 (SIGSEGV)"}' \
    "$(jq -c '.job.failed[] | select(.rank == 0) | {rank, end_seen, status}' "$tmp/replay.json" 2>/dev/null)"
  if grep -qxF "Rank 0: the app was killed by signal 11 (SIGSEGV), the first rank to end: the tables count what it recorded until then." "$tmp/replay.txt"; then
    ok "the report names rank 0 as the first rank to end, of SIGSEGV"
  else
    bad "the report does not name rank 0 as the first to end: $(grep '^Rank' "$tmp/replay.txt")"
  fi
  calls() { # FUNCTION: the job's calls of it
    jq --arg f "$1" '[.backends[].host[] | select(.name == $f) | .calls] | add // 0' "$tmp/replay.json"
  }
  check_eq "MPI_Init calls (both ranks' as they made them)" 2 "$(calls MPI_Init)"
  check_eq "MPI_Barrier calls" 2 "$(calls MPI_Barrier)"
  check_eq "rank 1's $(jq -r .in_flight "$tmp/traced.manifest.1"), unfinished" 1 \
    "$(jq '[.backends[].unfinished[] | select(.name == "MPI_Recv") | .calls] | add // 0' "$tmp/replay.json")"
  ;;
inside)
  job plain "$app" inside
  check_eq "untraced: the job's exit status" 0 "$rc"
  job traced "$tracer" --trace-output "$tmp/job" -j \
    -o "$tmp/job.json" "$app" inside
  check_eq "traced: the job's exit status" 0 "$rc"
  [ "$rc" -eq 0 ] || sed 's/^/    /' "$tmp/traced.err"
  made=$(jq -s 'map(.opencl) | add' "$tmp/traced.manifest.0" "$tmp/traced.manifest.1")
  opencl() { # FILE TABLE: the OpenCL calls of that table
    jq --arg t "$2" '[.backends[] | select(.name == "opencl") | (.[$t] // [])[].calls] | add // 0' "$1"
  }
  inside=$(opencl "$tmp/job.json" inside_other)
  all=$((inside + $(opencl "$tmp/job.json" host)))
  [ "$all" -gt 0 ] ||
    skip "hwloc made no OpenCL call in MPI_Init here (no OpenCL platform, or no hwloc OpenCL plugin)"
  check_eq "OpenCL calls in the job's tables (the app's own: $made)" "$made" \
    "$(opencl "$tmp/job.json" host)"
  check_eq "OpenCL calls set apart, made inside MPI_Init by hwloc" "$((all - made))" "$inside"
  "$tracer" -r "$tmp/job" -o "$tmp/job.txt" 2>/dev/null || bad "tracer -r on the job failed"
  if grep -q "^  OPENCL .*host calls" "$tmp/job.txt"; then
    bad "the job's report counts OpenCL host calls in the ranks' wall time: $(grep '^  OPENCL' "$tmp/job.txt")"
  else
    ok "the ranks' shares of wall time have no OpenCL line"
  fi
  if grep -q "^OPENCL: [0-9]* calls (.*) made inside other traced calls" "$tmp/job.txt"; then
    ok "the report says the OpenCL calls were made inside other traced calls"
  else
    bad "no line about the OpenCL calls made inside other traced calls: $(grep -i opencl "$tmp/job.txt" | head -3)"
  fi
  # The job's replay with --runtime-calls counts them as the app's too: each rank reduced
  # again from its events, in the JSON and in the text (its shares of wall time, and no
  # line setting them apart).
  "$tracer" -r "$tmp/job" -j --runtime-calls -o "$tmp/job-all.json" 2>"$tmp/job-all.err" ||
    bad "tracer -r JOB -j --runtime-calls failed: $(cat "$tmp/job-all.err")"
  check_eq "the job, --runtime-calls: the OpenCL calls counted as the app's" "$all" \
    "$(opencl "$tmp/job-all.json" host)"
  check_eq "the job, --runtime-calls: OpenCL calls set apart" 0 \
    "$(opencl "$tmp/job-all.json" inside_other)"
  "$tracer" -r "$tmp/job" --runtime-calls -o "$tmp/job-all.txt" 2>/dev/null ||
    bad "tracer -r JOB --runtime-calls failed"
  if grep -q "^  OPENCL .*host calls" "$tmp/job-all.txt" &&
    ! grep -q "^OPENCL: [0-9]* calls (.*) made inside other traced calls" "$tmp/job-all.txt"; then
    ok "the job's text with --runtime-calls counts the OpenCL calls in the ranks' wall time"
  else
    bad "the job's text with --runtime-calls: $(grep -i opencl "$tmp/job-all.txt" | head -3)"
  fi
  # A rank's trace: -t has each OpenCL call inside MPI_Init, and --runtime-calls counts
  # them as the app's (the reader decides, from the same trace).
  rank0="$tmp/job/rank-0"
  "$tracer" -r "$rank0" -j -o "$tmp/rank0.json" 2>/dev/null || bad "tracer -r rank 0 failed"
  "$tracer" -r "$rank0" -j --runtime-calls -o "$tmp/rank0-all.json" 2>/dev/null ||
    bad "tracer -r --runtime-calls rank 0 failed"
  check_eq "rank 0, --runtime-calls: the OpenCL calls counted as the app's" \
    "$(opencl "$tmp/rank0.json" inside_other)" "$(opencl "$tmp/rank0-all.json" host)"
  "$tracer" -r "$rank0" -t >"$tmp/rank0.txt" 2>/dev/null || bad "tracer -r -t rank 0 failed"
  # Between MPI_Init's entry and exit lines (in time order), every OpenCL call of rank 0.
  outside=$(awk '/lttng_ust_mpich:MPI_Init_entry/ { inside = 1 } /lttng_ust_mpich:MPI_Init_exit/ { inside = 0 }
                 /lttng_ust_opencl:cl[A-Za-z]*_exit/ && !inside { n++ } END { print n + 0 }' "$tmp/rank0.txt")
  shown=$(grep -c "lttng_ust_opencl:cl[A-Za-z]*_exit" "$tmp/rank0.txt" || true)
  [ "$shown" -gt 0 ] || bad "-t shows none of rank 0's OpenCL calls"
  check_eq "rank 0's OpenCL calls ($shown) shown outside MPI_Init by -t" 0 "$outside"
  ;;
*) fail "unknown scenario $scenario" ;;
esac
[ "$failures" -eq 0 ] || fail "$failures check(s) failed"
echo "PASS: $e2e_name $scenario"
