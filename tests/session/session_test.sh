#!/bin/sh
# End-to-end tests of cli/control/session and launch with a real LTTng session daemon, a
# real lttng-ust app and babeltrace2 as the reference reader.
#
#   session_test.sh SCENARIO DRIVER APP PTY INTERPOSER_LIB USER_PRELOAD_LIB SLOW_CREATE_LIB
#
# SCENARIO is one of: basic exit_status not_runnable output_refused concurrent
# private_daemon signals terminal_sigint loss shared_scope root_daemon. Exit 0 on
# success, 77 (SKIP) when LTTng or babeltrace2 is missing or the scenario cannot run as
# this user.
set -u

scenario=$1 driver=$2 app=$3 pty=$4 interposer=$5 user_lib=$6 slow_create=$7
SKIP=77

for tool in lttng-sessiond lttng babeltrace2; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed"
    exit $SKIP
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/session-test.XXXXXX") || exit 1
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
check_eq() { # what expected actual
  if [ "$2" = "$3" ]; then echo "ok: $1 = $3"; else fail "$1: expected '$2', got '$3'"; fi
}
check_contains() { # what file text
  if grep -qF -- "$3" "$2"; then echo "ok: $1"; else
    fail "$1: '$3' not in $2:"
    sed 's/^/    /' "$2"
  fi
}
info() { # file key
  sed -n "s/^$2=//p" "$1"
}
# Counts events of one tag (the exact tag: "A" does not count "A-child").
count_tag() { # trace tag
  babeltrace2 "$1" 2>"$work/bt.err" | grep -c "session_test:tick: .* tag = \"$2\" }"
}
count_all() {
  babeltrace2 "$1" 2>"$work/bt.err" | grep -c 'session_test:tick:'
}
# The driver is built with the sanitizers in the sanitizer run; the user's LD_PRELOAD
# library is not, which ASan would otherwise refuse.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
run_driver() {
  "$driver" -p "$interposer" "$@"
}
session_listed() { # name: is it still known to the reachable daemon?
  lttng list 2>/dev/null | grep -qF "$1"
}

case "$scenario" in

basic)
  # Untraced reference run, then the same through the tracer, with a user LD_PRELOAD.
  printf 'line one\nline two\n' | LD_PRELOAD="$user_lib" "$app" --events 50 --tag basic \
    --echo-stdin >"$work/plain.out" 2>"$work/plain.err"
  check_eq "untraced exit" 0 $?
  printf 'line one\nline two\n' | LD_PRELOAD="$user_lib" run_driver -o "$work/trace" \
    --info "$work/info" -- "$app" --events 50 --tag basic --echo-stdin \
    --report "$work/report" >"$work/traced.out" 2>"$work/traced.err"
  check_eq "traced exit" 0 $?
  if cmp -s "$work/plain.out" "$work/traced.out"; then echo "ok: stdout untouched"; else
    fail "stdout differs from the untraced run"; diff "$work/plain.out" "$work/traced.out"
  fi
  if cmp -s "$work/plain.err" "$work/traced.err"; then echo "ok: stderr untouched"; else
    fail "stderr differs from the untraced run"; diff "$work/plain.err" "$work/traced.err"
  fi
  check_eq "trace folder mode" 700 "$(stat -c %a "$work/trace")"
  check_eq "events recorded" 50 "$(count_tag "$work/trace" basic)"
  # seq 0 is emitted first thing in main: recorded only if the app registered before.
  check_eq "first event recorded" 1 \
    "$(babeltrace2 "$work/trace" | grep -c 'seq = 0, tag = "basic" }')"
  check_eq "vpid and vtid contexts" 50 \
    "$(babeltrace2 "$work/trace" | grep -c '{ vpid = [0-9]*, vtid = [0-9]* }')"
  check_eq "discarded events" 0 "$(info "$work/info" discarded)"
  check_eq "lost packets" 0 "$(info "$work/info" lost_packets)"
  check_eq "counts valid" 1 "$(info "$work/info" counts_valid)"
  check_eq "app description" "exited with status 0" "$(info "$work/info" app)"
  check_eq "LD_PRELOAD the app got" "$(info "$work/info" preload)" \
    "$(info "$work/report" LD_PRELOAD)"
  case "$(info "$work/report" LD_PRELOAD)" in
  "$interposer:"*liblttng-ust-fork.so*":$user_lib") echo "ok: interposer, fork, user" ;;
  *) fail "LD_PRELOAD is not interposer:liblttng-ust-fork:user" ;;
  esac
  check_eq "interposer loaded" 1 "$(info "$work/report" interposer_loaded)"
  check_eq "user preload kept" 1 "$(info "$work/report" user_preload_loaded)"
  check_eq "fork wrapped by liblttng-ust-fork" 1 "$(info "$work/report" fork_wrapped)"
  check_eq "register timeout" 10000 "$(info "$work/report" LTTNG_UST_REGISTER_TIMEOUT)"
  check_eq "blocking not allowed" "(unset)" "$(info "$work/report" LTTNG_UST_ALLOW_BLOCKING)"
  name=$(info "$work/info" session)
  case "$name" in tracer-*-*-*) echo "ok: session name $name" ;;
  *) fail "session name '$name' is not tracer-HOST-PID-RANDOM" ;; esac
  if [ "$(info "$work/info" daemon_started)" = 0 ]; then
    if session_listed "$name"; then fail "session $name still listed"; else
      echo "ok: session $name destroyed"
    fi
  fi
  # The tracer ignores SIGPIPE (a daemon that dies must not kill it); the app gets the
  # disposition the tracer was started with.
  check_eq "app's SIGPIPE as the tracer's caller left it" default \
    "$(info "$work/report" SIGPIPE)"
  (trap '' PIPE; run_driver -o "$work/trace-pipe" -- "$app" --events 1 \
    --report "$work/report-pipe" >/dev/null 2>&1)
  check_eq "app's SIGPIPE ignored when the caller ignored it" ignored \
    "$(info "$work/report-pipe" SIGPIPE)"
  # A user who set the register timeout keeps it.
  LTTNG_UST_REGISTER_TIMEOUT=1234 run_driver -o "$work/trace2" -- "$app" --events 1 \
    --report "$work/report2" >/dev/null 2>&1
  check_eq "user register timeout kept" 1234 \
    "$(info "$work/report2" LTTNG_UST_REGISTER_TIMEOUT)"
  ;;

