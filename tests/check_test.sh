#!/bin/sh
# `tracer --check` says what a run would meet, and its verdict is a run's: each scenario
# runs the check and then a real trace of APP in the same conditions, and compares.
# Usage: check_test.sh SCENARIO TRACER APP
#   here        root on this machine: exit 0, a run works; the clock the check names is
#               the clock in the run's trace metadata; `tracer doctor` says the same
#   nobody      the same as the user nobody (a private session daemon: the TSC clock
#               where the kernel keeps time with it); as this user when not root
#   no_daemon   as nobody, lttng-sessiond not in PATH: exit 1 naming the cause, and a
#               run fails too
#   no_binary_daemon_running
#               the same, but nobody's daemon already runs: exit 0, and a run works
#   unwritable  --trace-output in a folder the user cannot write: exit 1 naming it, and
#               a run fails too; as nobody (root writes anywhere), SKIP as root without
#               setpriv
#   mpi         under MPICH's mpiexec, 2 ranks: each report names its rank; a launcher's
#               variables set by hand are read as they are
set -eu
scenario=$1
tracer=$2
app=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer-check.XXXXXX")
chmod 755 "$tmp"
daemon_pid_file=
cleanup() {
  if [ -n "$daemon_pid_file" ] && [ -s "$daemon_pid_file" ]; then
    kill "$(cat "$daemon_pid_file")" 2>/dev/null || true
    sleep 1
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.out; do [ -f "$f" ] && sed "s|^|  $(basename "$f") |" "$f" >&2; done; exit 1; }
export POCL_CACHE_DIR="$tmp/pocl"

# The clock named in a trace's metadata (clock { name = ...; }).
trace_clock() {
  meta=$(find "$1" -name metadata | head -n 1)
  [ -n "$meta" ] || return 0
  sed -n '/^clock {/,/}/s/^[[:space:]]*name = "\{0,1\}\([a-z_]*\)"\{0,1\};.*/\1/p' "$meta" | head -n 1
}
# The check's verdict is a run's: a run of APP in the same conditions, its exit status.
run_app() { # OUT_DIR [command prefix...]
  out=$1
  shift
  set +e
  "$@" "$tracer" -q -j -o "$out.json" --trace-output "$out" "$app" >"$out.app.out" 2>"$out.err.out"
  echo $?
  set -e
}
# A PATH with every command of the system but lttng-sessiond (an app may need the others:
# PoCL runs ld).
path_without_sessiond() {
  mkdir "$tmp/bin"
  for f in /usr/bin/* /usr/sbin/*; do
    [ -e "$tmp/bin/${f##*/}" ] || ln -s "$f" "$tmp/bin/${f##*/}"
  done
  rm -f "$tmp/bin/lttng-sessiond"
}
# A user of its own for the scenario: as root, nobody (with the tracer installed where
# nobody can read it); otherwise this user. Either way with a fresh HOME and no
# LTTNG_HOME, so that no session daemon of anyone else is in reach (root's is the
# machine's, which other tests start and stop).
install_for_nobody() {
  mkdir -p "$tmp/nobody/home" "$tmp/nobody/tmp" "$tmp/nobody/pocl"
  if [ "$(id -u)" -ne 0 ]; then
    as_nobody="env -u LTTNG_HOME HOME=$tmp/nobody/home TMPDIR=$tmp/nobody/tmp
      POCL_CACHE_DIR=$tmp/nobody/pocl"
    return 0
  fi
  command -v setpriv >/dev/null || { echo "SKIP: root without setpriv"; exit 77; }
  build=$(cd "$(dirname "$tracer")/.." && pwd)
  cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || fail "install failed"
  chmod -R a+rX "$tmp/prefix"
  cp "$app" "$tmp/app" && chmod 755 "$tmp/app"
  tracer=$tmp/prefix/bin/tracer
  app=$tmp/app
  chown -R nobody "$tmp/nobody"
  nobody_group=$(id -gn nobody)
  as_nobody="setpriv --reuid=nobody --regid=$nobody_group --clear-groups env -u LTTNG_HOME
    HOME=$tmp/nobody/home TMPDIR=$tmp/nobody/tmp POCL_CACHE_DIR=$tmp/nobody/pocl"
}

