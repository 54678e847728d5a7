#!/bin/sh
# MPI traced end to end (docs/multi-rank.md): a test program (mpi_app.c, or mpi_app.f90)
# run under the real launcher at 1, 2 and 4 ranks with `LAUNCHER -n N tracer APP`. The
# job's one report (JSON, written by rank 0 from the per-node results) must count every
# call the ranks made and the bytes they sent, as the program counted them itself, with
# one process per rank, and give the rank-to-rank matrix the ranks counted; with
# --traced-ranks, only those ranks appear. `tracer -r` gives the same report from the
# per-node results and from the events alone.
# Usage: mpi_test.sh BACKEND TRACER APP LAUNCHER [LAUNCHER-OPTIONS...]
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -ge 4 ] || { echo "usage: $0 BACKEND TRACER APP LAUNCHER [OPTIONS...]" >&2; exit 2; }
backend=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
shift 3
command -v "$1" >/dev/null 2>&1 || skip "no MPI launcher $1 (scripts/setup.sh installs it)"
e2e_setup
need_tracer "$tracer"
need_app "$app"
# Open MPI refuses root without these; its ranks beyond the cores need --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Debian's Open MPI 4.1 fails MPI_Win_create in a job of one rank with its UCX one-sided
# component (untraced too); the others serve.
export OMPI_MCA_osc='^ucx'
export TRACER_JOB_TIMEOUT=60

# As root, the ranks of a node share the machine's session daemon; as another user, each
# rank starts a daemon private to its run. When root, one job also runs as nobody.
nobody=""
mkdir -p "$tmp/home"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
  chmod 755 "$tmp"
  chown nobody "$tmp/home"
  nobody="setpriv --reuid=nobody --regid=$(id -gn nobody) --clear-groups env -u LTTNG_HOME HOME=$tmp/home"
  $nobody test -r "$app" -a -x "$tracer" || nobody=""
fi
as_user=""

# run_job NAME N [TRACER-OPTIONS...]: the job's JSON report in $tmp/NAME.json, the ranks'
# own counts in $tmp/NAME.manifest.RANK.
run_job() {
  name=$1
  n=$2
  shift 2
  rc=0
  out=$tmp
  [ -z "$as_user" ] || out="$tmp/home"
  # shellcheck disable=SC2086
  APP_MANIFEST="$out/$name.manifest" $as_user "$@" -n "$n" "$tracer" -j -o "$out/$name.json" \
    --trace-output "$out/$name.trace" $options "$app" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  if [ "$out" != "$tmp" ]; then
    cp "$out/$name.json" "$tmp/" 2>/dev/null || true
    for f in "$out/$name.manifest".*; do cp "$f" "$tmp/" 2>/dev/null || true; done
    ln -sfn "$out/$name.trace" "$tmp/$name.trace"
  fi
  [ "$rc" -eq 0 ] || fail "$name: exit status $rc: $(cat "$tmp/$name.err")"
  [ -s "$tmp/$name.json" ] || fail "$name: no report from rank 0: $(cat "$tmp/$name.err")"
}

# The program untraced, once: what it says of itself that does not depend on the tracer
# (the Fortran program's processor name).
APP_MANIFEST="$tmp/untraced.manifest" "$@" -n 1 "$app" >"$tmp/untraced.out" 2>&1 ||
  fail "the program fails untraced: $(cat "$tmp/untraced.out")"

