#!/bin/sh
# `tracer -l` on another backend's test app (Level Zero on the null driver, HIP and CUDA
# on their null libraries, OpenMP offload, MPI, ITT, NVTX): the timeline, read back by
# the tests' own decoder, against the app's own count of what it did and against the
# tally of the same trace.
# Usage: timeline_backend_test.sh BACKEND TRACER PFTRACE_DUMP [-n RANKS LAUNCHER] APP
#
# Checks (check_backend.jq):
#  - no slice lost or cut (pftrace_dump's check), every thread track under its process,
#    every process under a host; one process track per process (per rank under MPI), as
#    many thread tracks as the tally counts threads;
#  - calls per function on the thread tracks equal the app's count;
#  - device slices: kernels by name and copies by the device's name for them, as many
#    as the app launched and copied; each ends a flow that starts at exactly one call, a
#    call of the function the copy names;
#  - regions (ITT, NVTX): per name, the app's count, at the app's depth, each at least as
#    long as the app slept inside it; count, total, least and most equal to the tally's
#    regions (1 ns a region for rounding); each region inside one of the depth above on
#    its thread; at least half of them on their thread's own track with the call that
#    opened them nested inside (the others, whose opening call was written before the
#    timeline knew it opens regions, on a lane of that thread);
#  - read again, the tally and the timeline are the same on one thread and beside it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
e2e_dir=$(cd "$here/../e2e" && pwd) # merge.jq lives there
[ $# -ge 4 ] || { echo "usage: $0 BACKEND TRACER PFTRACE_DUMP [-n RANKS LAUNCHER] APP" >&2; exit 2; }
backend=$1
tracer=$(abspath "$2")
dump=$(abspath "$3")
shift 3
ranks=0
launcher=""
if [ "$1" = -n ]; then
  ranks=$2
  launcher=$3
  shift 3
  command -v "$launcher" >/dev/null 2>&1 || skip "no MPI launcher $launcher"
fi
app=$(abspath "$1")
e2e_setup
need_app "$app"
need_tracer "$tracer"

rc=0
if [ "$ranks" -gt 0 ]; then
  export TRACER_JOB_TIMEOUT=60 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  APP_MANIFEST="$tmp/traced.json" "$launcher" -n "$ranks" "$tracer" -q -l "$tmp/t.pftrace" \
    -j -o "$tmp/tally.json" --trace-output "$tmp/traced.trace" "$app" \
    >"$tmp/traced.out" 2>"$tmp/traced.err" || rc=$?
  [ -s "$tmp/traced.json.0" ] ||
    fail "the ranks wrote no manifests: $(cat "$tmp/traced.err")"
  merge_manifests "$tmp/traced.json" "$tmp/traced.json".*
else
  options=""
  [ "$backend" = omp ] && options="-b omp"
  # shellcheck disable=SC2086
  run_traced traced $options -l "$tmp/t.pftrace" -j -o "$tmp/tally.json" -- "$app"
fi
[ "$rc" -eq 77 ] && skip "the app found no $backend runtime"
expect_rc 0 traced
[ -s "$tmp/t.pftrace" ] || fail "no timeline written; stderr: $(cat "$tmp/traced.err")"
[ -s "$tmp/traced.json" ] || fail "the app wrote no manifest"
"$dump" -r "$tmp/t.pftrace" >"$tmp/dump.txt" 2>"$tmp/dump.err" ||
  fail "the timeline does not decode or check: $(cat "$tmp/dump.err")"
awk -f "$here/dump_to_json.awk" "$tmp/dump.txt" | jq -s . >"$tmp/dump.json" ||
  fail "cannot read the dump: $(head -5 "$tmp/dump.txt")"

problems=$(jq -r --arg backend "$backend" --argjson ranks "$ranks" \
  --slurpfile m "$tmp/traced.json" --slurpfile tally "$tmp/tally.json" \
  -f "$here/check_backend.jq" "$tmp/dump.json") || fail "jq failed on the dump"
if [ -n "$problems" ]; then
  echo "FAIL: $e2e_name: $backend: the timeline differs from what the app did:" >&2
  printf '%s\n' "$problems" | sed 's/^/  /' >&2
  exit 1
fi

# Read again with -l on one thread, and with the timeline and the reports that go with
# it on a thread beside the read (--threads 64: more than the read takes): the same
# tally (per-value rows and a message's bytes come from a call's record: the tally must
# stay where the events are) and the same timeline.
for t in 1 64; do
  "$tracer" -v -r "$tmp/traced.trace" --threads "$t" -l "$tmp/replay$t.pftrace" -j \
    -o "$tmp/replay$t.json" 2>"$tmp/replay$t.err" ||
    fail "tracer -r --threads $t -l failed: $(cat "$tmp/replay$t.err")"
done
grep -q '; on one more: .*timeline' "$tmp/replay64.err" ||
  fail "with --threads 64 the timeline did not run beside the read: $(grep 'read the' "$tmp/replay64.err")"
cmp -s "$tmp/replay1.json" "$tmp/replay64.json" || {
  diff "$tmp/replay1.json" "$tmp/replay64.json" | head -10 >&2
  fail "the tally read beside the timeline differs from one thread's"
}
cmp -s "$tmp/replay1.pftrace" "$tmp/replay64.pftrace" ||
  fail "the timeline written beside the read differs from one thread's"
echo "PASS: $e2e_name: $backend: $(tail -1 "$tmp/dump.txt" | sed 's/^check: ok, //'); the same on a thread beside the read"
