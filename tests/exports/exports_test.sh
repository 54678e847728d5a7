#!/bin/sh
# `--otf2 DIR` and `--flame FILE` on a test app (or an MPI job of it), read back by the
# tools people use, against the tally of the same trace.
# Usage: exports_test.sh TRACER [-n RANKS LAUNCHER] [-o "TRACER OPTIONS"] APP
#
# Checks:
#  - otf2-print (otf2-tools) reads the archive: every event and definition;
#  - otf2_check.py (OTF2's Python bindings, python3-otf2): enters per region equal the
#    tally's calls, device commands and regions, with the tally's times; MPI records per
#    function equal the calls and bytes of its message kind; every device command names
#    the enter of the call that submitted it; nesting and time order per location; with
#    RANKS, one process location group per rank and MPI_COMM_WORLD of RANKS ranks;
#  - flame_check.py: one line per distinct stack; the device-time file adds up to the
#    tally's device time per command, the host-time file to its time per API function;
#    with RANKS, the roots are the ranks;
#  - both checks fail on a tally with one call more of a function (they can fail);
#  - `tracer -r` on the saved trace (for a job: each rank's part from its trace, then the
#    job's) writes the same event files and the same folded stacks, and they check too.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 TRACER [-n RANKS LAUNCHER] [-o OPTIONS] APP" >&2; exit 2; }
tracer=$(abspath "$1")
shift
# shellcheck source=run_app.sh
. "$here/run_app.sh"
app_options "$@"
shift "$app_options_used"
app=$(abspath "$1")
e2e_setup
need_app "$app"
need_tracer "$tracer"
command -v otf2-print >/dev/null 2>&1 || fail "otf2-print not found (scripts/setup.sh installs otf2-tools)"
/usr/bin/python3 -c 'import otf2' 2>/dev/null ||
  fail "Debian's python3 cannot import otf2 (scripts/setup.sh installs python3-otf2)"

check_args=""
[ "$ranks" -gt 0 ] && check_args="--ranks $ranks"
# check NAME ARCHIVE FLAME TALLY: the archive and the stacks against the tally.
check() {
  otf2-print "$2/traces.otf2" >"$tmp/$1.print" 2>"$tmp/$1.print.err" ||
    fail "$1: otf2-print cannot read the archive: $(head -5 "$tmp/$1.print.err")"
  grep -q '^ENTER ' "$tmp/$1.print" || fail "$1: otf2-print shows no enter"
  # shellcheck disable=SC2086
  /usr/bin/python3 "$here/otf2_check.py" "$2" "$4" $check_args >"$tmp/$1.otf2" 2>&1 || {
    echo "FAIL: $e2e_name: $1: the OTF2 archive differs from the tally:" >&2
    sed 's/^/  /' "$tmp/$1.otf2" >&2
    exit 1
  }
  host=$(printf '%s\n' "$3" | sed 's/\.folded$/.host.folded/')
  # shellcheck disable=SC2086
  /usr/bin/python3 "$here/flame_check.py" "$3" "$host" "$4" $check_args >"$tmp/$1.flame" 2>&1 || {
    echo "FAIL: $e2e_name: $1: the folded stacks differ from the tally:" >&2
    sed 's/^/  /' "$tmp/$1.flame" >&2
    exit 1
  }
}

# The checks catch a difference: a tally with one more call of a function, and 1 us more
# of it, fails both.
tampered() {
  jq '.backends[0].host[0].calls += 1 | .backends[0].host[0].time_ns += 1000' "$3" \
    >"$tmp/tampered.json"
  host=$(printf '%s\n' "$2" | sed 's/\.folded$/.host.folded/')
  # shellcheck disable=SC2086
  if /usr/bin/python3 "$here/otf2_check.py" "$1" "$tmp/tampered.json" $check_args >/dev/null 2>&1 ||
     /usr/bin/python3 "$here/flame_check.py" "$2" "$host" "$tmp/tampered.json" $check_args \
       >/dev/null 2>&1; then
    fail "a tally with one call more still passes the checks"
  fi
}

exports="--otf2 $tmp/otf2 --flame $tmp/stacks.folded -j -o $tmp/tally.json"
# shellcheck disable=SC2086
run_app $exports -- "$app"
[ -s "$tmp/otf2/traces.otf2" ] || fail "no OTF2 archive written; stderr: $(cat "$tmp/traced.err")"
check run "$tmp/otf2" "$tmp/stacks.folded" "$tmp/tally.json"
tampered "$tmp/otf2" "$tmp/stacks.folded" "$tmp/tally.json"

# The replay writes the same archive and stacks from the saved trace.
# shellcheck disable=SC2086
"$tracer" -q -r "$tmp/traced.trace" --otf2 "$tmp/replay" --flame "$tmp/replay.folded" -j \
  -o "$tmp/tally-replay.json" 2>"$tmp/replay.err" ||
  fail "tracer -r with the exports failed: $(cat "$tmp/replay.err")"
check replay "$tmp/replay" "$tmp/replay.folded" "$tmp/tally-replay.json"
for f in "$tmp"/otf2/traces/*.evt; do
  cmp -s "$f" "$tmp/replay/traces/$(basename "$f")" ||
    fail "the replay wrote other events for location $(basename "$f" .evt)"
done
[ "$(ls "$tmp/otf2/traces" | grep -c '\.evt$')" = "$(ls "$tmp/replay/traces" | grep -c '\.evt$')" ] ||
  fail "the replay wrote another number of locations"
cmp -s "$tmp/stacks.folded" "$tmp/replay.folded" && cmp -s "$tmp/stacks.host.folded" "$tmp/replay.host.folded" ||
  fail "the replay wrote other folded stacks"
echo "PASS: $e2e_name: $(basename "$app")${launcher:+ ($ranks ranks, $launcher)}: $(cat "$tmp/run.otf2"); flame $(cat "$tmp/run.flame")"
