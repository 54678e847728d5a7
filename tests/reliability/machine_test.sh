#!/bin/sh
# Faults of the machine, not the app (docs/reliability.md): a small or full file system
# where the trace goes, a bound on the trace's size, a shared session daemon whose
# consumer died or that lives in another mount namespace, a library missing. Each scenario runs in a world the test makes itself (private mount and
# pid namespaces, empty /var/run/lttng, ~/.lttng and /dev/shm): its daemons are the
# test's own, and a small file system is a tmpfs mounted there.
#
#   machine_test.sh SCENARIO TRACER LOOP_APP
#
# SCENARIO
#   full_default, full_minimal  the trace folder on an 8 MiB tmpfs, a loop far larger: the
#                  app runs on (exit 0), the trace stays readable (babeltrace2), the report
#                  says the file system filled up, when and what was kept, and the calls
#                  after were counted: the tally is exact
#   full_mpi       the same for a 2-rank MPICH job (both ranks' traces on the tmpfs)
#   full_filler    the tmpfs filled to the last byte by another writer in mid-run, then
#                  freed: the app runs on, the trace stays readable, the report says so
#   max_size       --max-size 2M on a large file system: the folder never holds more, the
#                  tally is exact, the report says from when the trace is incomplete
#   broken_daemon  root's shared daemon (started by a first job of the test) loses its
#                  consumer (killed by its pid): the next job runs with a daemon of its
#                  own and says so in one line, `tracer --check` names the cause and fix
#   foreign_daemon root's shared daemon runs in another mount namespace, where this test's
#                  folder is another tmpfs: the job runs with a daemon of its own, says
#                  so in one line, and its trace holds every call
#   no_otf2        libotf2 hidden (an overlay's whiteouts on its folder): the tracer runs
#                  and reports; --otf2 fails before the app runs, naming the package
#   no_jansson     libjansson hidden likewise: the tracer runs and reports, tracer diff
#                  compares traces; a JSON result given to tracer diff fails in one line
#                  naming the package; tracer --check says so
# Needs root (to make the world); exit 77 (SKIP) otherwise.
set -u

scenario=$1 tracer=$2 app=$3
. "$(dirname "$0")/lib.sh"
rel_name="reliability_machine_$scenario"

if [ "${MACHINE_TEST_WORLD:-}" != inside ]; then
  [ "$(id -u)" = 0 ] || skip "needs root, to make a world of its own (mount and pid namespaces)"
  command -v unshare >/dev/null 2>&1 || skip "unshare is not installed (util-linux)"
  unshare --mount --pid --fork --mount-proc --propagation private true 2>/dev/null ||
    skip "cannot create mount and pid namespaces here"
  MACHINE_TEST_WORLD=inside exec unshare --mount --pid --fork --mount-proc \
    --propagation private sh "$0" "$@"
fi

run_dir=$(readlink -f /var/run/lttng)
mkdir -p "$run_dir" "$HOME/.lttng"
mount -t tmpfs -o mode=0755 tmpfs "$run_dir" && mount -t tmpfs tmpfs "$HOME/.lttng" &&
  mount -t tmpfs -o mode=1777 tmpfs /dev/shm || die "cannot mount the world's tmpfs folders"

rel_setup
need_exe tracer "$tracer"
need_exe loop_app "$app"
small=$tmp/small
mkdir -p "$small"
mount -t tmpfs -o size=8m tmpfs "$small" || die "cannot mount an 8 MiB tmpfs"
small_bytes=$((8 * 1024 * 1024))

# Daemons of this world (its pid namespace shows no other), zombies left out.
world_daemons() { # comm
  ps -e -o pid=,stat=,comm= | awk -v c="$1" '$3 == c && $2 !~ /^Z/ { print $1 }' | tr '\n' ' '
}
stop_world_daemons() {
  for p in $(world_daemons lttng-sessiond); do kill -s TERM "$p" 2>/dev/null; done
  sleep 1
  for p in $(world_daemons lttng-sessiond) $(world_daemons lttng-consumerd); do
    kill -s KILL "$p" 2>/dev/null
  done
}
trap 'stop_world_daemons; umount "$small"; rel_cleanup' EXIT

