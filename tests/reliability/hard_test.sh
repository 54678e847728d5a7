#!/bin/sh
# Apps that are hard on an interposer behave exactly as untraced and are traced correctly.
# Usage: hard_test.sh SCENARIO TRACER HARD_APP DLOPEN_APP
#
# Every scenario runs the app untraced, then as `tracer -j -o TALLY -- APP ...`, and
# checks: the same exit status, the same stdout bytes, the tally counts exactly the calls
# the app counted itself (rel_count.h), and `tracer -r` gives the same JSON.
#   threads   64 threads x 200 rounds (clGetPlatformIDs, clGetPlatformInfo); the tally
#             sees 65 threads (64 and main) in 1 process
#   recurse   20000 levels of recursion, a clGetPlatformIDs at each, on a 256 MiB stack
#   sigalrm   a 1 kHz SIGALRM handler calls clGetPlatformIDs while main does, for 0.5 s
#   dlopen    dlopen("libOpenCL.so.1") + calls through dlsym()ed pointers (a handle's,
#             RTLD_DEFAULT's) and the normal symbol + dlclose(), 20 times: all traced
#   bigout    200 MiB on stdout (sha256 compared; the analysis goes to -o FILE)
#   stdin     10 MiB piped through the app (cat-like), compared byte for byte
#   exit42    exit(42): the tracer exits 42 and reports it (JSON and text)
#   closefds  the app closes descriptors 0-1023 first (LTTng-UST's too, but for
#             liblttng-ust-fd, which the tracer preloads): exit 0 as untraced, every call
#   orphan    the app leaves a daemonized helper running (fork, setsid, fork), which waits
#             for the main process to end and makes as many calls again: the tracer waits
#             for it (--wait all, the default), the tally has both processes' calls
#   orphan-primary  the same with --wait primary: the tracer stops at the main process's
#             end, and the report says one process of the app was still running
#   daemon    the helper ignores SIGTERM and never ends: the tracer waits for it; a SIGTERM
#             sent to the tracer is passed on to it (which ignores it), a second one stops
#             the wait: exit 0, the report says one process was still running
#   init      orphan's app, the tracer the init of a pid namespace of its own (as in a
#             container: `docker run IMAGE tracer APP`), with no session daemon there: the
#             daemon it starts is re-parented to it, yet it waits for the app's helper
#             alone, not for the daemon (root and unshare(1) needed, else a skip)
#   reexec    the app runs itself again with an LD_PRELOAD of its own: the new image is
#             not traced (the tally has the first image's calls) and the report says so
set -u
. "$(dirname "$0")/lib.sh"
[ $# -eq 4 ] || { echo "usage: $0 SCENARIO TRACER HARD_APP DLOPEN_APP" >&2; exit 2; }
scenario=$1
tracer=$(abspath "$2")
hard=$(abspath "$3")
dlopen_app=$(abspath "$4")
rel_setup
need_exe tracer "$tracer"
need_exe "hard app" "$hard"
need_exe "dlopen app" "$dlopen_app"

code=0
case $scenario in
threads) cmd="$hard threads 200" ;;
recurse) cmd="$hard recurse 20000" ;;
sigalrm) cmd="$hard sigalrm 500" ;;
dlopen) cmd="$dlopen_app 20" ;;
bigout) cmd="$hard bigout 200" ;;
stdin)
  cmd="$hard cat"
  head -c 10485760 /dev/urandom >"$tmp/in" || die "cannot make 10 MiB of input"
  ;;
exit42) cmd="$hard exit42 100" code=42 ;;
closefds) cmd="$hard closefds 100" ;;
orphan | orphan-primary | init) cmd="$hard orphan 100" ;;
daemon) cmd="$hard daemon 100" ;;
reexec) cmd="$hard reexec 100" ;;
*) die "unknown scenario $scenario" ;;
esac

