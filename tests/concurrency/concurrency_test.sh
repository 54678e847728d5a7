#!/bin/sh
# Concurrent tracer jobs and a lost session daemon (docs/session-daemon.md), each scenario
# in a world the test makes itself: private mount and pid namespaces with empty
# /var/run/lttng, ~/.lttng and /dev/shm, so that no daemon of the machine is seen, the
# jobs start from no daemon at all, and nothing they leave outlives the test.
#
#   concurrency_test.sh SCENARIO USER TRACER LOOP_APP
#
# SCENARIO
#   rounds         6 rounds of two jobs (CONCURRENCY_ROUNDS: more, for a long soak), the
#                  second started 0.3 to 1.2 s after the first, the daemons removed
#                  between rounds
#   staggered      12 jobs (CONCURRENCY_JOBS: more) started 0 to 0.4 s apart
#   daemon_killed  the daemon and its consumers SIGKILLed during a job: a clear message
#                  naming the daemon and the lost events, exit 3, no "trace saved"; the
#                  next job starts a daemon again
# USER: root, or nobody (setpriv, a private daemon per job). Every job must tally exactly
# the calls its app made, and only the daemons the policy intends may be left running:
# root's one, none of nobody's. Needs root (to make the world); exit 77 (SKIP) otherwise.
set -u

scenario=$1 user=$2 tracer=$3 app=$4
# shellcheck source=../reliability/lib.sh
. "$(dirname "$0")/../reliability/lib.sh"
rel_name="concurrency_${scenario}_$user"

if [ "${CONCURRENCY_TEST_WORLD:-}" != inside ]; then
  [ "$(id -u)" = 0 ] || skip "needs root, to make a world of its own (mount and pid namespaces)"
  command -v unshare >/dev/null 2>&1 || skip "unshare is not installed (util-linux)"
  unshare --mount --pid --fork --mount-proc --propagation private true 2>/dev/null ||
    skip "cannot create mount and pid namespaces here"
  CONCURRENCY_TEST_WORLD=inside exec unshare --mount --pid --fork --mount-proc \
    --propagation private sh "$0" "$@"
fi

run_dir=$(readlink -f /var/run/lttng)
mkdir -p "$run_dir" "$HOME/.lttng"
mount -t tmpfs -o mode=0755 tmpfs "$run_dir" && mount -t tmpfs tmpfs "$HOME/.lttng" &&
  mount -t tmpfs -o mode=1777 tmpfs /dev/shm || die "cannot mount the world's tmpfs folders"

rel_setup
need_exe tracer "$tracer"
need_exe loop_app "$app"
if [ "$user" = nobody ]; then
  nobody_setup required "$tracer" "$app"
  jobs_dir=$nobody_dir/work
else
  jobs_dir=$tmp/jobs
  mkdir -p "$jobs_dir"
fi

# Daemons of this world (the pid namespace shows no other), zombies left out: this
# shell is the world's init and reaps orphans only now and then.
world_daemons() { # comm
  ps -e -o pid=,stat=,comm= | awk -v c="$1" '$3 == c && $2 !~ /^Z/ { print $1 }' | tr '\n' ' '
}
count_words() {
  set -- $1
  echo $#
}
# Stops this world's daemons (root's stays running after its jobs, by design).
remove_daemons() {
  for p in $(world_daemons lttng-sessiond); do kill -s TERM "$p" 2>/dev/null; done
  i=0
  while [ -n "$(world_daemons lttng-sessiond)$(world_daemons lttng-consumerd)" ] &&
    [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  for p in $(world_daemons lttng-sessiond) $(world_daemons lttng-consumerd); do
    kill -s KILL "$p" 2>/dev/null
  done
}

# job NAME CALLS PAUSE_US: one tracer job of the loop app, to its end; files in
# $jobs_dir/NAME/ (rc, err, tally.json, trace/).
job() {
  d=$jobs_dir/$1
  if [ "$user" = nobody ]; then
    as_nobody mkdir -p "$d"
    as_nobody "$tracer" --trace-output "$d/trace" -j -o "$d/tally.json" "$app" "$2" "$3" \
      >"$d/out" 2>"$d/err"
  else
    mkdir -p "$d"
    "$tracer" --trace-output "$d/trace" -j -o "$d/tally.json" "$app" "$2" "$3" \
      >"$d/out" 2>"$d/err"
  fi
  echo $? >"$d/rc"
}

# check_job NAME CALLS: the job ended with 0 and its tally holds exactly CALLS calls of
# clGetPlatformIDs and nothing else. Returns 1 (after saying why) when not.
check_job() {
  d=$jobs_dir/$1
  rc=$(cat "$d/rc" 2>/dev/null)
  skip_if_no_opencl "${rc:-0}" "$d/err"
  got=$(tally_calls "$d/tally.json" 2>/dev/null) || got="(no JSON tally)"
  if [ "$rc" = 0 ] && [ "$got" = "{\"clGetPlatformIDs\":$2}" ]; then
    return 0
  fi
  fail "job $1: exit $rc, tally $got, expected {\"clGetPlatformIDs\":$2}; its messages:"
  sed 's/^/    /' "$d/err"
  return 1
}

# Daemons left after the jobs: root's one at most (left running by design), none of
# nobody's (each job stops its private daemon).
check_left() { # what
  daemons=$(world_daemons lttng-sessiond)
  if [ "$user" = nobody ]; then
    check_eq "$1: lttng-sessiond processes left" 0 "$(count_words "$daemons")"
  elif [ "$(count_words "$daemons")" -le 1 ]; then
    ok "$1: root's daemon left running: ${daemons:-none}"
  else
    fail "$1: several root daemons at once: $daemons"
  fi
}

calls=2000
case "$scenario" in
rounds)
  rounds=${CONCURRENCY_ROUNDS:-6} exact=0 round=1
  while [ $round -le $rounds ]; do
    # The second job starts 0.3 to 1.2 s after the first, spread over the rounds.
    offset=$(awk -v r=$round -v n=$rounds 'BEGIN { printf "%.2f", 0.3 + 0.9 * ((r * 7) % n) / (n > 1 ? n - 1 : 1) }')
    job "r$round-a" $calls 250 &
    first=$!
    sleep "$offset"
    job "r$round-b" $calls 250 &
    second=$!
    wait $first
    wait $second
    for j in a b; do
      check_job "r$round-$j" $calls && exact=$((exact + 1))
    done
    [ $round -eq 1 ] && check_left "round 1"
    if [ "$user" = nobody ] && [ -n "$(world_daemons lttng-sessiond)" ]; then
      fail "round $round: nobody's daemons left: $(world_daemons lttng-sessiond)"
    fi
    remove_daemons
    round=$((round + 1))
  done
  check_eq "jobs with an exact tally" $((2 * rounds)) $exact
  ;;