# Checks a report that says a trace would work, against the run that followed it.
compare_with_run() { # REPORT RUN_DIR RUN_STATUS
  report=$1
  grep -q '^A trace would work here\.$' "$report" || fail "the check did not say a trace would work"
  grep -q '^  FAIL' "$report" && fail "a FAIL line with a positive verdict"
  [ "$3" -eq 0 ] || fail "the check said a trace would work, but the run exited $3"
  calls=$(jq '[.backends[] | select(.name == "opencl") | .host[] | .calls] | add' "$2.json")
  [ "${calls:-0}" -gt 0 ] || fail "the run recorded no OpenCL call"
  clock=$(trace_clock "$2")
  case $clock in
  tracer_tsc) grep -q '^  ok    trace clock     tsc: ' "$report" || fail "the run used the TSC, the check did not say so" ;;
  monotonic) grep -q '^  ok    trace clock     monotonic' "$report" || fail "the run used CLOCK_MONOTONIC, the check did not say so" ;;
  *) fail "no clock in the run's metadata" ;;
  esac
  # The library the check names is the one the loader gives the app.
  lib=$(sed -n 's/^  ok    backend opencl  traces libOpenCL\.so\.1 = \([^ ]*\) .*/\1/p' "$report")
  [ -n "$lib" ] && [ -f "$lib" ] || fail "the check names no OpenCL library that exists"
  expected=$(ldd "$app" | sed -n 's/^[[:space:]]*libOpenCL\.so\.1 => \([^ ]*\) .*/\1/p')
  [ "$(readlink -f "$lib")" = "$(readlink -f "$expected")" ] ||
    fail "the check names $lib, the app loads $expected"
  echo "check and run agree: clock $clock, $calls OpenCL calls, libOpenCL from $lib"
}

case $scenario in
here)
  set +e; "$tracer" --check >"$tmp/check.out" 2>&1; rc=$?; set -e
  [ $rc -eq 0 ] || fail "tracer --check exited $rc here"
  compare_with_run "$tmp/check.out" "$tmp/run" "$(run_app "$tmp/run")"
  # Free space as df counts it, to a tenth of a GiB give or take what the run wrote.
  free=$(sed -n 's/^  ok    trace folder    .*: \([0-9.]*\) GiB free.*/\1/p' "$tmp/check.out")
  home=$(sed -n 's/^  ok    trace folder    \([^:]*\):.*/\1/p' "$tmp/check.out")
  [ "$home" = "${HOME:-.}/tracer-traces" ] || fail "traces go to ~/tracer-traces, the check says $home"
  df_free=$(df -B1 --output=avail "$home" 2>/dev/null | tail -n 1 || df -B1 --output=avail "$HOME" | tail -n 1)
  awk -v a="$free" -v b="$df_free" 'BEGIN { d = a - b / 1073741824; exit !(d < 0.5 && d > -0.5) }' ||
    fail "the check says $free GiB free, df says $df_free bytes"
  set +e; "$tracer" doctor >"$tmp/doctor.out" 2>&1; rc=$?; set -e
  [ $rc -eq 0 ] || fail "tracer doctor exited $rc"
  [ "$(cut -c1-24 "$tmp/check.out" | grep -v 'trace folder')" = "$(cut -c1-24 "$tmp/doctor.out" | grep -v 'trace folder')" ] ||
    fail "tracer doctor and tracer --check differ"
  set +e; "$tracer" --check "$app" >"$tmp/usage.out" 2>&1; rc=$?; set -e
  [ $rc -eq 2 ] || fail "--check with an app is a usage error (2), got $rc"
  ;;
nobody)
  install_for_nobody
  set +e; $as_nobody "$tracer" --check >"$tmp/check.out" 2>&1; rc=$?; set -e
  [ $rc -eq 0 ] || fail "tracer --check exited $rc as nobody"
  grep -q 'private to the job' "$tmp/check.out" || fail "nobody's check did not start a private daemon"
  compare_with_run "$tmp/check.out" "$tmp/nobody/home/run" "$(run_app "$tmp/nobody/home/run" $as_nobody)"
  ;;
no_daemon)
  install_for_nobody
  path_without_sessiond
  set +e
  $as_nobody PATH="$tmp/bin" LTTNG_SESSIOND_PATH= "$tracer" --check >"$tmp/check.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 1 ] || fail "the check exited $rc without lttng-sessiond (want 1)"
  grep -q '^  FAIL  session  *Cannot start session daemon: lttng-sessiond is not in PATH' "$tmp/check.out" ||
    fail "no FAIL line naming the missing lttng-sessiond"
  grep -q '^A trace would not work here' "$tmp/check.out" || fail "no negative verdict"
  st=$(run_app "$tmp/nobody/home/run" $as_nobody PATH="$tmp/bin" LTTNG_SESSIOND_PATH=)
  [ "$st" -eq 3 ] || fail "the check said no, but the run exited $st (want 3: no session)"
  echo "no lttng-sessiond: the check exits 1 naming it, and a run fails with 3"
  ;;