# babeltrace2 reads every stream folder under $1 without an error (its warnings about
# discarded events aside); prints the events, -1 on an error.
bt_events() {
  total=0
  for meta in $(find "$1" -name metadata); do
    if ! babeltrace2 "$(dirname "$meta")" >"$tmp/bt.out" 2>"$tmp/bt.err" ||
      grep -q ERROR "$tmp/bt.err"; then
      echo "babeltrace2 $(dirname "$meta"): $(grep -m3 ERROR "$tmp/bt.err")" >&2
      echo -1
      return
    fi
    total=$((total + $(wc -l <"$tmp/bt.out")))
  done
  echo "$total"
}

# The calls of a JSON tally, and those of the events it says were discarded (small
# buffers keep the trace within its bound and may lose some; a minimal-mode event holds
# 32 calls, runtime/tracer_call_batch.h): together, every call the app made.
calls_and_discarded() { # json calls_per_event
  jq --argjson k "$2" '([.backends[]? | select(.name == "opencl") | .host[] | select(.name == "clGetPlatformIDs") | .calls] | add // 0) + $k * .discarded_events' "$1"
}

# The messages and report of a run that went short of room ($1: stderr, $2: JSON).
check_partial() { # err json reason calls
  if grep -q "No trace was saved\|never registered\|Rotation failure" "$1"; then
    fail "a wrong or fatal message:"
    sed 's/^/    /' "$1"
  else
    ok "no 'No trace was saved', no fatal destroy error"
  fi
  check_eq "partial reason in the JSON report" "$3" "$(jq -r '.partial.reason // "none"' "$2")"
  at=$(jq -r '.partial.at_ns // 0' "$2")
  kept=$(jq -r '.partial.kept_bytes // 0' "$2")
  if [ "$at" -gt 0 ] && [ "$kept" -gt 0 ]; then ok "when ($at ns into the run) and what was kept ($kept bytes)"; else
    fail "no time ($at) or size kept ($kept) in the report"; fi
}

# tracer -r on a trace the full disk cut short ($1): what the recording lost is said with
# the run (PARTIAL: disk-full), not as packets gone from the files since (exit 5): the
# stream cut back to its last whole packet has its index cut with it.
check_replay_whole() {
  rc=0
  "$tracer" -r "$1" -j >"$tmp/replay.json" 2>"$tmp/replay.err" || rc=$?
  check_eq "tracer -r: exit status" 0 "$rc"
  check_eq "tracer -r: packets its index lists that its files lack" 0 \
    "$(jq '.missing_packets.not_in_file // 0' "$tmp/replay.json")"
}

loop_calls=2000000
case "$scenario" in
full_default | full_minimal)
  mode=default
  [ "$scenario" = full_minimal ] && mode=minimal
  "$tracer" -b opencl -m $mode --trace-output "$small/t" -j -o "$tmp/tally.json" "$app" $loop_calls \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  skip_if_no_opencl "$rc" "$tmp/err"
  sed 's/^/    tracer: /' "$tmp/err"
  check_eq "tracer exit (the app's)" 0 "$rc"
  if grep -q "less than a short run needs" "$tmp/err"; then ok "warned before the app started"; else
    fail "no warning about the free space before the run"; fi
  if grep -q "the file system of the trace filled up" "$tmp/err"; then ok "says the file system filled up"; else
    fail "does not say the file system filled up"; fi
  check_partial "$tmp/err" "$tmp/tally.json" disk-full
  check_eq "counting after" true "$(jq -r '.partial.counting_after' "$tmp/tally.json")"
  per_event=1
  [ $mode = minimal ] && per_event=32
  check_eq "calls in the tally (recorded and counted) and discarded" $loop_calls \
    "$(calls_and_discarded "$tmp/tally.json" $per_event)"
  used=$(du -sb "$small" | cut -f1)
  [ "$used" -le "$small_bytes" ] && ok "the trace takes $used bytes of $small_bytes"
  events=$(bt_events "$small/t")
  if [ "$events" -gt 0 ] && [ "$events" -lt $loop_calls ]; then
    ok "babeltrace2 reads $events events, fewer than the $loop_calls calls"
  else
    fail "babeltrace2 read $events events"
  fi
  "$tracer" -r "$small/t" >"$tmp/replay" 2>&1
  if grep -q "^PARTIAL: the file system of the trace filled up" "$tmp/replay"; then
    ok "the text report (tracer -r) marks the tables partial"
  else
    fail "the text report is not marked partial:"
    head -5 "$tmp/replay" | sed 's/^/    /'
  fi
  check_replay_whole "$small/t"
  ;;

