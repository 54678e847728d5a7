#!/bin/sh
# The analysis shows its progress on stderr when stderr is a terminal, and prints nothing
# there when it is not (a file, a pipe): replay one trace both ways.
# Usage: progress_test.sh TRACER APP
set -eu
. "$(dirname "$0")/lib.sh"
e2e_setup
tracer=$(abspath "$1")
app=$(abspath "$2")
need_tracer "$tracer"
command -v script >/dev/null 2>&1 || skip "script (util-linux) not found"

set +e
"$tracer" -q --trace-output "$tmp/trace" -o /dev/null -- "$app" >/dev/null 2>"$tmp/run.err"
rc=$?
set -e
[ "$rc" -eq 77 ] && skip "no OpenCL platform"
[ "$rc" -eq 0 ] || fail "tracing the app failed ($rc): $(cat "$tmp/run.err")"

"$tracer" -r "$tmp/trace" -o "$tmp/tally.txt" 2>"$tmp/plain.err"
[ ! -s "$tmp/plain.err" ] || fail "stderr is a file, yet the tracer wrote: $(cat "$tmp/plain.err")"
grep -q "^BACKEND_OPENCL" "$tmp/tally.txt" || fail "no tally in the -o file"

# script(1) gives the command a terminal; what it wrote there comes back on stdout.
script -qec "'$tracer' -r '$tmp/trace' -o '$tmp/tally2.txt'" /dev/null >"$tmp/tty.out"
grep -q "analysing the trace: 100.0%" "$tmp/tty.out" ||
  fail "no progress line on a terminal: $(cat "$tmp/tty.out")"
cmp -s "$tmp/tally.txt" "$tmp/tally2.txt" || fail "the tally differs when stderr is a terminal"
echo "progress shown on a terminal, nothing on a file; same tally both ways"
