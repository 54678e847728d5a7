#!/bin/sh
# A traced run's fixed cost: `tracer true`, its wall time and its phases (`tracer -v`'s
# "timing" line), against what LTTng itself needs for the same run (bench/lttng_floor:
# create, channels, events, start, the app, stop, destroy through liblttng-ctl with
# LTTng's own waits, the same channels, events, LD_PRELOAD and environment), and, with
# BENCH_BASELINE=BUILD_DIR, against another build of the tracer (the one before a change)
# in the same rounds. Two cases, each as an unprivileged user (nobody when started as
# root, as a user traces): a daemon already running (the user's own, started by this
# script in a folder of its own, so that no other job on the machine shares it) and none
# (each tracer run starts a private daemon and stops it; the floor starts lttng-sessiond
# and stops it with SIGTERM, timed too). Rounds interleave the variants, so that a slow
# spell of this shared machine weighs on all of them alike; each figure is the median of
# the rounds, with the least and most in brackets.
# Usage: fixed_cost.sh [BUILD_DIR]; BENCH_ROUNDS (default 9), BENCH_APP (default
# /usr/bin/true), BENCH_BASELINE (a build folder), BENCH_FIXED_CASES ("running start").
# Prints a markdown section (bench/RESULTS.md's "Fixed cost of a run").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
rounds=${BENCH_ROUNDS:-9}
app=${BENCH_APP:-/usr/bin/true}
cases=${BENCH_FIXED_CASES:-running start}
baseline=${BENCH_BASELINE:-}
tracer=$build/bin/tracer
floor=$build/bench/lttng_floor
for tool in "$tracer" "$floor"; do
  [ -x "$tool" ] || { echo "fixed_cost: $tool is missing: run make first" >&2; exit 1; }
