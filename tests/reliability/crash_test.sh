#!/bin/sh
# The app dies, and the tracer still reports everything it did before.
# Usage: crash_test.sh SCENARIO TRACER CRASH_APP
#
# SCENARIO (the app is apps/crash.c, which rewrites its count file after every call):
#   segv          a fault in the app's code (null-page write)
#   segv-in-call  a fault inside clGetPlatformInfo (bad buffer); also run in minimal mode,
#                 where the call that never returned is reported as unfinished
#   segv-handler  the same fault, in an app that installs its own SIGSEGV handler where
#                 none is set (as Open MPI does for its crash report): the handler's line
#                 is on stdout traced as untraced (the runtime's handler stays out of the
#                 app's sight, runtime/tracer_signals.h), and the call is still unfinished
#   sigint, sigterm, sighup
#                 the signal sent to the tracer (forwarded to the app), whose disposition
#                 is the default: the app dies of it; run in default and minimal mode,
#                 where the runtime writes its batches before the app dies (every call)
#   abort         abort()
#   exit          _exit(7), no atexit handlers or destructors
#   sigkill       SIGKILL sent to the app from outside
#   timeout       `timeout -k 2 3 tracer ...`: SIGTERM to the tracer and its process
#                 group (the app too: it dies of it), SIGKILL 2 s later if still running
#   batch         a batch system's time limit as Slurm applies it: SIGTERM to every
#                 process of the job step (tracer and app; the app catches it and goes on
#                 with 30 more rounds, a checkpoint say, then prints how many SIGTERMs it
#                 got), then after KillWait (2 s here) SIGKILL to every process still
#                 there: tracer included. Untraced, the step is the app alone: it gets
#                 one SIGTERM, and its stdout says so
# Checks in every scenario: the tally counts exactly the calls the app made before it
# died (its own count, flushed to disk as it went); the report says how the app ended
# (JSON app.status and app.exit_code, the text tally's first line, the tracer's message);
# the tracer's exit status is the one a shell gives for the app (128+N for signal N);
# the app's stdout is the same bytes as untraced; `tracer -r` on the trace gives the same
# JSON; no session of this tracer is left in the session daemon.
set -u
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 SCENARIO TRACER CRASH_APP" >&2; exit 2; }
scenario=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
rel_setup
need_exe tracer "$tracer"
need_exe "crash app" "$app"
rounds=50 # (rounds - 1) % 4 != 0: the last round ends with clGetPlatformInfo

# What each scenario's app does, and how the shell reports its end.
case $scenario in
segv) mode=segv status="killed by signal 11 (SIGSEGV)" code=139 ;;
segv-in-call) mode=segv-in-call status="killed by signal 11 (SIGSEGV)" code=139 ;;
segv-handler) mode=segv-handler status="killed by signal 11 (SIGSEGV)" code=139 ;;
sigint) mode=wait status="killed by signal 2 (SIGINT)" code=130 sig=INT ;;
sigterm) mode=wait status="killed by signal 15 (SIGTERM)" code=143 sig=TERM ;;
sighup) mode=wait status="killed by signal 1 (SIGHUP)" code=129 sig=HUP ;;
abort) mode=abort status="killed by signal 6 (SIGABRT)" code=134 ;;
exit) mode=exit status="exited with status 7" code=7 ;;
sigkill) mode=wait status="killed by signal 9 (SIGKILL)" code=137 ;;
timeout) mode=wait status="killed by signal 15 (SIGTERM)" code=143 ;;
batch) mode=term-ignore status="killed by signal 9 (SIGKILL)" code=137 ;;
*) die "unknown scenario $scenario" ;;
esac
case $status in
killed*) text_line="The app was $status: the tables count what it recorded until then." ;;
*) text_line="The app $status: the tables count what it recorded until then." ;;
esac