# run NAME [TRACER-OPTIONS]: the app untraced (no options) or traced; stdout in
# $tmp/NAME.out (for bigout: its sha256 in $tmp/NAME.sha), exit status in $rc. Paths
# have no spaces (mktemp), so $cmd splits into the app and its arguments.
# shellcheck disable=SC2086 # $cmd is the app and its arguments
run() {
  name=$1
  shift
  rc=0
  if [ $# -gt 0 ]; then set -- "$tracer" "$@" --trace-output "$tmp/trace" -j -o "$tmp/live.json" --; fi
  case $scenario in
  bigout)
    # The exit status of the left side of a pipe, without pipefail.
    { REL_COUNT="$tmp/$name.count" "$@" $cmd 2>"$tmp/$name.err"; echo $? >"$tmp/$name.rc"; } |
      sha256sum | cut -d' ' -f1 >"$tmp/$name.sha"
    rc=$(cat "$tmp/$name.rc")
    ;;
  stdin)
    { cat "$tmp/in"; echo $? >"$tmp/$name.catrc"; } |
      REL_COUNT="$tmp/$name.count" "$@" $cmd >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    ;;
  daemon)
    # The helper never ends: the traced run is stopped by two SIGTERMs to the tracer.
    REL_COUNT="$tmp/$name.count" "$@" $cmd >"$tmp/$name.out" 2>"$tmp/$name.err" &
    pid=$!
    rel_bg_pids="$rel_bg_pids $pid"
    wait_for_count "$tmp/$name.count.child" clGetPlatformInfo 110 20 ||
      die "$name: the helper made no call after the main process ended: $(cat "$tmp/$name.err")"
    rel_bg_pids="$rel_bg_pids $(count_value "$tmp/$name.count.child" pid)"
    if [ $# -gt 0 ]; then
      rel_tracer_pids="$rel_tracer_pids $pid"
      kill -s TERM "$pid"
      sleep 1
      if kill -0 "$pid" 2>/dev/null; then
        ok "a first SIGTERM to the tracer is passed on to the helper (which ignores it)"
      else
        fail "the tracer ended at the first SIGTERM, its helper still running"
      fi
      kill -s TERM "$pid"
    fi
    wait "$pid" || rc=$?
    ;;
  init)
    # pid 1 of its namespace, with an empty /var/run/lttng and ~/.lttng: no daemon there.
    # A tracer that waited for its daemon would never end: timeout's 124 says so.
    if [ $# -gt 0 ]; then
      set -- timeout 120 unshare --mount --pid --fork --mount-proc --propagation private \
        sh -c 'mount -t tmpfs tmpfs /var/run/lttng && mkdir -p "$HOME/.lttng" &&
               mount -t tmpfs tmpfs "$HOME/.lttng" && exec "$@"' sh "$@"
    fi
    REL_COUNT="$tmp/$name.count" "$@" $cmd >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    ;;
  *)
    REL_COUNT="$tmp/$name.count" "$@" $cmd >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    ;;
  esac
}

# sum_counts A B OUT: two count files added up, function by function (rel_count.h's form).
sum_counts() {
  awk '{ n[$1] += $2 } END { for (k in n) printf "%s %010d\n", k, n[k] }' "$1" "$2" >"$3"
}

run plain
skip_if_no_opencl "$rc" "$tmp/plain.err"
check_eq "untraced: exit status" "$code" "$rc"
[ "$rc" = "$code" ] || sed 's/^/    /' "$tmp/plain.err"
case $scenario in
orphan* | init) # untraced, nobody waits for the helper: the test does
  wait_for_count "$tmp/plain.count.child" clGetPlatformInfo 100 20 ||
    die "the untraced app's helper did not make its 100 rounds in 20 s"
  ;;
esac
if [ "$scenario" = init ]; then
  [ "$(id -u)" = 0 ] || skip "the tracer as a pid namespace's init needs root (unshare --pid)"
  mkdir -p /var/run/lttng
  unshare --mount --pid --fork --mount-proc true 2>/dev/null ||
    skip "unshare --mount --pid --fork fails here"
fi
if [ "$scenario" = orphan-primary ]; then
  run traced -q --wait primary
else
  run traced -q
fi
check_eq "traced: tracer's exit status (the app's)" "$code" "$rc"
[ "$rc" = "$code" ] || sed 's/^/    /' "$tmp/traced.err"

case $scenario in
bigout)
  check_eq "stdout's sha256, traced = untraced ($(cat "$tmp/plain.sha"))" "$(cat "$tmp/plain.sha")" \
    "$(cat "$tmp/traced.sha")"
  if jq -e '.backends' "$tmp/live.json" >/dev/null 2>&1; then
    ok "the analysis went to the -o file, not to stdout"
  else
    fail "no JSON tally in the -o file"
  fi
  ;;
stdin)
  same_bytes "untraced: stdout = stdin" "$tmp/in" "$tmp/plain.out"
  same_bytes "traced: stdout = stdin" "$tmp/in" "$tmp/traced.out"
  ;;
*)
  same_bytes "stdout traced = untraced" "$tmp/plain.out" "$tmp/traced.out"
  ;;
esac