done
[ -z "$baseline" ] || [ -x "$baseline/bin/tracer" ] ||
  { echo "fixed_cost: no tracer in BENCH_BASELINE=$baseline" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
as_user=env
if [ "$(id -u)" = 0 ]; then
  as_user="setpriv --reuid=65534 --regid=65534 --clear-groups env"
  chown 65534:65534 "$tmp"
fi
run_as() { # command...: as the bench's user, HOME and TMPDIR in $tmp
  # shellcheck disable=SC2086
  $as_user HOME="$tmp/home" TMPDIR="$tmp" "$@"
}
run_as mkdir -p "$tmp/home"
now_ns() { date +%s%N; }
ms_since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN {printf "%.1f", (b - a) / 1e6}'; }

# key=value pairs of a "... (ms): k=v k=v" line, one "key value" per line.
pairs() { sed -n 's/.*(ms): //p' | tr ' ' '\n' | sed -n 's/^\([a-z_]*\)=\([0-9.]*\)$/\1 \2/p'; }
record() { # case variant: appends "key value" lines on stdin to $tmp/case-variant-key
  while read -r key value; do echo "$value" >>"$tmp/$1-$2-$key"; done
}

# One tracer run; its wall time and phases recorded under case/variant.
tracer_run() { # case variant tracer
  start=$(now_ns)
  run_as "$3" -v -o /dev/null --trace-output "$tmp/trace-$$" -- "$app" 2>"$tmp/err" >/dev/null ||
    { echo "fixed_cost: $3 failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  echo "wall $(ms_since "$start")" | record "$1" "$2"
  pairs <"$tmp/err" | record "$1" "$2"
  rm -rf "$tmp/trace-$$"
}

# The app's environment and the event patterns of a tracer run (from its -v lines).
probe() {
  run_as "$tracer" -v -o /dev/null --trace-output "$tmp/probe" -- "$app" 2>"$tmp/probe.err" >/dev/null
  rm -rf "$tmp/probe"
  sed -n 's/^tracer: debug: events: //p' "$tmp/probe.err" >"$tmp/patterns"
  {
    sed -n 's/^tracer: debug: app: .*, \(LD_PRELOAD=.*\)$/\1/p' "$tmp/probe.err"
    # Its own daemon's home and the fork listener are the tracer's: the floor has neither.
    sed -n 's/^tracer: debug: app environment: //p' "$tmp/probe.err" |
      grep -v -e '^LTTNG_HOME=' -e '^TRACER_FORK_SOCKET='
  } >"$tmp/app-env"
  sed -n 's/^LTTNG_UST_CLOCK_PLUGIN=//p' "$tmp/app-env" >"$tmp/clock-plugin"
  subbuf_count=$("$tracer" --help | sed -n 's/.*; here \([0-9]*\)).*/\1/p')
}

floor_run() { # case variant [--no-wait-destroy]
  set -- "$1" "$2" "${3:-}"
  if [ "$1" = start ]; then
    run_as mkdir -p "$tmp/floor-home"
    start=$(now_ns)
    # shellcheck disable=SC2046
    run_as $(if [ -s "$tmp/clock-plugin" ]; then echo "LTTNG_UST_CLOCK_PLUGIN=$(cat "$tmp/clock-plugin")"; fi) \
      LTTNG_HOME="$tmp/floor-home" lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1
    echo "sessiond $(ms_since "$start")" | record "$1" "$2"
  fi
  set -f # the patterns hold '*'; no entry holds a blank
  # shellcheck disable=SC2046 # one argument per word of the files
  run_as LTTNG_HOME="$tmp/$(if [ "$1" = start ]; then echo floor-home; else echo own; fi)" \
    "$floor" $3 $(sed 's/^/--env\n/' "$tmp/app-env") "$tmp/floor-trace" 2097152 "$subbuf_count" \
    $(cat "$tmp/patterns") -- "$app" >"$tmp/floor.out" 2>"$tmp/floor.err" ||
    { set +f; echo "fixed_cost: lttng_floor failed:" >&2; cat "$tmp/floor.err" >&2; exit 1; }
  set +f
  pairs <"$tmp/floor.out" | record "$1" "$2"
  rm -rf "$tmp/floor-trace"
  if [ "$1" = start ]; then
    pid=$(cat "$tmp/floor-home/.lttng/lttng-sessiond.pid")
    start=$(now_ns)
    kill -TERM "$pid"
    # Gone, or a zombie that init has yet to reap.
    while [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
      sleep 0.002
    done
    echo "sessiond_stop $(ms_since "$start")" | record "$1" "$2"
    rm -rf "$tmp/floor-home"
  fi
}

med() { # case variant key -> "median [min-max]", or - when not measured
  f=$tmp/$1-$2-$3
  [ -s "$f" ] || { echo -; return; }
  sort -g "$f" | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf "%.0f [%.0f-%.0f]", m, v[1], v[NR]}'
}
median_of() { # case variant key -> median only
  sort -g "$tmp/$1-$2-$3" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

for case in $cases; do
  rm -rf "$tmp/own"
  if [ "$case" = running ]; then
    run_as mkdir "$tmp/own"
    run_as LTTNG_HOME="$tmp/own" lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1
    export LTTNG_HOME="$tmp/own"
  else
    unset LTTNG_HOME
  fi
  probe
  # A first run of each: calibration (once per machine and clock) and cold caches.
  tracer_run warmup after "$tracer"
  [ -z "$baseline" ] || tracer_run warmup before "$baseline/bin/tracer"
  r=0
  while [ $r -lt "$rounds" ]; do
    tracer_run "$case" after "$tracer"
    [ -z "$baseline" ] || tracer_run "$case" before "$baseline/bin/tracer"
    floor_run "$case" floor
    floor_run "$case" floor_nowait --no-wait-destroy
    r=$((r + 1))
  done
  if [ "$case" = running ]; then
    pid=$(cat "$tmp/own/.lttng/lttng-sessiond.pid")
    kill -TERM "$pid"
    while [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
      sleep 0.01
    done
    unset LTTNG_HOME
  fi
done

# The tracer's phases that LTTng has no part in, summed: what it does itself.
own() { # case variant -> median of prepare+reap+counts+record+analysis+(wall - phases)
  for key in wall prepare daemon reap setup launch app stop counts destroy release record analysis; do
    [ -s "$tmp/$1-$2-$key" ] || { echo -; return 0; }
  done
  paste "$tmp/$1-$2-wall" "$tmp/$1-$2-daemon" "$tmp/$1-$2-setup" "$tmp/$1-$2-launch" \
        "$tmp/$1-$2-app" "$tmp/$1-$2-stop" "$tmp/$1-$2-destroy" "$tmp/$1-$2-release" |
    awk '{print $1 - $2 - $3 - $4 - $5 - $6 - $7 - $8}' >"$tmp/$1-$2-own"
  med "$1" "$2" own
}

echo "## Fixed cost of a run"
echo
echo "\`tracer $app\` as $(if [ "$as_user" != env ]; then echo nobody; else id -un; fi), wall time and"
echo "phases in ms, median of $rounds interleaved rounds [least-most]; command:"
echo "\`BENCH_BASELINE=... bench/fixed_cost.sh\`. *before*: $(if [ -n "$baseline" ]; then echo "the build in $baseline"; else echo "not measured"; fi);"
echo "*LTTng floor*: bench/lttng_floor, the same session through liblttng-ctl with LTTng's own"
echo "waits (\`lttng_stop_tracing\`, \`lttng_destroy_session\`; *no wait*: \`lttng_destroy_session_no_wait\`)."
for case in $cases; do
  echo
  if [ "$case" = running ]; then
    echo "**A session daemon already running** (the user's own)."
  else
    echo "**No daemon running**: each run starts a daemon private to it and stops it; the"
    echo "floor starts \`lttng-sessiond --daemonize\` and stops it with SIGTERM."
  fi
  echo
  echo "| phase | before | after | LTTng floor | LTTng floor, no wait |"
  echo "|---|---|---|---|---|"
  row() { echo "| $1 | $(med "$case" before "$2") | $(med "$case" after "$2") | $(med "$case" floor "$3") | $(med "$case" floor_nowait "$3") |"; }
  if [ "$case" = start ]; then row "start the daemon" daemon sessiond; fi
  echo "| set up the session (create, channels, events, start) | $(med "$case" before setup) | $(med "$case" after setup) | $(paste "$tmp/$case-floor-create" "$tmp/$case-floor-channels" "$tmp/$case-floor-events" "$tmp/$case-floor-start" | awk '{print $1 + $2 + $3 + $4}' >"$tmp/$case-floor-setup"; med "$case" floor setup) | $(paste "$tmp/$case-floor_nowait-create" "$tmp/$case-floor_nowait-channels" "$tmp/$case-floor_nowait-events" "$tmp/$case-floor_nowait-start" | awk '{print $1 + $2 + $3 + $4}' >"$tmp/$case-floor_nowait-setup"; med "$case" floor_nowait setup) |"
  row "launch the app (fork, track its pid)" launch none
  row "the app, to its exit" app app
  row "stop (every buffer written out)" stop stop
  row "destroy the session" destroy destroy
  if [ "$case" = start ]; then row "stop the daemon" release sessiond_stop; fi
  echo "| the tracer's own (start, options, loss counts, analysis, exit) | $(own "$case" before) | $(own "$case" after) | - | - |"
  echo "| **wall time** | $(med "$case" before wall) | $(med "$case" after wall) | - | - |"
  if [ -n "$baseline" ]; then
    echo
    echo "after / before (medians): $(awk -v a="$(median_of "$case" after wall)" -v b="$(median_of "$case" before wall)" 'BEGIN {printf "%.2f", a / b}')"
  fi
done
