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
  *)
    REL_COUNT="$tmp/$name.count" "$@" $cmd >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    ;;
  esac
}

run plain
skip_if_no_opencl "$rc" "$tmp/plain.err"
check_eq "untraced: exit status" "$code" "$rc"
[ "$rc" = "$code" ] || sed 's/^/    /' "$tmp/plain.err"
run traced -q
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
  check_counts "$scenario" "$tmp/traced.count" "$tmp/live.json"
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
exit42)
  check_eq "JSON app.status" "exited with status 42" "$(jq -r '.app.status // "absent"' "$tmp/live.json")"
  "$tracer" -r "$tmp/trace" -o "$tmp/replay.txt" 2>/dev/null
  check_eq "text tally's first line" \
    "The app exited with status 42: the tables count what it recorded until then." \
    "$(head -n 1 "$tmp/replay.txt")"
  ;;
esac
rel_finish "$scenario"
