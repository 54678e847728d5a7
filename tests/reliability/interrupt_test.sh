#!/bin/sh
# The tracer itself is interrupted: SIGINT or SIGTERM sent to the tracer's process (not to
# the app, not to the group) while the app runs.
# Usage: interrupt_test.sh INT|TERM TRACER LONGRUN_APP
#
# The app (apps/longrun.c) loops making OpenCL calls, catches SIGINT and SIGTERM, and
# exits with 64 + the signal's number after printing how many of each it got. Checks:
#  - untraced, `kill -SIG APP` makes it print "received 1 time(s)" and exit 64+N;
#  - traced, `kill -SIG TRACER` gives the same stdout bytes (so the app got the signal
#    exactly once) and the tracer exits with the app's status;
#  - the trace is kept (with its run record), the live tally counts exactly the app's
#    calls, and `tracer -r DIR` analyses it again to the same JSON;
#  - no session of this tracer is left (`lttng list`), and no lttng-sessiond of this user
#    runs that did not run before (root: root's daemon, in /var/run/lttng, is the one
#    that ran before, or the one this run started and left running).
# The traced run is made as root (the machine's session daemon) and, when the build tree
# is readable by nobody, again as nobody, whose tracer starts and must stop a private
# daemon: there the last check has teeth.
set -u
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 INT|TERM TRACER LONGRUN_APP" >&2; exit 2; }
sig=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
case $sig in
INT) code=66 ;;
TERM) code=79 ;;
*) die "unknown signal $sig" ;;
esac
rel_setup
need_exe tracer "$tracer"
need_exe "longrun app" "$app"
daemons_before=$(sessiond_pids)

# Untraced: the signal goes to the app itself.
REL_COUNT="$tmp/plain.count" "$app" >"$tmp/plain.out" 2>"$tmp/plain.err" &
pid=$!
rel_bg_pids="$rel_bg_pids $pid"
if ! wait_for_count "$tmp/plain.count" clGetPlatformInfo 20 20; then
  rc=0
  wait "$pid" || rc=$?
  skip_if_no_opencl "$rc" "$tmp/plain.err"
  die "the untraced app made no calls in 20 s: $(cat "$tmp/plain.err")"
fi
kill -s "$sig" "$pid"
rc=0
wait "$pid" || rc=$?
check_eq "untraced: app's exit status after SIG$sig" "$code" "$rc"
say "untraced stdout: $(cat "$tmp/plain.out")"

# traced USER: the traced run, as root or nobody; the signal goes to the tracer's
# process only. A root tracer uses the machine's daemon (or starts it); nobody's tracer
# starts a private daemon of its own, which it must stop however it ends.
traced() {
  user=$1
  # Started without a shell function in between, so that $! is the tracer itself (env
  # and setpriv exec what they run).
  if [ "$user" = nobody ]; then
    w="$nobody_dir/work"
    daemons_before=$(sessiond_pids nobody)
    setpriv --reuid=nobody --regid="$nobody_group" --clear-groups \
      env -u LTTNG_HOME HOME="$nobody_dir/home" TMPDIR="$nobody_dir/tmp" \
      POCL_CACHE_DIR="$nobody_dir/pocl" REL_COUNT="$w/count" \
      "$tracer" --trace-output "$w/trace" -j -o "$w/live.json" \
      -- "$app" >"$tmp/traced.out" 2>"$tmp/traced.err" &
  else
    w="$tmp/root"
    mkdir -p "$w"
    root_before=$(root_daemon_pid)
    env REL_COUNT="$w/count" "$tracer" --trace-output "$w/trace" -j -o "$w/live.json" \
      -- "$app" >"$tmp/traced.out" 2>"$tmp/traced.err" &
  fi
  trace="$w/trace"
  tpid=$!
  rel_tracer_pids="$rel_tracer_pids $tpid"
  rel_bg_pids="$rel_bg_pids $tpid"
  wait_for_count "$w/count" clGetPlatformInfo 20 20 ||
    die "$user: the traced app made no calls in 20 s: $(cat "$tmp/traced.err")"
  [ "$(parent_of "$(count_value "$w/count" pid)")" = "$tpid" ] ||
    die "$user: the app is not the tracer's child"
  say "$user: lttng-sessiond processes of $user while the app runs: $(sessiond_pids "$user")"
  kill -s "$sig" "$tpid"
  rc=0
  wait "$tpid" || rc=$?
  check_eq "$user: tracer's exit status (the app's)" "$code" "$rc"
  same_bytes "$user: the app's stdout is the same as untraced (it got SIG$sig exactly once)" \
    "$tmp/plain.out" "$tmp/traced.out"
  say "$user: tracer's stderr: $(tr '\n' '|' <"$tmp/traced.err")"

  if [ -f "$trace/tracer-run.txt" ] && [ -d "$trace/ust" ]; then
    ok "$user: the trace is kept in $trace (with tracer-run.txt)"
  else
    fail "$user: the trace in $trace is missing or has no run record: $(ls -A "$trace" 2>&1 | tr '\n' ' ')"
  fi
  if [ -s "$w/live.json" ]; then
    check_eq "$user: live JSON app.status" "exited with status $code" \
      "$(jq -r '.app.status // "absent"' "$w/live.json")"
    check_counts "$user: live tally" "$w/count" "$w/live.json"
  else
    fail "$user: the tracer wrote no tally"
  fi
  rrc=0
  "$tracer" -r "$trace" -j -o "$tmp/replay.json" 2>"$tmp/replay.err" || rrc=$?
  check_eq "$user: tracer -r exit status" 0 "$rrc"
  check_counts "$user: tracer -r tally" "$w/count" "$tmp/replay.json"
  [ -s "$w/live.json" ] && same_json "$user: tracer -r gives the same JSON as the live run" \
    "$w/live.json" "$tmp/replay.json"

  if [ "$user" = root ]; then
    check_eq "$user: sessions of this tracer left in the daemon" "" "$(sessions_of "$tpid")"
    # Root's daemon is the one in /var/run/lttng (other root daemons that ps shows may
    # belong to other mount namespaces). One that answered before is still the one;
    # one this run started stays for the machine's other root jobs
    # (docs/session-daemon.md).
    root_after=$(root_daemon_pid)
    if [ -n "$root_before" ]; then
      check_eq "$user: root's daemon, the same as before" "$root_before" "$root_after"
    else
      ok "$user: root's daemon, started by this run, left running: ${root_after:-none}"
    fi
    return
  fi
  daemons_after=$(sessiond_pids nobody)
  # A daemon takes 1.5-2.5 s to exit once told to (cli/control/session.h): wait up to 10 s for
  # the ones this run started to be gone.
  waited=0
  while :; do
    new=""
    for p in $daemons_after; do
      kill -0 "$p" 2>/dev/null || continue
      case " $daemons_before " in *" $p "*) ;; *) new="$new $p" ;; esac
    done
    [ -z "$new" ] || [ "$waited" -ge 100 ] && break
    sleep 0.1
    waited=$((waited + 1))
  done
  check_eq "$user: lttng-sessiond processes of $user that were not running before (before: ${daemons_before:-none})" \
    "" "$new"
}

# root_daemon_pid: the pid of the daemon in /var/run/lttng when it runs, else nothing.
root_daemon_pid() {
  p=$(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null)
  [ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = lttng-sessiond ] &&
    ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && echo "$p"
}

traced root
if nobody_setup optional "$tracer" "$(dirname "$(dirname "$tracer")")/lib/libtracer_opencl.so" "$app"; then
  traced nobody
fi
rel_finish "SIG$sig"