exit_status)
  run_driver -o "$work/t3" --info "$work/info3" -- "$app" --events 5 --exit 3 \
    >/dev/null 2>&1
  check_eq "exit status 3 passed on" 3 $?
  check_eq "description" "exited with status 3" "$(info "$work/info3" app)"
  check_eq "events of the app that exited 3" 5 "$(count_tag "$work/t3" app)"
  run_driver -o "$work/t9" --info "$work/info9" -- "$app" --events 7 --kill 9 \
    >/dev/null 2>&1
  check_eq "SIGKILL gives 128+9" 137 $?
  check_eq "description" "killed by signal 9 (SIGKILL)" "$(info "$work/info9" app)"
  # Per-UID buffers outlive the app: its events are flushed although it was killed.
  check_eq "events of the killed app" 7 "$(count_tag "$work/t9" app)"
  check_eq "session ended cleanly after the kill" 0 "$(info "$work/info9" discarded)"
  run_driver -o "$work/t15" --info "$work/info15" -- "$app" --events 1 --kill 15 \
    >/dev/null 2>&1
  check_eq "SIGTERM gives 128+15" 143 $?
  check_eq "description" "killed by signal 15 (SIGTERM)" "$(info "$work/info15" app)"
  ;;

not_runnable)
  run_driver -o "$work/t1" --info "$work/info1" -- no-such-command-for-session-test \
    >"$work/out1" 2>"$work/err1"
  check_eq "command not found gives 127" 127 $?
  check_contains "not found message" "$work/err1" \
    "Cannot run app: command=no-such-command-for-session-test, not found in PATH"
  printf '#!/bin/sh\necho never\n' >"$work/not-executable"
  chmod 644 "$work/not-executable"
  run_driver -o "$work/t2" -- "$work/not-executable" >"$work/out2" 2>"$work/err2"
  # Even root may not execute a file without any execute bit.
  check_eq "not executable gives 126" 126 $?
  check_contains "not executable message" "$work/err2" \
    "Cannot run app: command=$work/not-executable, Permission denied"
  run_driver -o "$work/t3" -- "$work" >"$work/out3" 2>"$work/err3"
  check_eq "a folder gives 126" 126 $?
  # A script without #! runs through /bin/sh, as in a shell.
  printf 'echo from-script "$@"\n' >"$work/script"
  chmod 755 "$work/script"
  run_driver -o "$work/t4" -- "$work/script" a b >"$work/out4" 2>"$work/err4"
  check_eq "script without #! runs" 0 $?
  check_eq "script output" "from-script a b" "$(cat "$work/out4")"
  name=$(info "$work/info1" session)
  if [ "$(info "$work/info1" daemon_started)" = 0 ] && session_listed "$name"; then
    fail "session $name still listed after a command that could not run"
  fi
  ;;

