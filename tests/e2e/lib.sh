# Shared by the end-to-end tests (sourced, POSIX sh). A test calls e2e_setup first; then
# $tmp is a private folder removed at exit, $e2e_dir the folder of these scripts, and
# POCL_CACHE_DIR is set (ctest points it under the build folder; else it lives in $tmp).

e2e_name=$(basename "$0" .sh)
e2e_dir=$(cd "$(dirname "$0")" && pwd)

fail() {
  echo "FAIL: $e2e_name: $*" >&2
  exit 1
}

# Exit code 77 is ctest's SKIP_RETURN_CODE for these tests: the runtime is missing.
skip() {
  echo "SKIP: $e2e_name: $*"
  exit 77
}

e2e_setup() {
  command -v jq >/dev/null 2>&1 || fail "jq not found (scripts/setup.sh installs it)"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer-e2e.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  : "${POCL_CACHE_DIR:=$tmp/pocl-cache}"
  export POCL_CACHE_DIR
  mkdir -p "$POCL_CACHE_DIR"
}

# abspath PATH: PATH made absolute against the current folder.
abspath() {
  case $1 in
  /*) printf '%s\n' "$1" ;;
  *) printf '%s/%s\n' "$(pwd)" "$1" ;;
  esac
}

need_tracer() {
  [ -x "$1" ] || fail "no tracer executable at $1 (is the tracer target built?)"
}

need_app() {
  [ -x "$1" ] || fail "no test app at $1 (is it built?)"
}

# run_plain NAME APP [ARGS...]: runs the app untraced with APP_MANIFEST=$tmp/NAME.json;
# stdout in $tmp/NAME.out, stderr in $tmp/NAME.err, exit status in $rc. Skips the test
# when the app says there is no OpenCL runtime (exit 77).
run_plain() {
  name=$1
  shift
  rc=0
  APP_MANIFEST="$tmp/$name.json" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  if [ "$rc" -eq 77 ]; then
    skip "no OpenCL runtime: $(cat "$tmp/$name.err")"
  fi
}

# run_traced NAME TRACER-OPTIONS... -- APP [ARGS...]: runs the tracer ($tracer, which the
# test sets) with the trace in $tmp/NAME.trace and APP_MANIFEST=$tmp/NAME.json; stdout in
# $tmp/NAME.out, stderr in $tmp/NAME.err, exit status in $rc.
# shellcheck disable=SC2154 # $tracer is the calling test's
run_traced() {
  name=$1
  shift
  rc=0
  APP_MANIFEST="$tmp/$name.json" "$tracer" --trace-output "$tmp/$name.trace" "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
}

# show_err NAME: the stderr of run NAME, indented, for a failure message.
show_err() {
  sed 's/^/    /' "$tmp/$1.err" >&2
}

# expect_rc WANT NAME: fails unless the last run exited WANT.
expect_rc() {
  if [ "$rc" -ne "$1" ]; then
    echo "FAIL: $e2e_name: $2 exited $rc, expected $1; its stderr:" >&2
    show_err "$2"
    exit 1
  fi
}

# merge_manifests OUT IN...: the manifest of several processes (sums of everything).
merge_manifests() {
  out=$1
  shift
  jq -s -f "$e2e_dir/merge.jq" "$@" >"$out" || fail "cannot merge manifests $*"
}

# same_stdout PLAIN TRACED: the app printed the same bytes untraced and traced.
same_stdout() {
  if ! cmp -s "$tmp/$1.out" "$tmp/$2.out"; then
    echo "FAIL: $e2e_name: the app's stdout differs under the tracer (- untraced, + traced):" >&2
    diff -u "$tmp/$1.out" "$tmp/$2.out" >&2 || true
    exit 1
  fi
}

# same_manifest PLAIN TRACED: the app made the same calls untraced and traced.
same_manifest() {
  if ! jq -e -n --slurpfile a "$1" --slurpfile b "$2" '$a[0] == $b[0]' >/dev/null; then
    echo "FAIL: $e2e_name: the app made different OpenCL calls under the tracer:" >&2
    diff -u "$1" "$2" >&2 || true
    exit 1
  fi
}

# compare_tally TALLY MANIFEST: every count of the app's manifest equals the tally's, for
# backend $E2E_BACKEND (default opencl).
compare_tally() {
  jq -e . "$1" >/dev/null 2>&1 || {
    echo "FAIL: $e2e_name: the tally $1 is not JSON:" >&2
    head -c 2000 "$1" >&2
    exit 1
  }
  mismatches=$(jq -r --arg backend "${E2E_BACKEND:-opencl}" --slurpfile manifest "$2" -f "$e2e_dir/compare.jq" "$1") ||
    fail "jq could not compare $1 with $2"
  if [ -n "$mismatches" ]; then
    echo "FAIL: $e2e_name: the tracer's tally differs from the app's own count:" >&2
    printf '%s\n' "$mismatches" | sed 's/^/  /' >&2
    echo "  app manifest: $(jq -c . "$2")" >&2
    exit 1
  fi
}

# nobody_can_run FILE...: whether the user nobody can run (or read) each FILE, where a
# root test would run a tracer as nobody. A build tree under a folder closed to others
# (a clone in /root, mode 0700) keeps nobody out: $nobody_why then says so, and the test
# leaves out (or skips) its run as nobody rather than failing with exit 126.
nobody_can_run() {
  nobody_why=""
  for f in "$@"; do
    if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$f" 2>/dev/null; then
      nobody_why="the user nobody cannot read $f (a parent folder closed to others, such as /root?): clone and build under a folder others can enter to run this part"
      return 1
    fi
  done
  return 0
}
