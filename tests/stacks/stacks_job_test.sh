#!/bin/sh
# The top source lines of an MPI job's report (docs/analysis-output.md), against its ranks'
# own. Usage: stacks_job_test.sh TRACER LAUNCHER [LAUNCHER-OPTIONS...]
#
# Three ranks under the real launcher run stacks_ranks.py (ctypes on PoCL, Debian's
# python3), each launching kernels from Python lines of its own, as many steps as its rank
# plus 4: every rank from common(), the even ranks two kernels from even(), the odd ones
# from odd(). The job's report has a Top source lines table whose every row is the sum of
# the ranks' rows of that line (`tracer -r JOB/rank-N`), worked out by stacks_job_check.py
# from the ranks' tables, their saved results and what their programs did: commands,
# device time, the ranks it ran in, the most of one and its rank, the kernels, the total;
# `tracer -r JOB` prints the same table from the saved results, and from the ranks' events
# alone once the results are gone. The check fails on a job's table with one command more.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 TRACER LAUNCHER [OPTIONS...]" >&2; exit 2; }
tracer=$(abspath "$1")
shift
command -v "$1" >/dev/null 2>&1 || skip "no MPI launcher $1 (scripts/setup.sh installs it)"
launcher=$1
shift
launcher_options="$*" # a word each, no spaces (--oversubscribe)
e2e_name="stacks_job_$(basename "$launcher" | sed 's/.*\.//')"
e2e_setup
need_tracer "$tracer"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACER_JOB_TIMEOUT=100
ranks=3

rc=0
# shellcheck disable=SC2086 # the launcher's options, a word each
timeout -k 5 250 "$launcher" $launcher_options -n $ranks "$tracer" --trace-output "$tmp/job" \
  -o "$tmp/job.txt" /usr/bin/python3 "$here/stacks_ranks.py" "$tmp/expect" 4 \
  >"$tmp/job.out" 2>"$tmp/job.err" || rc=$?
grep -q "SKIP: no OpenCL platform" "$tmp/job.out" && skip "no OpenCL runtime"
[ "$rc" -eq 0 ] || fail "the job exited $rc: $(tail -20 "$tmp/job.err")"

# section FILE: the report's Top source lines table.
section() { sed -n '/^Top source lines/,/^$/p' "$1"; }

args=""
r=0
while [ $r -lt $ranks ]; do
  "$tracer" -q -r "$tmp/job/rank-$r" -o "$tmp/rank-$r.txt" 2>"$tmp/rank-$r.err" ||
    fail "tracer -r JOB/rank-$r: $(cat "$tmp/rank-$r.err")"
  args="$args --rank $tmp/rank-$r.txt $tmp/job/rank-$r/tracer-result.txt $tmp/expect.$r"
  r=$((r + 1))
done
# shellcheck disable=SC2086 # the arguments, a word each
/usr/bin/python3 "$here/stacks_job_check.py" --job "$tmp/job.txt" $args >"$tmp/check.out" 2>&1 ||
  fail "the job's top source lines are not its ranks' added up:
$(sed 's/^/  /' "$tmp/check.out")
$(section "$tmp/job.txt")"

# The replay: from the saved results, then from the ranks' events alone.
"$tracer" -q -r "$tmp/job" -o "$tmp/replay.txt" 2>"$tmp/replay.err" ||
  fail "tracer -r JOB: $(cat "$tmp/replay.err")"
[ "$(section "$tmp/replay.txt")" = "$(section "$tmp/job.txt")" ] ||
  fail "tracer -r JOB prints another table: $(section "$tmp/replay.txt")"
rm -f "$tmp"/job/nodes/*.result "$tmp"/job/rank-*/tracer-result.txt
"$tracer" -q -r "$tmp/job" -o "$tmp/events.txt" 2>"$tmp/events.err" ||
  fail "tracer -r JOB without results: $(cat "$tmp/events.err")"
[ "$(section "$tmp/events.txt")" = "$(section "$tmp/job.txt")" ] ||
  fail "tracer -r JOB from the ranks' events prints another table: $(section "$tmp/events.txt")"

# The check can fail: a job's table with one command more on its first line.
awk '/^Top source lines/ { t = 1 } t && /^stacks_ranks\.py/ && !done { n = split($0, c, "|");
       c[4] = sprintf(" %8d ", c[4] + 1); s = c[1]; for (i = 2; i <= n; i++) s = s "|" c[i];
       $0 = s; done = 1 } { print }' "$tmp/job.txt" >"$tmp/tampered.txt"
# shellcheck disable=SC2086
if /usr/bin/python3 "$here/stacks_job_check.py" --job "$tmp/tampered.txt" $args >/dev/null 2>&1; then
  fail "a job's table with one command more still passes the check"
fi
echo "PASS: $e2e_name: $(cat "$tmp/check.out")"