output_refused)
  mkdir "$work/full"
  echo keep >"$work/full/old-trace"
  run_driver -o "$work/full" -- "$app" --events 3 >"$work/out" 2>"$work/err"
  check_eq "non-empty output folder refused" 70 $?
  check_contains "refusal message" "$work/err" \
    "Cannot use output folder: path=$work/full, it is not empty"
  check_eq "existing content untouched" "old-trace" "$(ls "$work/full")"
  check_eq "app did not run" "" "$(cat "$work/out")"
  echo file >"$work/plain-file"
  run_driver -o "$work/plain-file" -- "$app" >"$work/out" 2>"$work/err"
  check_eq "a file as output refused" 70 $?
  check_contains "file message" "$work/err" "it exists and is not a folder"
  # An existing empty folder is fine, and missing parents are made.
  mkdir "$work/empty"
  run_driver -o "$work/empty" -- "$app" --events 2 >/dev/null 2>&1
  check_eq "empty existing folder accepted" 0 $?
  check_eq "events in the existing folder" 2 "$(count_tag "$work/empty" app)"
  run_driver -o "$work/a/b/c" -- "$app" --events 2 >/dev/null 2>&1
  check_eq "missing parents made" 2 "$(count_tag "$work/a/b/c" app)"
  ;;

concurrent)
  # Same events enabled by two sessions at once: each must record its own app only.
  run_driver -o "$work/ta" --info "$work/infoa" -- "$app" --events 300 --tag A \
    --pause-us 2000 >/dev/null 2>&1 &
  pid_a=$!
  run_driver -o "$work/tb" --info "$work/infob" -- "$app" --events 200 --tag B \
    --pause-us 3000 >/dev/null 2>&1 &
  pid_b=$!
  wait $pid_a
  check_eq "run A exit" 0 $?
  wait $pid_b
  check_eq "run B exit" 0 $?
  check_eq "A's events in A" 300 "$(count_tag "$work/ta" A)"
  check_eq "B's events in B" 200 "$(count_tag "$work/tb" B)"
  check_eq "B's events in A" 0 "$(count_tag "$work/ta" B)"
  check_eq "A's events in B" 0 "$(count_tag "$work/tb" A)"
  check_eq "all events in A" 300 "$(count_all "$work/ta")"
  check_eq "all events in B" 200 "$(count_all "$work/tb")"
  ;;