full_mpi)
  command -v mpiexec.mpich >/dev/null 2>&1 || skip "mpiexec.mpich is not installed"
  per_rank=1000000
  mpiexec.mpich -n 2 "$tracer" -b opencl -m minimal --trace-output "$small/job" -j -o "$tmp/tally.json" \
    "$app" $per_rank >"$tmp/out" 2>"$tmp/err"
  rc=$?
  skip_if_no_opencl "$rc" "$tmp/err"
  sed 's/^/    tracer: /' "$tmp/err"
  check_eq "job exit" 0 "$rc"
  if grep -q "No trace was saved\|never registered\|Rotation failure" "$tmp/err"; then
    fail "a wrong or fatal message"; else ok "no 'No trace was saved', no fatal destroy error"; fi
  check_eq "calls in the job's tally (both ranks, recorded and counted) and discarded" \
    $((2 * per_rank)) "$(calls_and_discarded "$tmp/tally.json" 32)"
  check_eq "ranks marked partial in the job's report" 2 \
    "$(jq '[.notices[] | select(test("PARTIAL: rank [01].s trace stops .* [(]its file system filled up[)]"))] | length' "$tmp/tally.json")"
  for r in 0 1; do
    d=$(find "$small/job" -maxdepth 2 -type d -name "rank-$r" | head -1)
    [ -n "$d" ] || { fail "no folder for rank $r"; continue; }
    check_eq "rank $r: partial in its run record" disk-full \
      "$(sed -n 's/^partial: //p' "$d/tracer-run.txt")"
    events=$(bt_events "$d")
    if [ "$events" -gt 0 ]; then ok "rank $r: babeltrace2 reads $events events"; else
      fail "rank $r: babeltrace2 read $events events"; fi
  done
  ;;

full_filler)
  # 100,000 calls 10 us apart (several seconds); once the first packet of events is on
  # disk (the switch timer writes one a second: a fixed sleep raced a slow set-up on a
  # busy machine, and the file system filled before anything was written), another
  # writer takes every free byte of the file system, and frees it 1.5 s later.
  "$tracer" -b opencl --max-size 1G --trace-output "$small/t" -j -o "$tmp/tally.json" "$app" 100000 10 \
    >"$tmp/out" 2>"$tmp/err" &
  job=$!
  for _ in $(seq 100); do
    [ -n "$(find "$small/t" -regex '.*/tracer_[0-9]+' -size +0 2>/dev/null)" ] && break
    sleep 0.1
  done
  dd if=/dev/zero of="$small/filler" bs=64k 2>/dev/null
  filled=$(df -B1 --output=avail "$small" | tail -1 | tr -d ' ')
  sleep 1.5
  rm -f "$small/filler"
  wait $job
  rc=$?
  skip_if_no_opencl "$rc" "$tmp/err"
  sed 's/^/    tracer: /' "$tmp/err"
  say "free bytes while filled: $filled"
  check_eq "tracer exit (the app's)" 0 "$rc"
  check_partial "$tmp/err" "$tmp/tally.json" disk-full
  calls=$(tally_calls "$tmp/tally.json" | jq '.clGetPlatformIDs // 0')
  if [ "$calls" -gt 0 ] && [ "$calls" -le 100000 ]; then ok "tally of what was kept: $calls calls"; else
    fail "tally: $calls calls"; fi
  events=$(bt_events "$small/t")
  if [ "$events" -gt 0 ]; then ok "babeltrace2 reads $events events"; else
    fail "babeltrace2 read $events events"; fi
  check_replay_whole "$small/t"
  ;;

