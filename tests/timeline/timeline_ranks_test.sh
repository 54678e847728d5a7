#!/bin/sh
# `LAUNCHER -n 2 tracer -l FILE APP` (an MPI job, tests/mpi/mpi_app.c): each rank writes
# the timeline of its own trace, rank 0 joins them without reading an event again, and
# the ranks' clocks agree.
# Usage: timeline_ranks_test.sh TRACER PFTRACE_DUMP LAUNCHER APP
#
# Checks:
#  - FILE is exactly the ranks' own timelines (JOB/rank-N/timeline.pftrace) one after
#    the other, and decodes with no slice lost or cut;
#  - one host track; under it one process track per rank named "rank N (HOST)", each
#    with its thread, and no track uuid twice;
#  - calls per function on each rank's threads equal that rank's own count;
#  - clocks: every slice lies between the test's wall-clock times before and after the
#    job (times are wall-clock nanoseconds); no rank leaves MPI_Barrier before every
#    rank has entered it, within 100 us (the error of the per-trace clock offsets on
#    one host); the ranks leave it within 50 ms of each other (a loaded 2-core machine
#    may not run a rank that polls at once).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -eq 4 ] || { echo "usage: $0 TRACER PFTRACE_DUMP LAUNCHER APP" >&2; exit 2; }
tracer=$(abspath "$1")
dump=$(abspath "$2")
launcher=$3
app=$(abspath "$4")
command -v "$launcher" >/dev/null 2>&1 || skip "no MPI launcher $launcher"
e2e_setup
need_app "$app"
need_tracer "$tracer"
ranks=2

export TRACER_JOB_TIMEOUT=60
before=$(date +%s%N)
rc=0
APP_MANIFEST="$tmp/m" "$launcher" -n $ranks "$tracer" -q -l "$tmp/job.pftrace" -o /dev/null \
  --trace-output "$tmp/job" "$app" >"$tmp/job.out" 2>"$tmp/job.err" || rc=$?
after=$(date +%s%N)
[ "$rc" -eq 0 ] || fail "the job exited $rc: $(cat "$tmp/job.err")"
[ -s "$tmp/job.pftrace" ] || fail "no job timeline: $(cat "$tmp/job.err")"

cat "$tmp/job/rank-0/timeline.pftrace" "$tmp/job/rank-1/timeline.pftrace" >"$tmp/ranks.pftrace" ||
  fail "a rank wrote no timeline of its own"
cmp -s "$tmp/ranks.pftrace" "$tmp/job.pftrace" ||
  fail "the job's timeline is not the ranks' own ones joined"
"$dump" "$tmp/job.pftrace" >"$tmp/dump.txt" 2>"$tmp/dump.err" ||
  fail "the job's timeline does not decode or check: $(cat "$tmp/dump.err")"
awk -f "$here/dump_to_json.awk" "$tmp/dump.txt" | jq -s . >"$tmp/dump.json" ||
  fail "cannot read the dump"
jq -s '.' "$tmp"/m.* >"$tmp/manifests.json" || fail "the ranks wrote no manifests"

# Times are compared as strings of digits turned into numbers in jq: wall-clock ns
# (about 1.8e18) lose their last bits as doubles, well below the bounds checked.
problems=$(jq -r --slurpfile m "$tmp/manifests.json" --argjson ranks $ranks \
  --argjson before "$before" --argjson after "$after" '
  [.[] | select(.type == "track")] as $tracks
  | ($tracks | map({key: (.uuid | tostring), value: .}) | from_entries) as $by
  | [.[] | select(.type == "slice")] as $slices
  | [$tracks[] | select(.kind == "p")] as $procs
  | [ (if ([$tracks[] | select(.parent == "0")] | length) != 1 then "\([$tracks[] | select(.parent == "0")] | length) host tracks, want 1" else empty end),
      (if ($tracks | map(.uuid) | unique | length) != ($tracks | length) then "a track uuid is used twice" else empty end),
      (if ($procs | length) != $ranks then "\($procs | length) process tracks, want \($ranks)" else empty end),
      ($m[0][] | . as $rank
       | [$procs[] | select(.name | test("^rank \($rank.rank) \\(.+\\)$"))] as $p
       | if ($p | length) != 1 then "rank \($rank.rank): \($p | length) process tracks named for it"
         else
           ($p[0].uuid | tostring) as $puuid
           | [$tracks[] | select(.kind == "t" and .parent == $puuid) | .uuid | tostring] as $threads
           | ([$slices[] | select((.track | tostring) as $t | $threads | index($t))]
              | reduce .[] as $s ({}; .[$s.name] += 1)) as $got
           | ($rank.calls | to_entries[] | select(($got[.key] // 0) != .value)
              | "rank \($rank.rank): \($got[.key] // 0) slices of \(.key), it made \(.value)")
         end),
      ($slices[] | select(.start < $before or .end > $after)
       | "slice \(.name) at \(.start) outside the job (\($before) to \($after))"),
      ([$slices[] | select(.name == "MPI_Barrier")] as $b
       | if ($b | length) != $ranks then "\($b | length) MPI_Barrier slices, want \($ranks)"
         elif ($b | map(.end) | min) < ($b | map(.start) | max) - 100000 then
           "a rank left MPI_Barrier \((($b | map(.start) | max) - ($b | map(.end) | min)) / 1000) us before the last one entered"
         elif (($b | map(.end) | max) - ($b | map(.end) | min)) > 50000000 then
           "the ranks left MPI_Barrier \((($b | map(.end) | max) - ($b | map(.end) | min)) / 1000000) ms apart"
         else empty end)
    ] | .[]' "$tmp/dump.json") || fail "jq failed on the dump"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: the job's timeline:" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi
spread=$(jq '[.[] | select(.type == "slice" and .name == "MPI_Barrier") | .end] | (max - min) / 1000 | floor' "$tmp/dump.json")
echo "PASS: $e2e_name: $ranks ranks joined, MPI_Barrier exits ${spread} us apart"