private_daemon)
  # A normal user with no daemon: the job starts a private one and stops it.
  if [ "$(id -u)" = 0 ]; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
    for f in "$driver" "$app" "$interposer"; do
      $as_user test -r "$f" || {
        echo "SKIP: the user nobody cannot read $f (a parent folder closed to others, such as /root?): clone and build under a folder others can enter to run this scenario"
        exit $SKIP
      }
    done
    run_uid=65534
    chown 65534:65534 "$work"
  else
    as_user=""
    run_uid=$(id -u)
    if lttng list >/dev/null 2>&1; then
      echo "SKIP: a session daemon of this user already runs"
      exit $SKIP
    fi
  fi
  # A TMPDIR of the test's own: the private home must be made there, and removed.
  mkdir "$work/tmp"
  [ -z "$as_user" ] || chown 65534:65534 "$work/tmp"
  $as_user env HOME=/nonexistent TMPDIR="$work/tmp" ASAN_OPTIONS="$ASAN_OPTIONS" \
    "$driver" -p "$interposer" -o "$work/trace" --info "$work/info" -- "$app" \
    --events 40 --tag P --fork --report "$work/report" >/dev/null 2>"$work/err"
  check_eq "exit" 0 $?
  home=$(info "$work/info" lttng_home)
  check_eq "daemon started" 1 "$(info "$work/info" daemon_started)"
  check_eq "daemon stopped" 1 "$(info "$work/info" daemon_stopped)"
  check_eq "app got the daemon's LTTNG_HOME" "$home" "$(info "$work/report" LTTNG_HOME)"
  case "$home" in "$work/tmp/tracer-lttng-"*)
    echo "ok: private home $home" ;; *) fail "private home '$home'" ;; esac
  if [ -e "$home" ]; then fail "private home $home still exists"; else
    echo "ok: private home removed"
  fi
  if pgrep -f -- "$home" >/dev/null; then
    fail "a daemon of $home still runs:"; pgrep -a -f -- "$home"
  else
    echo "ok: no daemon left"
  fi
  check_eq "records every process on a private daemon" 0 "$(info "$work/info" tracked_only)"
  check_eq "app events" 40 "$(count_tag "$work/trace" P)"
  check_eq "forked child's events (liblttng-ust-fork)" 40 "$(count_tag "$work/trace" P-child)"
  check_eq "trace owned by the user" "$run_uid" "$(stat -c %u "$work/trace")"

  # A daemon that cannot start: its own words end up in the error, nothing is left.
  printf '#!/bin/sh\necho "fake daemon: cannot start" >&2\nexit 3\n' >"$work/failing"
  printf '#!/bin/sh\nexec sleep 30\n' >"$work/silent"
  chmod 755 "$work/failing" "$work/silent"
  $as_user env HOME=/nonexistent TMPDIR="$work/tmp" ASAN_OPTIONS="$ASAN_OPTIONS" \
    LTTNG_SESSIOND_PATH="$work/failing" "$driver" -p "$interposer" -o "$work/t2" -- \
    "$app" >"$work/out2" 2>"$work/err2"
  check_eq "failing daemon: session fails" 70 $?
  check_contains "daemon's output in the error" "$work/err2" \
    "Cannot start session daemon: path=$work/failing, exit status 3; its output: fake daemon: \
cannot start"
  check_eq "failing daemon: app not run" "" "$(cat "$work/out2")"
  $as_user env HOME=/nonexistent TMPDIR="$work/tmp" ASAN_OPTIONS="$ASAN_OPTIONS" \
    LTTNG_SESSIOND_PATH="$work/silent" "$driver" -p "$interposer" --daemon-timeout 500 \
    -o "$work/t3" -- "$app" >"$work/out3" 2>"$work/err3"
  check_eq "silent daemon: session fails" 70 $?
  check_contains "bounded wait" "$work/err3" "not ready after 500 ms"
  check_eq "nothing left in TMPDIR (homes, output captures)" "" "$(ls -A "$work/tmp")"
  if [ -e "$work/t2" ] || [ -e "$work/t3" ]; then
    fail "output folder of a failed start left behind"
  else
    echo "ok: output folders made for nothing removed"
  fi
  ;;

signals)
  # Started directly (not through a shell function) so that $! is the tracer itself.
  # As an asynchronous command of a script it starts with SIGINT ignored, and so does
  # the app, which installs its own handler: it must still get SIGINT sent to the tracer.
  "$driver" -p "$interposer" -o "$work/trace" -- "$app" --events 1 \
    --wait-signals "$work/counts" >/dev/null 2>&1 &
  tracer=$!
  i=0
  while [ ! -e "$work/counts.ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  kill -USR1 $tracer
  sleep 0.2
  kill -INT $tracer
  sleep 0.2
  kill -TERM $tracer
  wait $tracer
  check_eq "tracer exit after SIGTERM was handled by the app" 0 $?
  check_eq "signals the app got, once each" "SIGINT=1 SIGUSR1=1 SIGTERM=1" \
    "$(cat "$work/counts")"
  # An app that does not handle SIGTERM dies of it, and the tracer says so.
  "$driver" -p "$interposer" -o "$work/trace2" --info "$work/info2" -- sleep 30 \
    >/dev/null 2>&1 &
  tracer=$!
  sleep 0.5
  kill -TERM $tracer
  wait $tracer
  check_eq "forwarded SIGTERM kills the app" 143 $?
  check_eq "description" "killed by signal 15 (SIGTERM)" "$(info "$work/info2" app)"
  ;;

terminal_sigint)
  # Ctrl-C at a terminal signals the whole foreground group; the app gets it once.
  "$pty" "$work/counts.ready" -- "$driver" -p "$interposer" -o "$work/trace" -- "$app" \
    --events 1 --wait-signals "$work/counts" >"$work/terminal" 2>&1
  check_eq "exit" 0 $?
  check_eq "Ctrl-C reached the app once" "SIGINT=1 SIGUSR1=0 SIGTERM=1" \
    "$(cat "$work/counts" 2>/dev/null)"
  ;;