max_size)
  bound=$((2 * 1024 * 1024))
  "$tracer" -b opencl --max-size 2M --trace-output "$tmp/t" -j -o "$tmp/tally.json" "$app" $loop_calls \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  skip_if_no_opencl "$rc" "$tmp/err"
  sed 's/^/    tracer: /' "$tmp/err"
  check_eq "tracer exit (the app's)" 0 "$rc"
  used=$(du -sb "$tmp/t" | cut -f1)
  if [ "$used" -le $bound ]; then ok "the trace folder holds $used bytes, at most $bound"; else
    fail "the trace folder holds $used bytes, more than --max-size $bound"; fi
  if grep -q "the trace reached --max-size" "$tmp/err"; then ok "says the bound was reached"; else
    fail "does not say the bound was reached"; fi
  check_partial "$tmp/err" "$tmp/tally.json" max-size
  check_eq "counting after" true "$(jq -r '.partial.counting_after' "$tmp/tally.json")"
  check_eq "calls in the tally (recorded and counted) and discarded" $loop_calls \
    "$(calls_and_discarded "$tmp/tally.json" 1)"
  counted=$(jq .counted_calls "$tmp/tally.json")
  if [ "$counted" -gt 0 ] && [ "$counted" -lt $loop_calls ]; then
    ok "$counted of the calls were counted after the bound (the rest recorded)"
  else
    fail "counted calls: $counted"
  fi
  time_ns=$(jq '[.backends[]? | select(.name == "opencl") | .host[] | .time_ns] | add // 0' "$tmp/tally.json")
  if [ "$time_ns" -gt 0 ]; then ok "time of all calls: $time_ns ns"; else fail "no time"; fi
  events=$(bt_events "$tmp/t")
  if [ "$events" -gt 0 ] && [ "$events" -lt $loop_calls ]; then
    ok "babeltrace2 reads $events events, fewer than the $loop_calls calls"
  else
    fail "babeltrace2 read $events events"
  fi
  ;;

broken_daemon)
  # A first job starts root's daemon, which stays running (docs/session-daemon.md).
  "$tracer" -b opencl --trace-output "$tmp/first" -j -o "$tmp/first.json" "$app" 1000 >/dev/null 2>"$tmp/err1"
  rc=$?
  skip_if_no_opencl "$rc" "$tmp/err1"
  check_eq "first job" 0 "$rc"
  daemon=$(echo $(world_daemons lttng-sessiond))
  [ -n "$daemon" ] || die "no daemon left by the first job"
  consumers=$(ps -e -o pid=,ppid=,comm= | awk -v d="$daemon" '$2 == d && $3 == "lttng-consumerd" { print $1 }')
  [ -n "$consumers" ] || die "the daemon $daemon has no consumer to kill"
  for p in $consumers; do kill -s KILL "$p"; done
  say "killed lttng-consumerd $(echo $consumers) of lttng-sessiond $daemon"
  sleep 0.5
  "$tracer" --check >"$tmp/check" 2>&1
  check_rc=$?
  sed 's/^/    check: /' "$tmp/check"
  if grep -q "cannot serve" "$tmp/check" && grep -q "lttng-consumerd" "$tmp/check" &&
    grep -q "Fix: kill $daemon" "$tmp/check"; then
    ok "tracer --check names the cause and the fix"
  else
    fail "tracer --check does not name the cause and the fix"
  fi
  if grep -q "FAIL  session" "$tmp/check"; then fail "tracer --check fails the session (exit $check_rc)"; else
    ok "tracer --check: a session works (exit $check_rc)"; fi
  "$tracer" -b opencl --trace-output "$tmp/second" -j -o "$tmp/second.json" "$app" 5000 >/dev/null 2>"$tmp/err2"
  rc=$?
  sed 's/^/    tracer: /' "$tmp/err2"
  check_eq "job on the broken daemon" 0 "$rc"
  check_eq "its tally" '{"clGetPlatformIDs":5000}' "$(tally_calls "$tmp/second.json")"
  check_eq "lines saying it runs with a daemon of its own" 1 \
    "$(grep -c "cannot serve.*this job runs with a session daemon of its own" "$tmp/err2")"
  check_eq "daemons left: the broken one only" "$daemon" "$(echo $(world_daemons lttng-sessiond))"
  ;;

