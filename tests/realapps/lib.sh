# Shared by the real-application tests (sourced, POSIX sh, after ../e2e/lib.sh and
# e2e_setup): programs from Debian's packages that nobody wrote for the tracer, traced as
# their users run them, and held to a count the tracer did not make.

# Open MPI refuses root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TRACER_JOB_TIMEOUT=60

# need_program PROGRAM PACKAGE: skips the test when PROGRAM is missing.
need_program() {
  [ -x "$1" ] || command -v "$1" >/dev/null 2>&1 ||
    skip "no $1 (Debian's $2, which scripts/setup.sh installs)"
}

# run_counted NAME N TRACER-OPTIONS... -- APP [ARGS...]: runs APP on N ranks of Open MPI
# under the tracer, with the counting library (call_count.c, $counter) preloaded ahead
# of the tracer's libraries: the job's JSON report in $tmp/NAME.json, its text report in
# $tmp/NAME.txt, each process's count in $tmp/NAME.counts/PID.
run_counted() {
  name=$1
  n=$2
  shift 2
  opts=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    opts="$opts $1"
    shift
  done
  shift
  mkdir -p "$tmp/$name.counts"
  rc=0
  # The app starts through sh, which puts the counter first in the LD_PRELOAD the tracer
  # gave it; sh links no MPI library: the tracer picks Open MPI from the launcher.
  # shellcheck disable=SC2086,SC2016,SC2154 # $counter is the test's
  COUNTER=$counter COUNT_DIR=$tmp/$name.counts mpirun.openmpi --oversubscribe -n "$n" "$tracer" -q -j -o "$tmp/$name.json" \
    --trace-output "$tmp/$name.trace" $opts sh -c \
    'LD_PRELOAD=$COUNTER${LD_PRELOAD:+:$LD_PRELOAD} CALL_COUNT_DIR=$COUNT_DIR exec "$@"' sh "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "$name: exit status $rc: $(tail -20 "$tmp/$name.err")"
  [ -s "$tmp/$name.json" ] || fail "$name: no report from rank 0: $(tail -20 "$tmp/$name.err")"
  "$tracer" -r "$tmp/$name.trace" -o "$tmp/$name.txt" 2>>"$tmp/$name.err" ||
    fail "$name: no text report from the job folder: $(tail -5 "$tmp/$name.err")"
}

# check_counted NAME BACKEND...: every function of those backends in the report has the
# calls the counting library counted over the job's processes, and every function it
# counted is in the report with as many.
check_counted() {
  name=$1
  shift
  cat "$tmp/$name.counts"/* 2>/dev/null |
    awk '{ n[$1] += $2 } END { for (f in n) print f, n[f] }' | sort >"$tmp/$name.counted"
  [ -s "$tmp/$name.counted" ] || fail "$name: the counting library counted nothing"
  backends=$(printf '"%s",' "$@")
  jq -r --argjson b "[${backends%,}]" \
    '.backends[] | select(.name as $n | $b | index($n)) | .host[] | "\(.name) \(.calls)"' \
    "$tmp/$name.json" | sort >"$tmp/$name.traced"
  if ! cmp -s "$tmp/$name.counted" "$tmp/$name.traced"; then
    fail "$name: the report differs from the counting library's count (< counted, > traced):
$(diff "$tmp/$name.counted" "$tmp/$name.traced" | grep '^[<>]' | head -20)"
  fi
  echo "$name: $(wc -l <"$tmp/$name.traced") functions, $(awk '{ s += $2 } END { print s }' \
    "$tmp/$name.traced") calls, as counted"
}

# check_rank_regions REPORT MANIFEST...: the report's regions (every backend's, by name)
# are those the ranks counted themselves (torch_ddp.py's $APP_MANIFEST.RANK); the
# expected and actual counts left in $tmp/expected.json and $tmp/actual.json.
check_rank_regions() {
  report=$1
  shift
  jq -s 'map(.regions | to_entries) | add | group_by(.key) | map({(.[0].key): (map(.value) | add)}) | add' \
    "$@" >"$tmp/expected.json"
  jq '[.backends[] | .regions[]? | {(.name): .calls}] | add' "$report" >"$tmp/actual.json"
  jq -e --slurpfile e "$tmp/expected.json" '. == $e[0]' "$tmp/actual.json" >/dev/null ||
    fail "the regions differ from the ranks' own count:
expected $(jq -c . "$tmp/expected.json")
got      $(jq -c . "$tmp/actual.json")"
}

# check_rank_tracks PFTRACE DUMP PROCESSES MANIFEST...: the timeline decodes (DUMP is
# pftrace_dump), has PROCESSES process tracks, and one per rank named "rank N (HOST)"
# holding a slice for each region the rank opened.
check_rank_tracks() {
  pftrace=$1 dump=$2 processes=$3
  shift 3
  [ -s "$pftrace" ] || fail "no timeline"
  "$dump" "$pftrace" >"$tmp/dump.txt" 2>"$tmp/dump.err" ||
    fail "the timeline does not decode: $(cat "$tmp/dump.err")"
  awk -f "$e2e_dir/../timeline/dump_to_json.awk" "$tmp/dump.txt" | jq -s . >"$tmp/dump.json"
  jq -s '.' "$@" >"$tmp/manifests.json"
  problems=$(jq -r --slurpfile m "$tmp/manifests.json" --argjson want "$processes" '
    [.[] | select(.type == "track")] as $tracks
    | [.[] | select(.type == "slice")] as $slices
    | [$tracks[] | select(.kind == "p")] as $procs
    | [ (if ($procs | length) != $want then "\($procs | length) process tracks, want \($want)" else empty end),
        ($m[0][] | . as $rank
         | [$procs[] | select(.name | test("^rank \($rank.rank) \\(.+\\)$"))] as $p
         | if ($p | length) != 1 then "rank \($rank.rank): \($p | length) process tracks named for it"
           else
             ($p[0].uuid | tostring) as $puuid
             | [$tracks[] | select(.parent == $puuid) | .uuid | tostring] as $below
             | ([$slices[] | select((.track | tostring) as $t | $below | index($t))]
                | reduce .[] as $s ({}; .[$s.name] += 1)) as $got
             | ($rank.regions | to_entries[] | select(($got[.key] // 0) != .value)
                | "rank \($rank.rank): \($got[.key] // 0) slices of region \(.key), it opened \(.value)")
           end)
      ] | .[]' "$tmp/dump.json") || fail "cannot check the timeline"
  [ -z "$problems" ] || fail "the timeline:
$problems"
}
