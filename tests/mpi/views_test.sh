#!/bin/sh
# The two views of a tally over many actors (docs/analysis-output.md, docs/multi-rank.md):
#
#   views_test.sh extended TRACER THREADS_APP
#     `tracer -e` on an OpenCL app of 4 worker threads (tests/apps/threads.c): the
#     breakdown per (hostname, process, thread) adds up to the plain tally, call for call
#     and nanosecond for nanosecond, with one actor per thread that made calls (the main
#     thread and the 4 workers), in JSON and in the text tables; `tracer -r -e` again.
#   views_test.sh ranks TRACER MPI_APP LAUNCHER [OPTIONS...]
#     a 4-rank job whose rank 2 waits 0.3 s longer in one MPI_Barrier (APP_SLOW_RANK=2,
#     tests/mpi/mpi_app.c): `--ranks` gives each call's least, median and most time of a
#     rank, the median as the ranks' own times say, and names rank 2 as the straggler of
#     MPI_Barrier; `-e` gives one actor per rank that adds up to the job's tally; the
#     replay from the per-node results and from the events alone print the same views.
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -ge 3 ] || { echo "usage: $0 extended|ranks TRACER APP [LAUNCHER...]" >&2; exit 2; }
view=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
shift 3
e2e_setup
need_tracer "$tracer"
need_app "$app"

# sums_match JSON BACKEND: each host and device row of BACKEND equals the sum of its
# actors' rows (calls, errors, time) and no actor has a row the tally lacks.
sums_match() {
  jq -e --arg b "$2" '.backends[] | select(.name == $b)
    | ([.host[] | {key: .name, value: [.calls, .errors, .time_ns]}] | from_entries) as $host
    | ([.device[] | {key: (.kind + ":" + .name), value: [.calls, .errors, .time_ns]}]
       | from_entries) as $device
    | ([.actors[].host[]] | group_by(.name)
       | map({key: .[0].name, value: [(map(.calls) | add), (map(.errors) | add),
                                      (map(.time_ns) | add)]}) | from_entries) as $ahost
    | ([.actors[].device[]] | group_by(.kind + ":" + .name)
       | map({key: (.[0].kind + ":" + .[0].name),
              value: [(map(.calls) | add), (map(.errors) | add), (map(.time_ns) | add)]})
       | from_entries) as $adevice
    | $host == $ahost and $device == $adevice' "$1" >/dev/null ||
    fail "the actors of $2 do not add up to its tally: $(jq -c --arg b "$2" '.backends[]
      | select(.name == $b) | {host: [.host[] | {name, calls, time_ns}],
        actors: [.actors[] | {tid, host: [.host[] | {name, calls, time_ns}]}]}' "$1" | head -c 3000)"
}

case $view in
extended)
  run_plain plain "$app" 3
  expect_rc 0 plain
  run_traced live -e -j -o "$tmp/live.json" -- "$app" 3
  expect_rc 0 live
  sums_match "$tmp/live.json" opencl
  # One actor per thread that made calls: the main thread and its 4 workers, in one
  # process; as many as the tally's threads.
  jq -e '.backends[] | select(.name == "opencl")
      | ([.actors[] | select(.host | length > 0)]) as $callers
      | ($callers | length) == 5 and .threads == 5 and .processes == 1
        and ($callers | map(.tid) | unique | length) == 5
        and ($callers | map(.pid) | unique | length) == 1' "$tmp/live.json" >/dev/null ||
    fail "not one actor per thread of the app: $(jq -c '.backends[] | {threads, processes,
      actors: [.actors[] | {pid, tid, host: (.host | length), device: (.device | length)}]}' \
      "$tmp/live.json")"
  # The text tables: one host table per calling thread, each with its header.
  "$tracer" -r "$tmp/live.trace" -e -o "$tmp/replay.txt" 2>"$tmp/replay.err" ||
    fail "tracer -r -e: $(cat "$tmp/replay.err")"
  n=$(grep -Ec '^BACKEND_OPENCL \| Hostname [^|]+ \| Process [0-9]+ \| Thread [0-9]+ \|$' \
    "$tmp/replay.txt" || true)
  [ "$n" -eq 5 ] || fail "expected 5 per-thread host tables, got $n: $(grep '^BACKEND' "$tmp/replay.txt")"
  "$tracer" -r "$tmp/live.trace" -e -j -o "$tmp/replay.json" 2>"$tmp/replay.err" ||
    fail "tracer -r -e -j: $(cat "$tmp/replay.err")"
  jq -e -n --slurpfile a "$tmp/live.json" --slurpfile b "$tmp/replay.json" \
    '$a[0].backends == $b[0].backends' >/dev/null || fail "tracer -r -e gives other actors"
  # Without -e: no actors.
  "$tracer" -r "$tmp/live.trace" -j | jq -e '[.backends[] | has("actors")] | any | not' \
    >/dev/null || fail "actors without -e"
  echo "PASS: $e2e_name: extended: 5 threads, $(jq '[.backends[] | select(.name == "opencl")
    | .actors[].host[].calls] | add' "$tmp/live.json") calls split per thread add up"
  ;;