# run_app NAME: the app untraced, ended like the scenario wants; exit status in $rc.
run_app() {
  rc=0
  case $scenario in
  sigkill | timeout | batch | sigint | sigterm | sighup)
    # A shell's background job starts with SIGINT ignored: the app gets the default.
    REL_COUNT="$tmp/$1.count" env --default-signal=INT,TERM,HUP "$app" "$mode" "$rounds" 30 \
      >"$tmp/$1.out" 2>"$tmp/$1.err" &
    pid=$!
    rel_bg_pids="$rel_bg_pids $pid"
    wait_for_count "$tmp/$1.count" clGetPlatformInfo "$rounds" 20 ||
      die "the untraced app did not make its $rounds rounds in 20 s: $(cat "$tmp/$1.err")"
    if [ "$scenario" = sigkill ]; then
      kill -KILL "$pid"
    elif [ -n "${sig:-}" ]; then
      kill -s "$sig" "$pid"
    elif [ "$scenario" = timeout ]; then
      kill -TERM "$pid"
    else
      kill -TERM "$pid"
      wait_for_count "$tmp/$1.count" clGetPlatformInfo $((rounds + 30)) 20 ||
        die "the untraced app did not make 30 more rounds after SIGTERM"
      kill -KILL "$pid"
    fi
    wait "$pid" || rc=$?
    ;;
  *)
    REL_COUNT="$tmp/$1.count" "$app" "$mode" "$rounds" >"$tmp/$1.out" 2>"$tmp/$1.err" || rc=$?
    ;;
  esac
}

run_app plain
skip_if_no_opencl "$rc" "$tmp/plain.err"
check_eq "untraced: the shell's exit status for the app" "$code" "$rc"

# The traced run. Its tally goes to a file, so stdout is the app's alone.
trace="$tmp/trace"
run_traced() { # extra tracer options...
  rc=0
  case $scenario in
  sigkill)
    REL_COUNT="$tmp/traced.count" "$tracer" "$@" --trace-output "$trace" -j -o "$tmp/live.json" \
      -- "$app" "$mode" "$rounds" >"$tmp/traced.out" 2>"$tmp/traced.err" &
    tpid=$!
    rel_tracer_pids="$rel_tracer_pids $tpid"
    rel_bg_pids="$rel_bg_pids $tpid"
    wait_for_count "$tmp/traced.count" clGetPlatformInfo "$rounds" 20 ||
      die "the traced app did not make its $rounds rounds in 20 s: $(cat "$tmp/traced.err")"
    kill -KILL "$(count_value "$tmp/traced.count" pid)"
    wait "$tpid" || rc=$?
    ;;
  sigint | sigterm | sighup)
    # The signal goes to the tracer alone, which passes it on to the app.
    REL_COUNT="$tmp/traced.count" env --default-signal=INT,TERM,HUP "$tracer" "$@" \
      --trace-output "$trace" -j -o "$tmp/live.json" -- "$app" "$mode" "$rounds" \
      >"$tmp/traced.out" 2>"$tmp/traced.err" &
    tpid=$!
    rel_tracer_pids="$rel_tracer_pids $tpid"
    rel_bg_pids="$rel_bg_pids $tpid"
    wait_for_count "$tmp/traced.count" clGetPlatformInfo "$rounds" 20 ||
      die "the traced app did not make its $rounds rounds in 20 s: $(cat "$tmp/traced.err")"
    kill -s "$sig" "$tpid"
    wait "$tpid" || rc=$?
    ;;
  timeout)
    # timeout runs the tracer in its own process group; at the deadline it signals the
    # tracer and the whole group, so the app gets SIGTERM directly (and forwarded).
    # --preserve-status: timeout exits with the tracer's status instead of 124.
    REL_COUNT="$tmp/traced.count" timeout --preserve-status -k 2 3 "$tracer" "$@" \
      --trace-output "$trace" -j -o "$tmp/live.json" -- "$app" "$mode" "$rounds" \
      >"$tmp/traced.out" 2>"$tmp/traced.err" &
    tpid=$!
    rel_bg_pids="$rel_bg_pids $tpid"
    started=$(date +%s)
    wait_for_count "$tmp/traced.count" clGetPlatformInfo "$rounds" 3 ||
      die "the traced app did not make its $rounds rounds before the time limit"
    rel_tracer_pids="$rel_tracer_pids $(parent_of "$(count_value "$tmp/traced.count" pid)")"
    wait "$tpid" || rc=$?
    say "timeout returned after $(($(date +%s) - started)) s"
    ;;
  batch)
    # The job step: the tracer leads a process group of its own (setsid), like the
    # processes of one step in their cgroup. Slurm signals each of them.
    REL_COUNT="$tmp/traced.count" setsid -w "$tracer" "$@" --trace-output "$trace" -j \
      -o "$tmp/live.json" -- "$app" "$mode" "$rounds" 30 \
      >"$tmp/traced.out" 2>"$tmp/traced.err" &
    tpid=$!
    rel_bg_pids="$rel_bg_pids $tpid"
    wait_for_count "$tmp/traced.count" clGetPlatformInfo "$rounds" 20 ||
      die "the traced app did not make its $rounds rounds in 20 s: $(cat "$tmp/traced.err")"
    step=$(count_value "$tmp/traced.count" pgid)
    rel_tracer_pids="$rel_tracer_pids $(parent_of "$(count_value "$tmp/traced.count" pid)")"
    rel_bg_pids="$rel_bg_pids -$step"
    say "time limit: SIGTERM to the job step (processes: $(pgrep -g "$step" | tr '\n' ' '))"
    kill -s TERM -- "-$step"
    i=0
    while [ $i -lt 40 ] && kill -s 0 -- "-$step" 2>/dev/null; do
      sleep 0.05
      i=$((i + 1))
    done
    if kill -s 0 -- "-$step" 2>/dev/null; then
      say "KillWait over: SIGKILL to what is left of the step: $(pgrep -g "$step" | tr '\n' ' ')"
      kill -s KILL -- "-$step" 2>/dev/null
    fi
    wait "$tpid" || rc=$?
    ;;
  *)
    REL_COUNT="$tmp/traced.count" "$tracer" "$@" --trace-output "$trace" -j -o "$tmp/live.json" \
      -- "$app" "$mode" "$rounds" >"$tmp/traced.out" 2>"$tmp/traced.err" &
    tpid=$!
    rel_tracer_pids="$rel_tracer_pids $tpid"
    wait "$tpid" || rc=$?
    ;;
  esac
}