staggered)
  count=${CONCURRENCY_JOBS:-12} exact=0 k=1 pids=""
  while [ $k -le $count ]; do
    job "s$k" $calls 100 &
    pids="$pids $!"
    # The first three start at once (a race to start the daemon), the rest 0 to 0.4 s
    # apart.
    sleep "$(awk -v k=$k 'BEGIN { printf "%.1f", k <= 2 ? 0 : ((k * 13) % 5) / 10 }')"
    k=$((k + 1))
  done
  for p in $pids; do wait "$p"; done
  k=1
  while [ $k -le $count ]; do
    check_job "s$k" $calls && exact=$((exact + 1))
    k=$((k + 1))
  done
  check_eq "jobs with an exact tally" $count $exact
  check_left "after the jobs"
  ;;

daemon_killed)
  # A job long enough to outlive the kill: about 10 s of calls.
  job killed 100000 100 &
  victim=$!
  # Kill once the app runs: before it, the tracer may still be measuring what tracing
  # costs on this machine (a first run), in a session of its own.
  app_comm=$(basename "$app" | cut -c1-15)
  i=0
  while [ -z "$(world_daemons "$app_comm")" ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  [ -n "$(world_daemons "$app_comm")" ] || die "the app did not start within 30 s"
  sleep 2
  daemon=$(echo $(world_daemons lttng-sessiond))
  [ -n "$daemon" ] || die "no daemon appeared in the world"
  for p in $daemon $(world_daemons lttng-consumerd); do kill -s KILL "$p"; done
  say "killed lttng-sessiond $daemon and its consumers"
  # The tracer must end on its own, long before this bound.
  i=0
  while kill -0 $victim 2>/dev/null && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  if kill -0 $victim 2>/dev/null; then
    fail "the tracer still runs 60 s after the daemon was killed"
    kill -s KILL $victim
  fi
  wait $victim
  d=$jobs_dir/killed
  sed 's/^/    tracer: /' "$d/err"
  check_eq "tracer exit" 3 "$(cat "$d/rc")"
  if grep -q "the session daemon (lttng-sessiond, pid $daemon) ended (killed or crashed) during the run" "$d/err" &&
    grep -q "the events still in its buffers are lost" "$d/err"; then
    ok "the message names the daemon (pid $daemon) and the lost events"
  else
    fail "no message naming the daemon pid $daemon and the lost events"
  fi
  if grep -q "trace saved" "$d/err"; then fail "it says 'trace saved'"; else
    ok "no 'trace saved'"
  fi
  if grep -q "No trace was saved\|Only part of the trace was saved" "$d/err"; then
    ok "it says what was kept"
  else
    fail "it does not say what became of the trace"
  fi
  # The next job finds no daemon and starts one.
  job after 200 0
  check_job after 200 && ok "the next job is exact"
  check_left "after the jobs"
  ;;

*)
  die "unknown scenario $scenario"
  ;;
esac
rel_finish
