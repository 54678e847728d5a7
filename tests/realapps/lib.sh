# Shared by the real-application tests (sourced, POSIX sh, after ../e2e/lib.sh and
# e2e_setup): programs from Debian's packages that nobody wrote for the tracer, traced as
# their users run them, and held to a count the tracer did not make.

# Open MPI refuses root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TRACER_JOB_TIMEOUT=60

# need_program PROGRAM PACKAGE: skips the test when PROGRAM is missing.
need_program() {
  [ -x "$1" ] || command -v "$1" >/dev/null 2>&1 ||
    skip "no $1 (Debian's $2, which scripts/setup.sh installs)"
}

# run_counted NAME N TRACER-OPTIONS... -- APP [ARGS...]: runs APP on N ranks of Open MPI
# under the tracer, with the counting library (call_count.c, $counter) preloaded ahead
# of the tracer's libraries: the job's JSON report in $tmp/NAME.json, its text report in
# $tmp/NAME.txt, each process's count in $tmp/NAME.counts/PID.
run_counted() {
  name=$1
  n=$2
  shift 2
  opts=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    opts="$opts $1"
    shift
  done
  shift
  mkdir -p "$tmp/$name.counts"
  rc=0
  # The app starts through sh, which puts the counter first in the LD_PRELOAD the tracer
  # gave it; sh links no MPI library: the tracer picks Open MPI from the launcher.
  # shellcheck disable=SC2086,SC2016,SC2154 # $counter is the test's
  COUNTER=$counter COUNT_DIR=$tmp/$name.counts mpirun.openmpi --oversubscribe -n "$n" "$tracer" -q -j -o "$tmp/$name.json" \
    --trace-output "$tmp/$name.trace" $opts sh -c \
    'LD_PRELOAD=$COUNTER${LD_PRELOAD:+:$LD_PRELOAD} CALL_COUNT_DIR=$COUNT_DIR exec "$@"' sh "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "$name: exit status $rc: $(tail -20 "$tmp/$name.err")"
  [ -s "$tmp/$name.json" ] || fail "$name: no report from rank 0: $(tail -20 "$tmp/$name.err")"
  "$tracer" -r "$tmp/$name.trace" -o "$tmp/$name.txt" 2>>"$tmp/$name.err" ||
    fail "$name: no text report from the job folder: $(tail -5 "$tmp/$name.err")"
}

# check_counted NAME BACKEND...: every function of those backends in the report has the
# calls the counting library counted over the job's processes, and every function it
# counted is in the report with as many.
check_counted() {
  name=$1
  shift
  cat "$tmp/$name.counts"/* 2>/dev/null |
    awk '{ n[$1] += $2 } END { for (f in n) print f, n[f] }' | sort >"$tmp/$name.counted"
  [ -s "$tmp/$name.counted" ] || fail "$name: the counting library counted nothing"
  backends=$(printf '"%s",' "$@")
  jq -r --argjson b "[${backends%,}]" \
    '.backends[] | select(.name as $n | $b | index($n)) | .host[] | "\(.name) \(.calls)"' \
    "$tmp/$name.json" | sort >"$tmp/$name.traced"
  if ! cmp -s "$tmp/$name.counted" "$tmp/$name.traced"; then
    fail "$name: the report differs from the counting library's count (< counted, > traced):
$(diff "$tmp/$name.counted" "$tmp/$name.traced" | grep '^[<>]' | head -20)"
  fi
  echo "$name: $(wc -l <"$tmp/$name.traced") functions, $(awk '{ s += $2 } END { print s }' \
    "$tmp/$name.traced") calls, as counted"
}