no_binary_daemon_running)
  install_for_nobody
  # nobody's own daemon, in its own LTTNG_HOME: no other test can see it.
  mkdir -p "$tmp/nobody/lttng"
  [ "$(id -u)" -ne 0 ] || chown nobody "$tmp/nobody/lttng"
  $as_nobody LTTNG_HOME="$tmp/nobody/lttng" lttng-sessiond --daemonize --no-kernel \
    >"$tmp/sessiond.out" 2>&1 || fail "cannot start nobody's session daemon"
  daemon_pid_file=$tmp/nobody/lttng/.lttng/lttng-sessiond.pid
  path_without_sessiond
  set +e
  $as_nobody LTTNG_HOME="$tmp/nobody/lttng" PATH="$tmp/bin" "$tracer" --check >"$tmp/check.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 0 ] || fail "the check exited $rc with a daemon running (lttng-sessiond not in PATH)"
  grep -q '^  ok    session daemon  one is running' "$tmp/check.out" || fail "the check did not see the running daemon"
  grep -q '^  warn  lttng-tools' "$tmp/check.out" || fail "no warning about the missing lttng-sessiond"
  compare_with_run "$tmp/check.out" "$tmp/nobody/home/run" \
    "$(run_app "$tmp/nobody/home/run" $as_nobody LTTNG_HOME="$tmp/nobody/lttng" PATH="$tmp/bin")"
  ;;
unwritable)
  # Traces asked for in a folder the user cannot write: the check says so, exits 1, and
  # a run fails to set up its session (3).
  install_for_nobody
  mkdir -p "$tmp/readonly"
  chmod 555 "$tmp/readonly"
  set +e
  $as_nobody "$tracer" --check --trace-output "$tmp/readonly/trace" >"$tmp/check.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 1 ] || fail "the check exited $rc for an unwritable trace folder (want 1)"
  grep -q "^  FAIL  trace folder    $tmp/readonly cannot be written" "$tmp/check.out" ||
    fail "no FAIL line naming the unwritable folder"
  set +e
  $as_nobody "$tracer" -q --trace-output "$tmp/readonly/trace" "$app" >/dev/null 2>&1
  st=$?
  set -e
  [ "$st" -eq 3 ] || fail "the check said no, but the run exited $st (want 3: no session)"
  echo "unwritable trace folder: the check exits 1 naming it, and a run fails with 3"
  ;;
mpi)
  set +e
  env OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=8 OMPI_COMM_WORLD_LOCAL_RANK=1 \
    "$tracer" --check >"$tmp/ompi.out" 2>&1
  set -e
  grep -q '^  info  MPI launcher    Open MPI: rank 3 of 8, local rank 1, node ' "$tmp/ompi.out" ||
    fail "Open MPI's variables were not read"
  env SLURM_PROCID=5 SLURM_NTASKS=6 SLURM_LOCALID=2 SLURM_NODEID=1 "$tracer" --check >"$tmp/slurm.out" 2>&1 || true
  grep -q '^  info  MPI launcher    Slurm (srun): rank 5 of 6, local rank 2, node .* #1;' "$tmp/slurm.out" ||
    fail "Slurm's variables were not read"
  command -v mpiexec.mpich >/dev/null || { echo "SKIP: no mpiexec.mpich (scripts/setup.sh)"; exit 77; }
  set +e
  mpiexec.mpich -n 2 sh -c '"$0" --check > "$1/rank$PMI_RANK.out" 2>&1' "$tracer" "$tmp"
  rc=$?
  set -e
  [ $rc -eq 0 ] || fail "two ranks' checks exited $rc under mpiexec"
  for r in 0 1; do
    grep -q "^  info  MPI launcher    MPICH Hydra (PMI): rank $r of 2, local rank $r, node " "$tmp/rank$r.out" ||
      fail "rank $r's check does not name rank $r of 2"
    grep -q '^A trace would work here\.$' "$tmp/rank$r.out" || fail "rank $r's check failed"
  done
  echo "ranks read from Open MPI's and Slurm's variables, and from MPICH's mpiexec (2 ranks)"
  ;;
*) echo "unknown scenario: $scenario" >&2; exit 2 ;;
esac