loss)
  # Tiny buffers and a burst: the daemon's discarded count must be exact.
  run_driver -o "$work/lossy" --info "$work/info" --subbuf-size 4096 --subbuf-count 2 \
    -- "$app" --events 200000 --tag L >/dev/null 2>&1
  check_eq "exit" 0 $?
  recorded=$(count_tag "$work/lossy" L)
  discarded=$(info "$work/info" discarded)
  if [ "$discarded" -gt 0 ]; then echo "ok: $discarded events discarded"; else
    fail "no discarded events reported with 4 KiB buffers ($recorded recorded)"
  fi
  check_eq "recorded + discarded" 200000 $((recorded + discarded))
  # The blocking channel trades speed for completeness. Each stall on a full buffer
  # costs tens of ms (measured: 20000 events through 2 x 4 KiB took 5.8 s), so the
  # buffers here are small enough to fill (non-blocking, 64 KiB x 4 lost ~10% of this
  # burst) but not tiny.
  run_driver -o "$work/blocking" --info "$work/infob" --blocking --subbuf-size 65536 \
    --subbuf-count 4 -- "$app" --events 200000 --tag L --report "$work/report" \
    >/dev/null 2>&1
  check_eq "exit" 0 $?
  check_eq "app allowed to block" 1 "$(info "$work/report" LTTNG_UST_ALLOW_BLOCKING)"
  check_eq "blocking: nothing discarded" 0 "$(info "$work/infob" discarded)"
  check_eq "blocking: every event recorded" 200000 "$(count_tag "$work/blocking" L)"
  ;;

shared_scope)
  # On a daemon shared with other sessions only the app's own pid is recorded: its
  # forked children are not (the documented price of isolation). --scope all records
  # them, like a private daemon does.
  if [ "$(id -u)" != 0 ] && ! lttng list >/dev/null 2>&1; then
    echo "SKIP: no shared session daemon for this user"
    exit $SKIP
  fi
  run_driver -o "$work/t1" --info "$work/info1" -- "$app" --events 20 --tag S --fork \
    >/dev/null 2>&1
  check_eq "exit" 0 $?
  check_eq "tracked only" 1 "$(info "$work/info1" tracked_only)"
  check_eq "app events" 20 "$(count_tag "$work/t1" S)"
  check_eq "child events (not tracked)" 0 "$(count_tag "$work/t1" S-child)"
  run_driver -o "$work/t2" --info "$work/info2" --scope all -- "$app" --events 20 \
    --tag S --fork >/dev/null 2>&1
  check_eq "exit" 0 $?
  check_eq "scope all: child events" 20 "$(count_tag "$work/t2" S-child)"
  ;;

root_daemon)
  # As root the daemon lives in /var/run/lttng: to see this job start and stop one while
  # the machine's daemon keeps running, the test runs in a mount namespace of its own
  # with an empty tmpfs there.
  if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1; then
    echo "SKIP: needs root and unshare"
    exit $SKIP
  fi
  if ! unshare --mount true 2>/dev/null; then
    echo "SKIP: cannot create a mount namespace here"
    exit $SKIP
  fi
  unshare --mount --propagation private sh "$0" root_daemon_inside "$driver" "$app" \
    "$pty" "$interposer" "$user_lib" "$slow_create"
  exit $?
  ;;

