#!/bin/sh
# Polls at the cost of counting (docs/spec-format.md, trace.polls): polls_app.c's two
# ranks make MPI_Test and MPI_Iprobe calls that find nothing, then one that finds
# something, under the real launcher. The tally counts every call the ranks counted; the
# trace holds one event per call that found something, and its `polls` slot (-t) the
# calls that found nothing before it, and the tally their time (polls are timed one in
# 16); with --every-call, every call is an event.
# Usage: polls_test.sh TRACER APP LAUNCHER [LAUNCHER-OPTIONS...]
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -ge 3 ] || { echo "usage: $0 TRACER APP LAUNCHER [OPTIONS...]" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
shift 2
command -v "$1" >/dev/null 2>&1 || skip "no MPI launcher $1 (scripts/setup.sh installs it)"
e2e_setup
need_tracer "$tracer"
need_app "$app"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACER_JOB_TIMEOUT=60

# run NAME [TRACER-OPTIONS...]: the job's report in $tmp/NAME.json, its trace in
# $tmp/NAME.trace, the ranks' counts in $tmp/NAME.manifest.RANK.
run() {
  name=$1
  shift
  APP_POLLS=2000 APP_MANIFEST="$tmp/$name.manifest" "$launcher" $launcher_options -n 2 \
    "$tracer" -j -o "$tmp/$name.json" --trace-output "$tmp/$name.trace" "$@" "$app" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || fail "$name: $(cat "$tmp/$name.err")"
  for r in 0 1; do
    [ -s "$tmp/$name.manifest.$r" ] || fail "$name: rank $r wrote no count"
  done
}
# total NAME FIELD FUNCTION: the ranks' count.
total() {
  jq -s --arg f "$3" "map(.$2[\$f]) | add" "$tmp/$1.manifest.0" "$tmp/$1.manifest.1"
}
# tallied NAME FUNCTION: the calls the job's report counts.
tallied() {
  jq --arg f "$2" '[.backends[].host[] | select(.name == $f) | .calls] | add // 0' \
    "$tmp/$1.json"
}
# timed NAME FUNCTION: the time the job's report gives the function's calls, in ns.
timed() {
  jq --arg f "$2" '[.backends[].host[] | select(.name == $f) | .time_ns] | add // 0' \
    "$tmp/$1.json"
}
# lines NAME FUNCTION: the events -t prints of the function (their exit lines); folded
# NAME FUNCTION: the sum of their polls slots.
text() {
  [ -s "$tmp/$1.txt" ] || "$tracer" -t -r "$tmp/$1.trace" >"$tmp/$1.txt" 2>"$tmp/$1.txt.err" ||
    fail "$1: tracer -t -r: $(cat "$tmp/$1.txt.err")"
}
lines() {
  text "$1"
  grep -c ":$2_exit: " "$tmp/$1.txt" || true
}
folded() {
  text "$1"
  grep ":$2_exit: " "$tmp/$1.txt" | sed -n 's/.*[ ,(]polls[ =:]*\([0-9][0-9]*\).*/\1/p' |
    awk '{n += $1} END {print n + 0}'
}

# ordered NAME: fails unless each thread's calls in -t follow one another: a call's entry
# no earlier than the previous call's exit (polls_app nests no traced call). The start of a
# call that found something is estimated unless the poll was timed (one in 16), and must
# never precede the thread's previous call.
ordered() {
  text "$1"
  awk '/_(entry|exit): / && !/ lttng_ust_tracer:/ {
    split($1, clock, /[:.]/)
    t = ((clock[1] * 60 + clock[2]) * 60 + clock[3]) * 1000000000 + clock[4]
    tid = $0; sub(/.*tid: /, "", tid); sub(/[^0-9].*/, "", tid)
    if (tid in last && t < last[tid] && last[tid] - t < 43200 * 1000000000) {
      print "thread " tid ": " $1 " comes before " at[tid] ": " $0
      bad = 1
    }
    last[tid] = t; at[tid] = $1
  } END { exit bad }' "$tmp/$1.txt" >"$tmp/$1.order" ||
    fail "$1: calls out of their thread's order: $(head -3 "$tmp/$1.order")"
}

launcher=$1
shift
launcher_options="$*"

run folded
for f in MPI_Test MPI_Iprobe; do
  calls=$(total folded calls $f)
  empty=$(total folded not_ready $f)
  [ "$empty" -gt 0 ] || fail "folded: the ranks made no $f call that found nothing"
  [ "$(tallied folded $f)" = "$calls" ] ||
    fail "folded: $f: the tally counts $(tallied folded $f) calls, the ranks made $calls"
  [ "$(lines folded $f)" = $((calls - empty)) ] ||
    fail "folded: $f: $(lines folded $f) events, the ranks made $((calls - empty)) calls that found something"
  [ "$(folded folded $f)" = "$empty" ] ||
    fail "folded: $f: the events say they folded $(folded folded $f) polls, the ranks made $empty"
  # Polls are timed one in 16 (tracer_poll_timed): the tally still gives them their time.
  [ "$(timed folded $f)" -gt 0 ] || fail "folded: $f: the tally gives its calls no time"
done
ordered folded

run every --every-call
for f in MPI_Test MPI_Iprobe; do
  calls=$(total every calls $f)
  [ "$(tallied every $f)" = "$calls" ] ||
    fail "every: $f: the tally counts $(tallied every $f) calls, the ranks made $calls"
  [ "$(lines every $f)" = "$calls" ] ||
    fail "every: $f: $(lines every $f) events with --every-call, the ranks made $calls calls"
done
echo "PASS: $e2e_name"
