#!/bin/sh
# The tracer's own messages by level (common/log.h): errors always; -q errors only; the
# default adds what was done (trace saved, timeline written); -v adds debug lines (the
# backends preloaded, the events enabled, the reports and exports a replay runs). The
# exit statuses stay those --help documents.
# Usage: log_levels_test.sh TRACER APP
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$app"

run_traced verbose -v -b opencl -o /dev/null -- "$app"
[ "$rc" -eq 77 ] && skip "no OpenCL runtime"
expect_rc 0 verbose
for line in "tracer: debug: backend opencl: " "tracer: debug: events: lttng_ust_opencl:" \
            "tracer: debug: trace folder: $tmp/verbose.trace" "tracer: trace saved in "; do
  grep -q "^$line" "$tmp/verbose.err" || fail "-v: no line '$line' in: $(cat "$tmp/verbose.err")"
done
trace=$tmp/verbose.trace
level_run() { # NAME TRACER-OPTIONS...: a replay, stderr in $tmp/NAME.err, status in $rc
  name=$1
  shift
  rc=0
  "$tracer" -r "$trace" "$@" >/dev/null 2>"$tmp/$name.err" || rc=$?
}
level_run default -l "$tmp/t.pftrace"
expect_rc 0 default
grep -q '^tracer: timeline: ' "$tmp/default.err" || fail "no timeline line by default"
grep -q 'debug:' "$tmp/default.err" && fail "debug lines without -v: $(cat "$tmp/default.err")"
level_run quiet -q -l "$tmp/t.pftrace"
expect_rc 0 quiet
[ -s "$tmp/quiet.err" ] && fail "-q still said: $(cat "$tmp/quiet.err")"
level_run debug -v -l "$tmp/t.pftrace"
expect_rc 0 debug
for output in "report tally" "report gaps" "export perfetto"; do
  grep -q "^tracer: debug: $output " "$tmp/debug.err" || fail "-v does not name $output"
done
# Errors get through -q, with the status --help gives for them.
level_run error -q --csv "$tmp/no-such-dir/x.csv"
expect_rc 4 error
grep -q '^tracer: error: Cannot write the CSV tally: ' "$tmp/error.err" ||
  fail "-q hid the error: $(cat "$tmp/error.err")"
level_run usage -q -t -j
expect_rc 2 usage
grep -q '^tracer: error: -t and -j cannot be used together' "$tmp/usage.err" ||
  fail "no usage error: $(cat "$tmp/usage.err")"
echo "PASS: $e2e_name: errors always, -q errors only, info by default, debug with -v"