foreign_daemon)
  # Root's shared daemon started in a mount namespace of its own whose view of this test's
  # folder is another (a tmpfs over it: a container's or a service's private /tmp). Its
  # socket is in the world's /var/run/lttng, so it answers the tracer; the trace it would
  # write goes into its own files. The job must see it, use a daemon of its own and say so.
  unshare --mount --propagation private sh -c \
    "mount -t tmpfs tmpfs '$tmp' && exec lttng-sessiond --daemonize --no-kernel" \
    >"$tmp/sessiond.out" 2>&1 || die "cannot start a daemon in a namespace of its own: $(cat "$tmp/sessiond.out")"
  daemon=$(echo $(world_daemons lttng-sessiond))
  [ -n "$daemon" ] || die "no daemon left running in its namespace"
  [ "$(readlink /proc/$daemon/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] ||
    die "the daemon $daemon is in this test's mount namespace"
  say "lttng-sessiond $daemon in mount namespace $(readlink /proc/$daemon/ns/mnt)"
  "$tracer" -b opencl --trace-output "$tmp/t" -j -o "$tmp/t.json" "$app" 3000 >/dev/null 2>"$tmp/err"
  rc=$?
  skip_if_no_opencl "$rc" "$tmp/err"
  sed 's/^/    tracer: /' "$tmp/err"
  check_eq "job beside a daemon of another mount namespace" 0 "$rc"
  check_eq "its tally" '{"clGetPlatformIDs":3000}' "$(tally_calls "$tmp/t.json")"
  check_eq "lines saying why it runs with a daemon of its own" 1 \
    "$(grep -c "lttng-sessiond, pid $daemon) runs in another mount namespace.*this job runs with a session daemon of its own" "$tmp/err")"
  calls=$(for meta in $(find "$tmp/t" -name metadata); do babeltrace2 "$(dirname "$meta")"; done |
    grep -c 'lttng_ust_opencl:clGetPlatformIDs')
  check_eq "calls babeltrace2 reads in the trace" 3000 "$calls"
  check_eq "daemons left: the other namespace's only" "$daemon" "$(echo $(world_daemons lttng-sessiond))"
  ;;

no_otf2)
  # A node that carries LTTng but not libotf2 (a GPU node, docs/cuda.md): the library's
  # files hidden behind an overlay's whiteouts. The tracer starts, traces and reports;
  # --otf2 alone needs the library, and says which package brings it, before the app runs.
  otf2=$(ldconfig -p | sed -n 's/.*libopen-trace-format2\.so\.[0-9]* .*=> //p' | head -1)
  [ -n "$otf2" ] || skip "libotf2 is not installed here: nothing to hide"
  libdir=$(dirname "$(readlink -f "$otf2")")
  hide=$tmp/hide
  mkdir -p "$hide" && mount -t tmpfs tmpfs "$hide" && mkdir "$hide/upper" "$hide/work" ||
    die "cannot make the overlay's folders"
  for f in "$libdir"/libopen-trace-format2.so*; do mknod "$hide/upper/$(basename "$f")" c 0 0; done
  mount -t overlay overlay -o "lowerdir=$libdir,upperdir=$hide/upper,workdir=$hide/work" "$libdir" ||
    skip "cannot mount an overlay on $libdir here"
  [ ! -e "$otf2" ] || die "$otf2 is still there"
  ldd "$tracer" >"$tmp/ldd" 2>&1
  if grep -q "not found" "$tmp/ldd"; then fail "the tracer needs a library that is not here: $(grep "not found" "$tmp/ldd")"; else
    ok "ldd: the tracer needs no library that is missing"; fi
  "$tracer" -b opencl --trace-output "$tmp/t" -j -o "$tmp/t.json" "$app" 2000 >/dev/null 2>"$tmp/err"
  rc=$?
  skip_if_no_opencl "$rc" "$tmp/err"
  sed 's/^/    tracer: /' "$tmp/err"
  check_eq "a run without libotf2" 0 "$rc"
  check_eq "its tally" '{"clGetPlatformIDs":2000}' "$(tally_calls "$tmp/t.json")"
  package=libopen-trace-format2-10
  "$tracer" -b opencl --trace-output "$tmp/o" --otf2 "$tmp/archive" "$app" 10 >/dev/null 2>"$tmp/err"
  rc=$?
  sed 's/^/    tracer: /' "$tmp/err"
  check_eq "--otf2 without libotf2" 4 "$rc"
  check_eq "lines naming the library and its package" 1 \
    "$(grep -c "Cannot write the OTF2 archive: libopen-trace-format2.so.[0-9]*: cannot open shared object file.*install the Debian package $package" "$tmp/err")"
  if [ -e "$tmp/o" ] || [ -e "$tmp/archive" ]; then fail "--otf2 without libotf2 made files"; else
    ok "--otf2 without libotf2: the app did not run, nothing made"; fi
  "$tracer" --check >"$tmp/check" 2>&1
  if grep -q "otf2.*--otf2 cannot be used: .*install the Debian package $package" "$tmp/check"; then
    ok "tracer --check says --otf2 cannot be used, and why"
  else
    fail "tracer --check says nothing of libotf2: $(grep -i otf2 "$tmp/check")"
  fi
  "$tracer" -r "$tmp/t" --otf2 "$tmp/archive" >"$tmp/replay" 2>"$tmp/err"
  rc=$?
  check_eq "tracer -r --otf2 without libotf2" 4 "$rc"
  if grep -q "install the Debian package $package" "$tmp/err" && grep -q '^Total' "$tmp/replay"; then
    ok "tracer -r --otf2: the package named, the tables printed"
  else
    fail "tracer -r --otf2: $(cat "$tmp/err")"
  fi
  umount "$libdir"
  ;;