root_daemon_inside)
  run_dir=$(readlink -f /var/run/lttng)
  mkdir -p "$run_dir"
  mount -t tmpfs -o mode=0755 tmpfs "$run_dir" || exit 1
  namespace=$(readlink /proc/self/ns/mnt)
  # Daemons of this namespace only: the machine's own are none of this test's business.
  daemons_here() {
    for pid_dir in /proc/[0-9]*; do
      [ "$(readlink "$pid_dir/ns/mnt" 2>/dev/null)" = "$namespace" ] || continue
      case "$(cat "$pid_dir/comm" 2>/dev/null)" in
      lttng-sessiond | lttng-consumerd)
        grep -q '^State:.*Z' "$pid_dir/status" 2>/dev/null || echo "${pid_dir#/proc/}" ;;
      esac
    done
  }
  stop_daemons_here() {
    for pid in $(daemons_here); do kill "$pid" 2>/dev/null; done
    sleep 2
    for pid in $(daemons_here); do kill -9 "$pid" 2>/dev/null; done
  }
  trap 'stop_daemons_here; rm -rf "$work"' EXIT
  check_eq "no daemon at first" "" "$(daemons_here)"

  run_driver -o "$work/t1" --info "$work/info1" -- "$app" --events 5 >/dev/null 2>&1
  check_eq "exit" 0 $?
  check_eq "daemon started" 1 "$(info "$work/info1" daemon_started)"
  check_eq "no private home as root" "" "$(info "$work/info1" lttng_home)"
  # Root's daemon serves every root job of the machine: it stays, as `lttng create`
  # leaves it (docs/session-daemon.md).
  check_eq "daemon not stopped" 0 "$(info "$work/info1" daemon_stopped)"
  check_eq "daemon left running" 1 "$(info "$work/info1" daemon_left_running)"
  check_eq "events" 5 "$(count_tag "$work/t1" app)"
  if [ -n "$(daemons_here)" ]; then echo "ok: the daemon still runs"; else
    fail "no daemon left running"
  fi
  stop_daemons_here

  # Two jobs find no daemon at once: one starts it, the other's start loses the race
  # ("already running") and uses the winner's.
  run_driver -o "$work/ta" --info "$work/infoa" -- "$app" --events 150 --tag A \
    --pause-us 4000 >/dev/null 2>"$work/erra" &
  pid_a=$!
  run_driver -o "$work/tb" --info "$work/infob" -- "$app" --events 20 --tag B \
    >/dev/null 2>"$work/errb" &
  pid_b=$!
  wait $pid_a
  check_eq "run A exit" 0 $?
  wait $pid_b
  check_eq "run B exit" 0 $?
  grep -h session_test_driver "$work/erra" "$work/errb"
  check_eq "A's events" 150 "$(count_tag "$work/ta" A)"
  check_eq "B's events" 20 "$(count_tag "$work/tb" B)"
  starters=$(($(info "$work/infoa" daemon_started) + $(info "$work/infob" daemon_started)))
  check_eq "exactly one job started the daemon" 1 $starters
  check_eq "nobody stopped it" 0 \
    $(($(info "$work/infoa" daemon_stopped) + $(info "$work/infob" daemon_stopped)))

  # The daemon goes away (killed by someone) under a job that found it but has not
  # created its session yet: job D, slowed down on purpose, must start over, start a
  # daemon and trace normally.
  LD_PRELOAD="$slow_create" SESSION_TEST_CREATE_DELAY_MS=2500 run_driver -o "$work/td" \
    --info "$work/infod" -- "$app" --events 10 --tag D >/dev/null 2>"$work/errd" &
  pid_d=$!
  sleep 0.5
  # Only the daemons running now: the one D is about to start must live.
  victims=$(daemons_here)
  for pid in $victims; do kill "$pid" 2>/dev/null; done
  for i in $(seq 50); do
    alive=""
    for pid in $victims; do
      grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null || [ ! -e "/proc/$pid" ] ||
        alive="$alive $pid"
    done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  wait $pid_d
  check_eq "run D exit" 0 $?
  grep -h session_test_driver "$work/errd"
  check_eq "D started another daemon" 1 "$(info "$work/infod" daemon_started)"
  check_eq "D's events" 10 "$(count_tag "$work/td" D)"

  # A daemon that stops answering (SIGSTOP) while job E sets up its session: E ends
  # after its bound (3 x --daemon-timeout), names the daemon, and never starts the app.
  daemon_pid=$(cat "$run_dir/lttng-sessiond.pid")
  LD_PRELOAD="$slow_create" SESSION_TEST_CREATE_DELAY_MS=1000 run_driver -o "$work/te" \
    --daemon-timeout 1000 -- "$app" --events 10 --tag E --report "$work/reporte" \
    >/dev/null 2>"$work/erre" &
  pid_e=$!
  sleep 0.5
  kill -s STOP "$daemon_pid"
  wait $pid_e
  check_eq "run E exit" 3 $?
  kill -s CONT "$daemon_pid"
  check_contains "E names the silent daemon" "$work/erre" \
    "the session daemon (lttng-sessiond, pid $daemon_pid) did not answer within 3000 ms; the app was not started"
  if [ -e "$work/reporte" ]; then fail "E's app ran"; else echo "ok: E's app never ran"; fi
  ;;

*)
  echo "unknown scenario $scenario"
  exit 2
  ;;
esac

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed in $scenario"
  exit 1
fi
echo "PASS: $scenario"
