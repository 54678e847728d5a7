# shellcheck shell=sh
# Shared by exports_test.sh and babeltrace2_test.sh (sourced, POSIX sh, after
# ../e2e/lib.sh): how they take and run the app they trace.

# app_options ARGS...: reads the options before the app, [-n RANKS LAUNCHER] and
# [-o "TRACER OPTIONS"], into $ranks, $launcher and $options; $app_options_used is how
# many arguments they took (the caller shifts them).
app_options() {
  ranks=0 launcher="" options="" app_options_used=0
  while [ $# -gt 1 ]; do
    case $1 in
    -n) ranks=$2 launcher=$3 app_options_used=$((app_options_used + 3)); shift 3 ;;
    -o) options=$2 app_options_used=$((app_options_used + 2)); shift 2 ;;
    *) break ;;
    esac
  done
}

# run_app TRACER-ARGS... -- APP [ARGS...]: runs the app traced by $tracer into
# $tmp/traced.trace, with $options, alone or as a job of $ranks ranks under $launcher;
# output in $tmp/traced.out and .err. Skips the test when the app finds no runtime (77),
# fails it on any other non-zero status.
# shellcheck disable=SC2154 # $tracer and $tmp are the calling test's
run_app() {
  rc=0
  if [ "$ranks" -gt 0 ]; then
    command -v "$launcher" >/dev/null 2>&1 || skip "no MPI launcher $launcher"
    export TRACER_JOB_TIMEOUT=60 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    oversubscribe=""
    case $launcher in mpirun.openmpi*) oversubscribe=--oversubscribe ;; esac
    # The tracer's arguments, then the app's after "--".
    tracer_args=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
      tracer_args="$tracer_args $1"
      shift
    done
    shift
    # shellcheck disable=SC2086
    "$launcher" $oversubscribe -n "$ranks" "$tracer" --trace-output "$tmp/traced.trace" \
      $options $tracer_args "$@" >"$tmp/traced.out" 2>"$tmp/traced.err" || rc=$?
  else
    # shellcheck disable=SC2086
    run_traced traced $options "$@"
  fi
  [ "$rc" -eq 77 ] && skip "the app found no runtime: $(cat "$tmp/traced.err")"
  expect_rc 0 traced
}