# check_job NAME RANKS...: the report counts exactly what those ranks counted.
check_job() {
  name=$1
  shift
  files=""
  for r in "$@"; do
    [ -f "$tmp/$name.manifest.$r" ] || fail "$name: rank $r wrote no count"
    files="$files $tmp/$name.manifest.$r"
    # Strings passed to MPI and back (Fortran's CHARACTER arguments, whose lengths are
    # hidden arguments): a name and an info value read back as they were set, the
    # processor's name as the program untraced got it.
    if jq -e 'has("names")' "$tmp/$name.manifest.$r" >/dev/null; then
      jq -e --slurpfile u "$tmp/untraced.manifest.0" '.names.comm_got == .names.comm_set and
          .names.info_got == .names.info_set and .names.processor == $u[0].names.processor and
          (.names.processor | length) > 0' "$tmp/$name.manifest.$r" >/dev/null ||
        fail "$name: rank $r: strings did not go through MPI unchanged: $(jq -c .names "$tmp/$name.manifest.$r") (untraced: $(jq -c .names "$tmp/untraced.manifest.0"))"
    fi
  done
  # shellcheck disable=SC2086
  jq -s '{calls: (map(.calls | to_entries) | add | group_by(.key)
                  | map(select((map(.value) | add) > 0) | {(.[0].key): (map(.value) | add)})
                  | add),
          bytes: (map(.bytes | to_entries) | add | group_by(.key)
                  | map(select((map(.value) | add) > 0) | {(.[0].key): (map(.value) | add)})
                  | add // {})}' $files >"$tmp/$name.expected.json"
  jq --arg b "$backend" '.backends[] | select(.name == $b)
      | {calls: (.host | map({(.name): .calls}) | add),
         bytes: (.host | map(select((.bytes // 0) > 0) | {(.name): .bytes}) | add // {}),
         processes}' "$tmp/$name.json" >"$tmp/$name.actual.json"
  [ -s "$tmp/$name.actual.json" ] || fail "$name: no $backend backend in the report"
  jq -e --slurpfile e "$tmp/$name.expected.json" --argjson n "$#" \
    '.calls == $e[0].calls and .bytes == $e[0].bytes and .processes == $n' \
    "$tmp/$name.actual.json" >/dev/null ||
    fail "$name: the report differs from the ranks' own count:
expected $(jq -c . "$tmp/$name.expected.json")
got      $(jq -c . "$tmp/$name.actual.json")"
  # The rank-to-rank matrix: what each rank sent or put to each peer.
  # shellcheck disable=SC2086
  jq -cs 'map(.rank as $r | (.sent // {}) | to_entries
              | map({from: $r, to: (.key | tonumber), bytes: .value.bytes,
                     messages: .value.messages}))
          | add // [] | sort_by(.from, .to)' $files >"$tmp/$name.expected.matrix"
  jq -c '.job.matrix | sort_by(.from, .to)' "$tmp/$name.json" >"$tmp/$name.actual.matrix"
  cmp -s "$tmp/$name.expected.matrix" "$tmp/$name.actual.matrix" ||
    fail "$name: the matrix differs from what the ranks sent:
expected $(cat "$tmp/$name.expected.matrix")
got      $(cat "$tmp/$name.actual.matrix")"
  # Message sizes by bucket add up to each call's bytes (completions are not messages).
  jq -e --arg b "$backend" '(.backends[] | select(.name == $b) | .host
        | map(select((.bytes // 0) > 0 and .message != "complete") | {(.name): .bytes}) | add // {})
      == (.job.message_sizes | map(select(.backend == $b)) | group_by(.name)
          | map({(.[0].name): (map(.bytes) | add)}) | add // {})' "$tmp/$name.json" >/dev/null ||
    fail "$name: the message sizes do not add up to the calls' bytes: $(jq -c .job.message_sizes "$tmp/$name.json")"
}

options=""
for n in 1 2 4; do
  run_job "ranks$n" "$n" "$@"
  ranks=$(seq 0 $((n - 1)))
  # shellcheck disable=SC2086
  check_job "ranks$n" $ranks
  # Rank 0 alone printed the report, from the node's result, not from the events.
  [ "$(grep -c 'job of' "$tmp/ranks$n.err" || true)" -le 1 ] || fail "ranks$n: more than one report"
  jq -e '.job.nodes == 1 and .job.ranks_from_events == 0 and .job.ranks_missing == 0' \
    "$tmp/ranks$n.json" >/dev/null ||
    fail "ranks$n: not reported from one node's result: $(jq -c '.job | del(.matrix, .message_sizes)' "$tmp/ranks$n.json")"
done

# Only ranks 1 and 2 of 4 traced: the others ran untraced and are not in the report.
if [ -n "$nobody" ]; then
  as_user=$nobody
  run_job nobody 2 "$@"
  check_job nobody 0 1
  as_user=""
fi

options="--traced-ranks 1-2"
run_job traced 4 "$@"
check_job traced 1 2
# Rank 0, untraced, still led its node: one node result for ranks 1 and 2.
jq -e '.job.nodes == 1 and .job.ranks == [1, 2]' "$tmp/traced.json" >/dev/null ||
  fail "traced: not one node result for ranks 1 and 2: $(jq -c '.job | del(.matrix, .message_sizes)' "$tmp/traced.json")"
[ ! -e "$tmp/traced.trace/rank-0" ] && [ ! -e "$tmp/traced.trace/rank-3" ] ||
  fail "traced: untraced ranks left a trace"

# The same report again from the saved job folder.
"$tracer" -r "$tmp/ranks4.trace" -j -o "$tmp/replay.json" 2>"$tmp/replay.err" ||
  fail "replay: $(cat "$tmp/replay.err")"
for r in 0 1 2 3; do cp "$tmp/ranks4.manifest.$r" "$tmp/replay.manifest.$r"; done
check_job replay 0 1 2 3
# The text report from the per-node results, and from the events alone (no results): the
# same, with the tables titled by the symbol group.
"$tracer" -r "$tmp/ranks4.trace" -o "$tmp/results.txt" 2>"$tmp/results.err" ||
  fail "replay from the results: $(cat "$tmp/results.err")"
# Without the node's result (its leader died): the same, from the ranks' own results.
cp -R "$tmp/ranks4.trace/." "$tmp/events.trace"
rm -rf "$tmp/events.trace/nodes"
"$tracer" -r "$tmp/events.trace" -o "$tmp/ranks.txt" 2>"$tmp/ranks.err" ||
  fail "replay from the ranks' results: $(cat "$tmp/ranks.err")"
"$tracer" -r "$tmp/events.trace" -j | jq -e '.job.nodes == 0 and .job.rank_results == 4' >/dev/null ||
  fail "replay from the ranks' results: not read from them"
cmp -s "$tmp/results.txt" "$tmp/ranks.txt" ||
  fail "the report from the ranks' results differs: $(diff "$tmp/results.txt" "$tmp/ranks.txt" | head -20)"
rm -rf "$tmp/events.trace"/rank-*/tracer-result.txt
"$tracer" -r "$tmp/events.trace" -o "$tmp/events.txt" 2>"$tmp/events.err" ||
  fail "replay from the events: $(cat "$tmp/events.err")"
grep -q "counted from their events: 0, 1, 2, 3" "$tmp/events.err" ||
  fail "replay from the events: the events were not read: $(cat "$tmp/events.err")"
cmp -s "$tmp/results.txt" "$tmp/events.txt" ||
  fail "the report from the results differs from the one from the events:
$(diff "$tmp/results.txt" "$tmp/events.txt" | head -20)"
grep -q "^BACKEND_MPI | 1 Hostnames | 4 Processes | 4 Threads |" "$tmp/results.txt" ||
  fail "no BACKEND_MPI table of 4 processes: $(head -12 "$tmp/results.txt")"
# A rank that aborts the job (C program only, MPI_TEST_ABORT=1): the launcher stops every
# rank; the job folder still gives a report that names the ranks whose end was not seen
# or that failed, and counts what they recorded (MPI_Init on both).
if [ "${MPI_TEST_ABORT:-0}" = 1 ]; then
  rc=0
  APP_ABORT_RANK=1 APP_MANIFEST="$tmp/abort.manifest" "$@" -n 2 "$tracer" -q \
    --trace-output "$tmp/abort.trace" "$app" >"$tmp/abort.out" 2>"$tmp/abort.err" || rc=$?
  [ "$rc" -ne 0 ] || fail "abort: the job exited with status 0"
  # The launcher may return before every killed tracer is gone, and a session is flushed
  # once its tracer is (under load, a second or more later): the replay is tried again
  # for a few seconds, until it reads and counts both ranks' MPI_Init.
  tries=0
  until "$tracer" -r "$tmp/abort.trace" >"$tmp/abort.txt" 2>"$tmp/abort.replay.err" &&
    grep -Eq "^MPI_Init +\|.*\| +2 \|" "$tmp/abort.txt"; do
    tries=$((tries + 1))
    [ "$tries" -lt 10 ] || break
    sleep 1
  done
  [ -s "$tmp/abort.txt" ] || fail "abort: no report from the job folder: $(cat "$tmp/abort.replay.err")"
  # Rank 1's app exits (status 3), or the launcher kills its tracer before it does.
  grep -Eq "^Rank 1: (the app|its tracer was killed)" "$tmp/abort.txt" ||
    fail "abort: the report does not name rank 1: $(head -5 "$tmp/abort.txt")"
  grep -Eq "^MPI_Init +\|.*\| +2 \|" "$tmp/abort.txt" ||
    fail "abort: MPI_Init of both ranks not counted: $(cat "$tmp/abort.txt")"
fi

# A job killed mid-run, as a batch time limit kills it: every process of the job at once
# (SIGKILL), while rank 1 hangs (C program only). The job folder still gives a report
# that names the ranks whose end was not seen and counts what they recorded, rank 1's
# last calls included: `tracer -r` flushes the sessions the killed tracers left, in
# root's daemon or (as nobody) in the daemons private to each rank.
# tree_of PID: it and every process under it (launchers put each rank in its own session).
tree_of() {
  ps -eo pid=,ppid= | awk -v root="$1" '{ parent[$1] = $2 }
    END { found[root] = 1
          do { more = 0
               for (p in parent) if (!(p in found) && (parent[p] in found)) { found[p] = 1; more = 1 }
          } while (more)
          for (p in found) print p }'
}
kill_job() {
  name=$1
  shift
  out=$tmp
  [ -z "$as_user" ] || out="$tmp/home"
  # shellcheck disable=SC2086
  APP_HANG_RANK=1 APP_MANIFEST="$out/$name.manifest" $as_user "$@" -n 2 "$tracer" -q \
    --trace-output "$out/$name.trace" "$app" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  job=$!
  tries=0
  until [ -f "$out/$name.manifest.1" ]; do
    tries=$((tries + 1))
    # shellcheck disable=SC2046
    [ "$tries" -lt 300 ] || { kill -KILL $(tree_of "$job"); fail "$name: rank 1 never got to its hang"; }
    sleep 0.1
  done
  sleep 0.5
  killed=$(tree_of "$job")
  # shellcheck disable=SC2086
  kill -KILL $killed 2>/dev/null || true
  wait "$job" 2>/dev/null || true
  # SIGKILL takes a moment: until every killed process is gone (or a zombie).
  tries=0
  for p in $killed; do
    while [ -e "/proc/$p" ] && [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ] &&
      [ "$tries" -lt 100 ]; do
      tries=$((tries + 1))
      sleep 0.05
    done
  done
  # shellcheck disable=SC2086
  $as_user "$tracer" -r "$out/$name.trace" -o "$out/$name.txt" 2>"$tmp/$name.replay.err" ||
    fail "$name: no report from the killed job's folder: $(cat "$tmp/$name.replay.err")"
  grep -q "^Rank 1: its tracer was killed before the app ended" "$out/$name.txt" ||
    fail "$name: the report does not name rank 1: $(head -5 "$out/$name.txt")"
  # Two puts a rank (the world window and the reversed split's), both before the hang.
  grep -Eq "^MPI_Put +\|.*\| +4 \|" "$out/$name.txt" ||
    fail "$name: the puts of both ranks are not counted (rank 1's session not flushed?): $(cat "$out/$name.txt")"
}
if [ "${MPI_TEST_ABORT:-0}" = 1 ]; then
  kill_job killed "$@"
  if [ -n "$nobody" ]; then
    as_user="$nobody TMPDIR=$tmp/home"
    kill_job killed_nobody "$@"
    # The private daemons of the killed ranks were stopped by the replay.
    if [ -n "$(ls -d "$tmp/home"/tracer-lttng-* 2>/dev/null)" ]; then
      fail "killed_nobody: private session daemons left: $(ls -d "$tmp/home"/tracer-lttng-*)"
    fi
    as_user=""
  fi
fi

echo "PASS: $e2e_name: $backend: 1, 2 and 4 ranks${nobody:+ (and 2 as nobody)}, --traced-ranks 1-2, replay:" \
  "$(jq -c '.calls | add' "$tmp/ranks4.expected.json") calls," \
  "$(jq -c '.bytes | add' "$tmp/ranks4.expected.json") bytes at 4 ranks"