if [ -s "$tmp/live.json" ]; then
  # With events lost the counts could not be exact, whatever else is right.
  check_eq "discarded events" 0 "$(jq '.discarded_events' "$tmp/live.json")"
  if [ "$scenario" = dlopen ]; then
    # A pointer from dlsym() on the app's own handle reaches the library without the
    # dynamic linker's symbol search; the runtime's dlsym hands out the wrapper instead
    # (runtime/tracer_wrappers.c), so those calls (clGetPlatformInfo here) are traced
    # exactly, like the normal symbol and RTLD_DEFAULT's.
    check_eq "calls through dlsym(handle) are traced" \
      "$(awk '$1 == "clGetPlatformInfo" {print $2 + 0}' "$tmp/traced.count")" \
      "$(jq '[.backends[] | .host[] | select(.name == "clGetPlatformInfo") | .calls] | add // 0' "$tmp/live.json")"
  fi
  case $scenario in
  orphan | init)
    sum_counts "$tmp/traced.count" "$tmp/traced.count.child" "$tmp/both.count"
    check_counts "the main process and its daemonized helper" "$tmp/both.count" "$tmp/live.json"
    check_eq "processes in the tally" 2 \
      "$(jq -r '[.backends[] | select(.name == "opencl") | .processes] | add' "$tmp/live.json")"
    ;;
  orphan-primary | daemon)
    check_eq "JSON app.processes_left" 1 \
      "$(jq -r '.app.processes_left // "absent"' "$tmp/live.json")"
    main_calls=$(count_value "$tmp/traced.count" clGetPlatformInfo)
    got=$(jq '[.backends[] | .host[] | select(.name == "clGetPlatformInfo") | .calls] | add // 0' "$tmp/live.json")
    if [ "$got" -ge "$main_calls" ]; then
      ok "the main process's $main_calls calls of clGetPlatformInfo are in the tally ($got)"
    else
      fail "the tally has $got calls of clGetPlatformInfo, the main process made $main_calls"
    fi
    wait_for_count "$tmp/traced.count.child" clGetPlatformInfo 100 20 ||
      fail "the helper did not go on after the tracer stopped"
    ;;
  *) check_counts "$scenario" "$tmp/traced.count" "$tmp/live.json" ;;
  esac
else
  fail "the tracer wrote no tally"
fi
rrc=0
"$tracer" -r "$tmp/trace" -j -o "$tmp/replay.json" 2>"$tmp/replay.err" || rrc=$?
check_eq "tracer -r exit status" 0 "$rrc"
same_json "tracer -r gives the same JSON as the live run" "$tmp/live.json" "$tmp/replay.json"

case $scenario in
threads)
  check_eq "processes and threads in the tally" "1 65" \
    "$(jq -r '[.backends[] | select(.name == "opencl") | .processes, .threads] | join(" ")' "$tmp/live.json")"
  ;;
sigalrm)
  say "untraced: $(grep 'hard sigalrm:' "$tmp/plain.err")"
  say "traced:   $(grep 'hard sigalrm:' "$tmp/traced.err")"
  handler=$(sed -n 's/.*the handler \([0-9]*\) (\([0-9]*\) while.*/\1 calls, \2 of them while main was inside clGetPlatformIDs/p' "$tmp/traced.err")
  missing=$(($(count_value "$tmp/traced.count" clGetPlatformIDs) - $(jq '[.backends[] | .host[] | select(.name == "clGetPlatformIDs") | .calls] | add // 0' "$tmp/live.json")))
  say "the tally misses $missing of the app's calls; the handler made $handler"
  ;;
orphan-primary | daemon)
  "$tracer" -r "$tmp/trace" -o "$tmp/replay.txt" 2>/dev/null
  check_eq "text tally's first line" \
    "1 process of the app was still running when the tracer stopped recording: its calls after that are not in the tables." \
    "$(head -n 1 "$tmp/replay.txt")"
  ;;
reexec)
  check_eq "untraced: the new image's calls" 100 "$(count_value "$tmp/plain.count.child" clGetPlatformInfo)"
  check_eq "traced: the new image's calls (untraced)" 100 "$(count_value "$tmp/traced.count.child" clGetPlatformInfo)"
  "$tracer" -r "$tmp/trace" -o "$tmp/replay.txt" 2>/dev/null
  if grep -Eq "^Note: process [0-9]+ ran /proc/self/exe with an LD_PRELOAD of its own that leaves the tracer's libraries out: that program was not traced\.$" "$tmp/replay.txt"; then
    ok "the report says the re-executed image was not traced"
  else
    fail "no note that the re-executed image was not traced: $(grep '^Note' "$tmp/replay.txt")"
  fi
  ;;
exit42)
  check_eq "JSON app.status" "exited with status 42" "$(jq -r '.app.status // "absent"' "$tmp/live.json")"
  "$tracer" -r "$tmp/trace" -o "$tmp/replay.txt" 2>/dev/null
  check_eq "text tally's first line" \
    "The app exited with status 42: the tables count what it recorded until then." \
    "$(head -n 1 "$tmp/replay.txt")"
  ;;
esac
rel_finish "$scenario"
