#!/bin/sh
# A short-lived app loses no event: the end of a run does not wait for LTTng's fixed
# intervals (the data-pending poll, the destruction's check of the last trace chunk, a
# private daemon's own exit: cli/control/session_flush.h, daemon_end.h), so this checks
# that what the tracer reads, and what stays on disk after it returned, is every call.
# loop_app makes CALLS calls of clGetPlatformIDs and exits at once; each run gets another
# count, in default and minimal mode, on the daemon a run finds or starts as this user
# (root's, shared and left running) and, as root, also as nobody (a daemon private to
# each run, ended when the run ends). Per run: exit status 0; the tally has the app's
# calls and no loss; babeltrace2, reading the trace once the tracer has returned, finds
# every call; a private daemon is gone with everything that names its folder.
# Usage: short_run_test.sh TRACER LOOP_APP
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER LOOP_APP" >&2; exit 2; }
tracer=$(abspath "$1")
loop_app=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$loop_app"
command -v babeltrace2 >/dev/null 2>&1 || fail "babeltrace2 not found (scripts/setup.sh installs it)"
"$loop_app" 1 >/dev/null 2>&1 || {
  [ $? -eq 77 ] && skip "no OpenCL platform"
  fail "loop_app does not run untraced"
}

users=self
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && ! nobody_can_run "$tracer"; then
  echo "note: the runs as nobody are left out: $nobody_why"
elif [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  users="self nobody"
  chmod 755 "$tmp"
  mkdir "$tmp/nobody"
  chown nobody "$tmp/nobody"
  # The PoCL cache must be writable by nobody: a private one.
  mkdir "$tmp/nobody/pocl"
  chown nobody "$tmp/nobody/pocl"
fi

# calls_in_trace DIR: the clGetPlatformIDs calls babeltrace2 reads in DIR (one event per
# call in default mode; in minimal mode each `call` event holds a batch of calls, counted
# by the tally only, so minimal runs check the event count against the tally's events).
events_in_trace() {
  babeltrace2 "$1" 2>"$tmp/bt2.err" | grep -c "$2" || true
}

runs=0
for user in $users; do
  as=env
  where=$tmp
  if [ "$user" = nobody ]; then
    as="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$tmp/nobody POCL_CACHE_DIR=$tmp/nobody/pocl"
    where=$tmp/nobody
  fi
  # Counts from one call to ten thousand: the last events of each run are written a few
  # microseconds before the app exits.
  for calls in 1 7 130 2400 10000; do
    for mode in default minimal; do
      runs=$((runs + 1))
      trace=$where/run-$runs
      rc=0
      # shellcheck disable=SC2086 # $as is a command prefix
      $as "$tracer" -v -m "$mode" -b opencl --trace-output "$trace" -j -o "$where/run-$runs.json" \
        -- "$loop_app" "$calls" >"$tmp/run-$runs.out" 2>"$tmp/run-$runs.err" || rc=$?
      if [ "$rc" -ne 0 ]; then
        sed 's/^/    /' "$tmp/run-$runs.err" >&2
        fail "$user, $mode, $calls calls: the tracer exited $rc"
      fi
      json=$where/run-$runs.json
      got=$(jq '[.backends[] | select(.name == "opencl") | .host[] |
                  select(.name == "clGetPlatformIDs") | .calls] | add // 0' "$json")
      [ "$got" = "$calls" ] ||
        fail "$user, $mode: the app made $calls calls, the tally counts $got"
      lost=$(jq '.discarded_events' "$json")
      [ "$lost" = 0 ] || fail "$user, $mode, $calls calls: $lost events discarded"
      # The trace as it stays on disk once the tracer returned.
      if [ "$mode" = default ]; then
        on_disk=$(events_in_trace "$trace" 'lttng_ust_opencl:clGetPlatformIDs:')
        [ "$on_disk" = "$calls" ] ||
          fail "$user, $mode: the app made $calls calls, babeltrace2 reads $on_disk after the run$(sed 's/^/ /' "$tmp/bt2.err" | head -3)"
      else
        events=$(jq '.events' "$json")
        on_disk=$(babeltrace2 "$trace" 2>"$tmp/bt2.err" | wc -l)
        [ "$on_disk" = "$events" ] ||
          fail "$user, $mode, $calls calls: the tally read $events events, babeltrace2 reads $on_disk after the run"
      fi
      # A daemon private to the run is gone, and so is everything that names its folder.
      home=$(sed -n 's/^tracer: debug: session daemon: \(\/.*\)$/\1/p' "$tmp/run-$runs.err")
      if [ -n "$home" ]; then
        [ ! -e "$home" ] || fail "$user: the run's daemon folder $home is still there"
        for p in /proc/[0-9]*; do
          if grep -qsF "$home" "$p/cmdline" "$p/environ" 2>/dev/null &&
             ! grep -qs '^State:.*Z' "$p/status"; then
            fail "$user: process ${p#/proc/} ($(tr '\0' ' ' <"$p/cmdline")) of the run's daemon ($home) is left"
          fi
        done
      fi
    done
  done
done
echo "PASS: $e2e_name: $runs short runs ($users), every call in the tally and on disk"