no_jansson)
  # A node without libjansson (Jansson reads JSON results for tracer diff alone): hidden
  # as libotf2 is above.
  jansson=$(ldconfig -p | sed -n 's/.*libjansson\.so\.[0-9]* .*=> //p' | head -1)
  [ -n "$jansson" ] || skip "libjansson is not installed here: nothing to hide"
  libdir=$(dirname "$(readlink -f "$jansson")")
  hide=$tmp/hide
  mkdir -p "$hide" && mount -t tmpfs tmpfs "$hide" && mkdir "$hide/upper" "$hide/work" ||
    die "cannot make the overlay's folders"
  for f in "$libdir"/libjansson.so*; do mknod "$hide/upper/$(basename "$f")" c 0 0; done
  mount -t overlay overlay -o "lowerdir=$libdir,upperdir=$hide/upper,workdir=$hide/work" "$libdir" ||
    skip "cannot mount an overlay on $libdir here"
  [ ! -e "$jansson" ] || die "$jansson is still there"
  ldd "$tracer" >"$tmp/ldd" 2>&1
  if grep -q "not found" "$tmp/ldd"; then fail "the tracer needs a library that is not here: $(grep "not found" "$tmp/ldd")"; else
    ok "ldd: the tracer needs no library that is missing"; fi
  "$tracer" -b opencl --trace-output "$tmp/t" -j -o "$tmp/t.json" "$app" 2000 >/dev/null 2>"$tmp/err"
  rc=$?
  skip_if_no_opencl "$rc" "$tmp/err"
  sed 's/^/    tracer: /' "$tmp/err"
  check_eq "a run without libjansson" 0 "$rc"
  check_eq "its tally" '{"clGetPlatformIDs":2000}' "$(tally_calls "$tmp/t.json")"
  "$tracer" diff "$tmp/t" "$tmp/t" -j >"$tmp/diff.json" 2>"$tmp/err"
  check_eq "tracer diff of two traces without libjansson" 0 "$?"
  package=libjansson4
  "$tracer" diff "$tmp/t.json" "$tmp/t" >"$tmp/diff.out" 2>"$tmp/err"
  rc=$?
  sed 's/^/    tracer: /' "$tmp/err"
  check_eq "tracer diff of a JSON result without libjansson" 4 "$rc"
  check_eq "lines on stderr" 1 "$(grep -c "" "$tmp/err")"
  check_eq "lines naming the library and its package" 1 \
    "$(grep -c "Cannot compare $tmp/t.json: Cannot read a JSON result: libjansson.so.[0-9]*: cannot open shared object file.*install the Debian package $package" "$tmp/err")"
  "$tracer" --check >"$tmp/check" 2>&1
  if grep -q "jansson.*tracer diff cannot read JSON results: .*install the Debian package $package" "$tmp/check"; then
    ok "tracer --check says JSON results cannot be compared, and why"
  else
    fail "tracer --check says nothing of libjansson: $(grep -i jansson "$tmp/check")"
  fi
  umount "$libdir"
  ;;

*) die "unknown scenario $scenario" ;;
esac
rel_finish
