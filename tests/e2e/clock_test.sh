#!/bin/sh
# The trace clock: which one a job gets, and that times read from its traces are right.
#
#   clock_test.sh TRACER CLOCK_APP
#
# A job of a normal user (nobody, when the test runs as root) gets a session daemon of
# its own and, where the kernel keeps time with an invariant TSC, the TSC clock
# (runtime/tracer_clock_plugin.c); else, with --clock monotonic, as root (the machine's
# daemon is shared) and with a daemon the user already runs, CLOCK_MONOTONIC. With each,
# for the clock app (a clWaitForEvents that lasts WAIT_MS, a kernel):
#   - the metadata names the expected clock;
#   - the tally's clWaitForEvents lasts WAIT_MS (the start field and the event timestamp
#     are read on one clock, converted with its frequency);
#   - babeltrace2 places every event between the wall-clock times the app printed before
#     its first and after its last call (frequency and offset from the daemon);
#   - in -t, each device command starts after the trace's first event, ends after it
#     starts and before its own event (device times converted to the trace clock).
. "$(dirname "$0")/lib.sh"
tracer=$(abspath "$1")
app=$(abspath "$2")
need_tracer "$tracer"
need_app "$app"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 is not installed"
e2e_setup
chmod 755 "$tmp"
wait_ms=300

if [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null 2>&1 || skip "setpriv is not installed"
  nobody_can_run "$tracer" "$app" || skip "$nobody_why"
  as_user="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$tmp/home"
  mkdir "$tmp/home" "$tmp/user"
  chown 65534:65534 "$tmp/home" "$tmp/user"
  chmod 777 "$POCL_CACHE_DIR" 2>/dev/null
else
  as_user=env
  mkdir "$tmp/user"
fi

# The clock a private daemon gets here: the plugin's own test, from what Linux shows.
tsc_usable=no
if [ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" = tsc ] &&
   grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo; then
  tsc_usable=yes
fi
private_clock=monotonic
[ "$tsc_usable" = yes ] && private_clock=tracer_tsc

clock_name() { # trace
  awk '/^clock \{/ {c = 1} c && /name = / {gsub(/.*= "|";/, ""); print; exit}' \
    "$1"/ust/uid/*/64-bit/metadata
}

# check NAME EXPECTED_CLOCK: the checks above on $tmp/user/NAME.{trace,json,out}.
check() {
  name=$1 expected=$2 dir=$tmp/user
  clock=$(clock_name "$dir/$name.trace")
  [ "$clock" = "$expected" ] || fail "$name: trace clock $clock, expected $expected"

  wait_ns=$(jq '[.backends[].host[] | select(.name == "clWaitForEvents") | .time_ns] | add' \
    "$dir/$name.json")
  # The completing thread sleeps WAIT_MS; waking it and the wait's return add a little.
  low=$((wait_ms * 1000000)) high=$((wait_ms * 1000000 + 250000000))
  [ "$wait_ns" -ge "$low" ] && [ "$wait_ns" -lt "$high" ] ||
    fail "$name: clWaitForEvents lasted $wait_ns ns, expected $wait_ms ms"

  wall_start=$(sed -n 's/^wall_start=//p' "$dir/$name.out")
  wall_end=$(sed -n 's/^wall_end=//p' "$dir/$name.out")
  babeltrace2 --clock-seconds "$dir/$name.trace" >"$tmp/$name.bt" 2>"$tmp/$name.bt.err" ||
    fail "$name: babeltrace2 failed: $(head -3 "$tmp/$name.bt.err")"
  # The runtime's clock_read event is written when it loads, before the app's main.
  grep -v 'lttng_ust_tracer:clock_read' "$tmp/$name.bt" |
    sed -n 's/^\[\([0-9.]*\)\].*/\1/p' | awk -v lo="$wall_start" -v hi="$wall_end" \
    -v name="$name" '
      {n++; if ($1 < lo - 0.02 || $1 > hi + 0.02) bad++; if (n == 1) first = $1; last = $1}
      END {
        if (n < 10) {print name ": only " n " events"; exit 1}
        if (bad) {printf "%s: %d events outside the app'\''s run [%s, %s]: first %s, last %s\n",
                  name, bad, lo, hi, first, last; exit 1}
      }' >"$tmp/$name.range" || fail "$(cat "$tmp/$name.range")"

  "$tracer" -q -r "$dir/$name.trace" -t >"$tmp/$name.text" ||
    fail "$name: tracer -t failed"
  awk -v name="$name" '
    function secs(t,  p) {split(t, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3]}
    NR == 1 {first = secs($1)}
    /lttng_ust_tracer:device_command/ {
      n++
      match($0, /start: [0-9:.]+/); s = secs(substr($0, RSTART + 7, RLENGTH - 7))
      match($0, /end: [0-9:.]+/); e = secs(substr($0, RSTART + 5, RLENGTH - 5))
      if (s < first || e < s || e > secs($1) + 0.000001) {
        print name ": device command times wrong: " $0; exit 1
      }
    }
    END {if (n < 1) {print name ": no device command"; exit 1}}' "$tmp/$name.text" \
    >"$tmp/$name.devices" || fail "$(cat "$tmp/$name.devices")"
  echo "ok: $name: $clock, clWaitForEvents $wait_ns ns, events within the app's run, device times in order"
}

# run_user NAME [TRACER OPTIONS]: the clock app traced as the user, with $user_env (NAME=value
# words) added to the environment.
user_env=
run_user() {
  name=$1
  shift
  $as_user $user_env "$tracer" -q "$@" --trace-output "$tmp/user/$name.trace" -j -o "$tmp/user/$name.json" \
    -- "$app" "$wait_ms" >"$tmp/user/$name.out" 2>"$tmp/user/$name.err" ||
    fail "$name: tracer failed: $(cat "$tmp/user/$name.err")"
}

run_user private
check private "$private_clock"

run_user monotonic --clock monotonic
check monotonic monotonic

# A daemon the user already runs (started without the plugin) keeps its clock, even when
# the user's environment names the plugin: the app must not stamp events with it.
plugin=$(dirname "$tracer")/../lib/libtracer_clock.so
[ -r "$plugin" ] || fail "no clock plugin at $plugin"
$as_user mkdir "$tmp/user/own"
$as_user LTTNG_HOME="$tmp/user/own" lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1 ||
  fail "cannot start the user's own session daemon"
user_env="LTTNG_HOME=$tmp/user/own LTTNG_UST_CLOCK_PLUGIN=$(abspath "$plugin")"
run_user own_daemon_plugin_in_env
user_env=
own_pid=$(cat "$tmp/user/own/.lttng/lttng-sessiond.pid" 2>/dev/null)
[ -n "$own_pid" ] && kill "$own_pid" 2>/dev/null
i=0
while [ -n "$own_pid" ] && kill -0 "$own_pid" 2>/dev/null && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
check own_daemon_plugin_in_env monotonic

# Root's daemon serves the whole machine: its jobs keep the monotonic clock.
if [ "$(id -u)" = 0 ]; then
  as_user=env
  run_user root
  check root monotonic
fi
