#!/bin/sh
# `--otf2 DIR` on an MPI job of tests/mpi/otf2_comms_app.c: its communicators, messages,
# completions through arrays of requests, RMA operations and synchronization, record by
# record against what the app is known to do (otf2_comms_check.py), and the archive
# against the tally as for every job (otf2_check.py).
# Usage: otf2_comms_test.sh TRACER RANKS LAUNCHER APP
#
# Checks:
#  - the job's archive, as written at the end of the run, and as `tracer -r` writes it
#    again from the saved trace with decoding threads of its own (--threads 3: the
#    runtime's events reach the export through prepare_other) pass both checks;
#  - the checks can fail: a tally with one MPI_Sendrecv more fails both, and the
#    pattern of one rank more fails otf2_comms_check.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -eq 4 ] || { echo "usage: $0 TRACER RANKS LAUNCHER APP" >&2; exit 2; }
tracer=$(abspath "$1")
# shellcheck source=run_app.sh
. "$here/run_app.sh"
app_options -n "$2" "$3" "$4"
app=$(abspath "$4")
e2e_setup
need_app "$app"
need_tracer "$tracer"
/usr/bin/python3 -c 'import otf2' 2>/dev/null ||
  fail "Debian's python3 cannot import otf2 (scripts/setup.sh installs python3-otf2)"

# check NAME ARCHIVE TALLY: both checks of the archive.
check() {
  /usr/bin/python3 "$here/otf2_check.py" "$2" "$3" --ranks "$ranks" >"$tmp/$1.generic" 2>&1 || {
    echo "FAIL: $e2e_name: $1: the OTF2 archive differs from the tally:" >&2
    sed 's/^/  /' "$tmp/$1.generic" >&2
    exit 1
  }
  /usr/bin/python3 "$here/otf2_comms_check.py" "$2" "$3" --ranks "$ranks" >"$tmp/$1.comms" 2>&1 || {
    echo "FAIL: $e2e_name: $1: the OTF2 archive differs from what the app did:" >&2
    sed 's/^/  /' "$tmp/$1.comms" >&2
    exit 1
  }
}

run_app --otf2 "$tmp/otf2" -j -o "$tmp/tally.json" -- "$app"
[ -s "$tmp/otf2/traces.otf2" ] || fail "no OTF2 archive written; stderr: $(cat "$tmp/traced.err")"
check run "$tmp/otf2" "$tmp/tally.json"

# The checks can fail.
jq '(.backends[0].host[] | select(.name == "MPI_Sendrecv") | .calls) += 1' "$tmp/tally.json" \
  >"$tmp/tampered.json"
for script in otf2_check.py otf2_comms_check.py; do
  if /usr/bin/python3 "$here/$script" "$tmp/otf2" "$tmp/tampered.json" --ranks "$ranks" \
    >"$tmp/tampered.out" 2>&1; then
    fail "$script passes a tally with one MPI_Sendrecv more"
  fi
done
if /usr/bin/python3 "$here/otf2_comms_check.py" "$tmp/otf2" "$tmp/tally.json" \
  --ranks "$ranks" --pattern-ranks $((ranks + 2)) >"$tmp/tampered.out" 2>&1; then
  fail "otf2_comms_check.py passes the pattern of $((ranks + 2)) ranks"
fi

# The replay, decoding on threads of its own, writes what checks the same.
"$tracer" -q -r "$tmp/traced.trace" --threads 3 --otf2 "$tmp/replay" -j \
  -o "$tmp/tally-replay.json" 2>"$tmp/replay.err" ||
  fail "tracer -r with --otf2 failed: $(cat "$tmp/replay.err")"
check replay "$tmp/replay" "$tmp/tally-replay.json"
echo "PASS: $e2e_name: $(basename "$app") ($ranks ranks, $launcher): $(cat "$tmp/run.comms")"