ranks)
  command -v "$1" >/dev/null 2>&1 || skip "no MPI launcher $1 (scripts/setup.sh installs it)"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACER_JOB_TIMEOUT=60
  backend=$(basename "$app" | sed 's/^mpi_app_\([a-z]*\)_.*/\1/')
  rc=0
  APP_SLOW_RANK=2 APP_MANIFEST="$tmp/job.manifest" "$@" -n 4 "$tracer" -j -e --ranks \
    -o "$tmp/job.json" --trace-output "$tmp/job.trace" "$app" >"$tmp/job.out" \
    2>"$tmp/job.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "job: exit status $rc: $(cat "$tmp/job.err")"
  [ -s "$tmp/job.json" ] || fail "job: no report from rank 0: $(cat "$tmp/job.err")"
  sums_match "$tmp/job.json" "$backend"
  # One actor per rank, each its own process.
  jq -e --arg b "$backend" '.backends[] | select(.name == $b)
      | (.actors | map(.rank) | sort) == [0, 1, 2, 3]
        and (.actors | map(.pid) | unique | length) == 4' "$tmp/job.json" >/dev/null ||
    fail "not one actor per rank: $(jq -c --arg b "$backend" '.backends[] | select(.name == $b)
      | [.actors[] | {rank, pid, tid}]' "$tmp/job.json")"
  # MPI_Barrier: the median of the ranks' own times (the actors'), and rank 2 the most
  # and a straggler.
  jq -e --arg b "$backend" '
      ([.backends[] | select(.name == $b) | .actors[] | .rank as $r
        | .host[] | select(.name == "MPI_Barrier") | {rank: $r, ns: .time_ns}]
       | sort_by(.ns) | map(.ns)) as $ns
      | (($ns[1] + $ns[2]) / 2 | floor) as $median
      | .job.per_rank.backends[] | select(.name == $b) | .calls[]
      | select(.name == "MPI_Barrier")
      | .ranks == 4 and .median_ns == $median and .max_rank == 2 and .min_ns == $ns[0]
        and .max_ns == $ns[3] and (.stragglers | map(.rank) | index(2)) != null' \
    "$tmp/job.json" >/dev/null ||
    fail "MPI_Barrier: not rank 2 as the straggler, or not the ranks' median: $(jq -c \
      '.job.per_rank.backends[].calls[] | select(.name == "MPI_Barrier")' "$tmp/job.json")"
  # The text view names it too; the same from the per-node results and from the events.
  "$tracer" -r "$tmp/job.trace" --ranks -e -o "$tmp/results.txt" 2>"$tmp/results.err" ||
    fail "replay --ranks: $(cat "$tmp/results.err")"
  grep -Eq '^MPI_Barrier +\|.*\| +2 \| +4 \| ([0-9, ]*, )?2(,|$| )' "$tmp/results.txt" ||
    fail "the text view does not name rank 2: $(grep -A4 '^Per-rank time' "$tmp/results.txt")"
  cp -R "$tmp/job.trace" "$tmp/events.trace"
  rm -rf "$tmp/events.trace/nodes" "$tmp/events.trace"/rank-*/tracer-result.txt
  "$tracer" -r "$tmp/events.trace" --ranks -e -o "$tmp/events.txt" 2>"$tmp/events.err" ||
    fail "replay from the events: $(cat "$tmp/events.err")"
  cmp -s "$tmp/results.txt" "$tmp/events.txt" ||
    fail "the views from the results differ from those from the events:
$(diff "$tmp/results.txt" "$tmp/events.txt" | head -20)"
  # Without the views, the report holds neither, and says how to get the per-rank one.
  "$tracer" -r "$tmp/job.trace" -o "$tmp/plain.txt" 2>/dev/null || fail "plain replay"
  ! grep -q '^Per-rank time (\|Rank [0-9]* | Hostname' "$tmp/plain.txt" &&
    grep -q -- '--ranks$' "$tmp/plain.txt" || fail "the plain report shows a view, or no hint"
  echo "PASS: $e2e_name: ranks: $backend, 4 ranks, MPI_Barrier straggler rank 2:" \
    "$(jq -c --arg b "$backend" '.job.per_rank.backends[] | select(.name == $b) | .calls[]
      | select(.name == "MPI_Barrier") | {median_ns, max_ns, stragglers}' "$tmp/job.json")"
  ;;
*)
  echo "usage: $0 extended|ranks TRACER APP [LAUNCHER...]" >&2
  exit 2
  ;;
esac