# check_run LABEL: every check on the run just made.
check_run() {
  label=$1
  if [ "$scenario" = batch ]; then
    # Known limitation (cli/control/launch.h): a signal sent to every process of the job reaches
    # the app directly and again through the tracer, which cannot tell it from one sent
    # to the tracer alone. The app may then die of the second SIGTERM before the SIGKILL
    # comes: whatever it died of, the report and the exit status must say so, and agree.
    case $rc in
    137) status="killed by signal 9 (SIGKILL)" ;;
    143) status="killed by signal 15 (SIGTERM)" ;;
    *) fail "$label: the app should die of SIGTERM or SIGKILL; the tracer exited $rc" ;;
    esac
    code=$rc
    text_line="The app was $status: the tables count what it recorded until then."
    say "$label: the app was $status (untraced it is SIGKILLed after its checkpoint)"
  else
    check_eq "$label: tracer's exit status (the shell's for the app)" "$code" "$rc"
    same_bytes "$label: the app's stdout is the same as untraced" "$tmp/plain.out" "$tmp/traced.out"
  fi
  if [ "$scenario" = batch ] && [ ! -s "$tmp/live.json" ]; then
    # The step's SIGKILL killed the tracer too: no live report exists, and nobody saw how
    # the app ended. What counts is what the saved trace still tells (tracer -r, below):
    # every call, and that the end was not seen.
    say "$label: the tracer was SIGKILLed with the step: no live report; checking tracer -r"
    status="end was not seen (the tracer was stopped before it)"
    text_line="The app's $status: the tables count what it recorded until then."
  elif [ -s "$tmp/live.json" ]; then
    check_eq "$label: JSON app.status" "$status" "$(jq -r '.app.status // "absent"' "$tmp/live.json")"
    check_eq "$label: JSON app.exit_code" "$code" "$(jq -r '.app.exit_code // "absent"' "$tmp/live.json")"
    check_counts "$label: live tally" "$tmp/traced.count" "$tmp/live.json"
  else
    fail "$label: the tracer wrote no tally (-o $tmp/live.json); its stderr: $(tr '\n' '|' <"$tmp/traced.err")"
  fi
  case $status in
  killed*) msg="tracer: the app was $status" ;;
  *) msg="tracer: the app $status" ;;
  esac
  if [ "$scenario" = batch ]; then
    :
  elif grep -qxF "$msg" "$tmp/traced.err"; then ok "$label: the tracer says '$msg'"; else
    fail "$label: the tracer did not say '$msg'; its stderr: $(tr '\n' '|' <"$tmp/traced.err")"
  fi
  # The saved trace, analysed again.
  rrc=0
  "$tracer" -r "$trace" -j -o "$tmp/replay.json" 2>"$tmp/replay.err" || rrc=$?
  check_eq "$label: tracer -r exit status" 0 "$rrc"
  [ "$rrc" -eq 0 ] || sed 's/^/    /' "$tmp/replay.err"
  if [ -s "$tmp/live.json" ]; then
    same_json "$label: tracer -r gives the same JSON as the live run" "$tmp/live.json" "$tmp/replay.json"
  else
    check_counts "$label: tracer -r tally (no live tally to compare with)" "$tmp/traced.count" \
      "$tmp/replay.json"
    check_eq "$label: tracer -r JSON app.status" "$status" \
      "$(jq -r '.app.status // "absent (no run record)"' "$tmp/replay.json" 2>/dev/null)"
  fi
  rrc=0
  "$tracer" -r "$trace" -o "$tmp/replay.txt" 2>"$tmp/replay-text.err" || rrc=$?
  check_eq "$label: text tally's first line" "$text_line" "$(head -n 1 "$tmp/replay.txt")"
  left=$(for p in $rel_tracer_pids; do sessions_of "$p"; done)
  check_eq "$label: tracer sessions left in the daemon" "" "$left"
}

run_traced
check_run "$scenario"
if [ "$scenario" = batch ] && [ -n "$left" ]; then
  # What the session daemon still held: stopping the leaked session writes it out.
  for s in $left; do lttng destroy "$s" >/dev/null 2>&1; done
  "$tracer" -r "$trace" -j -o "$tmp/after.json" 2>/dev/null
  say "note: once the leaked session is destroyed by hand, tracer -r counts" \
    "$(tally_calls "$tmp/after.json") (the app counted $(count_json "$tmp/traced.count" | tr -d ' '))"
fi
if [ "$scenario" = segv-handler ]; then
  if grep -qxF "crash: the app's own SIGSEGV handler ran" "$tmp/plain.out"; then
    ok "untraced: the app's own SIGSEGV handler ran"
  else
    fail "untraced: the app's own SIGSEGV handler did not run: $(cat "$tmp/plain.out")"
  fi
  check_eq "the call that never returned, unfinished" '[{"name":"clGetPlatformInfo","calls":1}]' \
    "$(jq -c '[.backends[] | select(.name == "opencl") | .unfinished[]]' "$tmp/live.json" 2>/dev/null)"
fi
case $scenario in
sigint | sigterm | sighup)
  # Minimal mode's batches (up to 31 calls a thread) are written before the app dies.
  rm -rf "$trace" "$tmp/live.json" "$tmp/traced.count"
  run_traced -m minimal
  check_run "$scenario, -m minimal"
  ;;
esac
if [ "$scenario" = segv-in-call ]; then
  # Minimal mode records the call that never returned.
  rm -rf "$trace" "$tmp/live.json"
  run_traced -m minimal
  check_run "$scenario, -m minimal"
  check_eq "minimal: unfinished calls" '[{"name":"clGetPlatformInfo","calls":1}]' \
    "$(jq -c '[.backends[] | select(.name == "opencl") | .unfinished[]]' "$tmp/live.json" 2>/dev/null)"
  if grep -qxF "Not returned when the app ended: clGetPlatformInfo (1 call)" "$tmp/replay.txt"; then
    ok "minimal: the text tally names the call that never returned"
  else
    fail "minimal: no 'Not returned when the app ended: clGetPlatformInfo (1 call)' line in the text tally"
  fi
fi
rel_finish "$scenario"
