# Shared by the reliability tests (sourced, POSIX sh). A test calls rel_setup first; then
# $tmp is a private folder removed at exit (with every tracer session the test's tracers
# left behind destroyed, and the processes it started in the background ended), and
# POCL_CACHE_DIR is set.
#
# Checks do not stop the test: each prints "ok: ..." or "FAIL: ...", and rel_finish
# exits 1 when any failed, so one run reports every requirement it covers.

rel_name=$(basename "$0" .sh)
failures=0

say() { echo "$rel_name: $*"; }
ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# A broken test set-up, not a tracer failure: stop here.
die() {
  echo "ERROR: $rel_name: $*" >&2
  exit 1
}
skip() {
  echo "SKIP: $rel_name: $*"
  exit 77
}

rel_finish() {
  if [ "$failures" -ne 0 ]; then
    echo "FAIL: $rel_name $*: $failures check(s) failed"
    exit 1
  fi
  echo "PASS: $rel_name $*"
  exit 0
}

check_eq() { # what expected actual
  if [ "$2" = "$3" ]; then ok "$1: $3"; else fail "$1: expected '$2', got '$3'"; fi
}

# (dash: `kill -s SIG -- -PGID`; `kill -SIG -- ...` is refused.)
# Tracer pids whose sessions the cleanup destroys if they are still there, and background
# pids (or process groups, as -PGID) it kills. Only what this test started.
rel_tracer_pids=""
rel_bg_pids=""

rel_cleanup() {
  for p in $rel_bg_pids; do
    kill -s KILL -- "$p" 2>/dev/null
  done
  for p in $rel_tracer_pids; do
    for s in $(sessions_of "$p"); do
      lttng destroy "$s" >/dev/null 2>&1 && echo "cleanup: destroyed the session $s left behind"
    done
  done
  # A session daemon that a tracer of this test started as another user (nobody) and
  # left running: recognised by its LTTNG_HOME inside $tmp.
  if [ -n "${tmp:-}" ]; then
    for p in $(pgrep -x lttng-sessiond 2>/dev/null); do
      if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -q "^LTTNG_HOME=$tmp/"; then
        kill -s TERM "$p" 2>/dev/null && echo "cleanup: stopped the session daemon $p left behind"
      fi
    done
    rm -rf "$tmp"
  fi
}

rel_setup() {
  command -v jq >/dev/null 2>&1 || die "jq not found (scripts/setup.sh installs it)"
  command -v lttng >/dev/null 2>&1 || skip "the lttng command is not installed"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer-rel.XXXXXX") || die "mktemp failed"
  chmod 755 "$tmp"
  trap 'rel_cleanup' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  : "${POCL_CACHE_DIR:=$tmp/pocl-cache}"
  export POCL_CACHE_DIR
  mkdir -p "$POCL_CACHE_DIR"
  # shellcheck disable=SC3045 # dash, bash and busybox sh all have ulimit -c
  ulimit -c 0 2>/dev/null || true # a crashing app leaves no core file
}

abspath() {
  case $1 in
  /*) printf '%s\n' "$1" ;;
  *) printf '%s/%s\n' "$(pwd)" "$1" ;;
  esac
}

need_exe() { # what path
  [ -x "$2" ] || die "no $1 at $2 (is it built?)"
}

# The session name prefix of a tracer with pid PID (cli/control/session.c, make_name):
# tracer-<host, unsafe characters as _>-<pid>-<random>.
session_prefix() {
  printf 'tracer-%s-%s-' "$(uname -n | cut -c1-64 | sed 's/[^A-Za-z0-9_-]/_/g')" "$1"
}

# Sessions of the reachable daemon that the tracer with pid PID created.
sessions_of() {
  prefix=$(session_prefix "$1")
  lttng list 2>/dev/null | sed -n 's/^ *[0-9][0-9]*) \(tracer-[^ ]*\) .*/\1/p' |
    while read -r s; do
      case $s in "$prefix"*) echo "$s" ;; esac
    done
}

# parent_of PID: its parent's pid (empty when it is gone).
parent_of() {
  ps -o ppid= -p "$1" 2>/dev/null | tr -d ' '
}

# sessiond_pids [USER]: running lttng-sessiond processes of USER (default: this user),
# sorted pids on one line. Zombies do not count: a daemon's first process exits once the
# daemon is up, and init reaps it a moment later.
sessiond_pids() {
  ps -o pid=,stat=,comm= -u "${1:-$(id -u)}" 2>/dev/null |
    awk '$3 == "lttng-sessiond" && $2 !~ /^Z/ { print $1 }' | sort -n | tr '\n' ' '
}

# count_value FILE FUNCTION: a value of an app's count file (rel_count.h); 0 if absent.
count_value() {
  v=$(awk -v k="$2" '$1 == k { print $2 + 0 }' "$1" 2>/dev/null)
  echo "${v:-0}"
}

# count_json FILE: the count file's calls as JSON {"function": calls}, non-zero only.
count_json() {
  awk 'BEGIN { printf "{"; n = 0 }
       $1 ~ /^cl/ && $2 + 0 > 0 { printf "%s\"%s\": %d", (n++ ? ", " : ""), $1, $2 + 0 }
       END { print "}" }' "$1"
}

# tally_calls JSON: the opencl host calls of a tally as JSON {"function": calls}.
tally_calls() {
  jq -c '[.backends[]? | select(.name == "opencl") | .host[] | {(.name): .calls}] | add // {}' "$1"
}

# check_counts WHAT COUNT_FILE TALLY_JSON: the tally's host calls are exactly the app's.
check_counts() {
  want=$(count_json "$2")
  got=$(tally_calls "$3" 2>/dev/null) || got="(no JSON tally)"
  if jq -e -n --argjson a "$want" --argjson b "$got" '$a == $b' >/dev/null 2>&1; then
    ok "$1: the tally counts exactly the app's calls $(echo "$want" | tr -d ' ')"
  else
    fail "$1: the tally's calls $got differ from the app's own count $want"
  fi
}

# wait_for_count FILE FUNCTION N SECONDS: until the app counted N calls of FUNCTION;
# returns 1 on time-out.
wait_for_count() {
  i=0
  while [ "$i" -lt $(($4 * 20)) ]; do
    [ "$(count_value "$1" "$2")" -ge "$3" ] && return 0
    sleep 0.05
    i=$((i + 1))
  done
  return 1
}

# same_json WHAT A B: two JSON files hold the same value.
same_json() {
  if jq -e -n --slurpfile a "$2" --slurpfile b "$3" '$a[0] == $b[0]' >/dev/null 2>&1; then
    ok "$1"
  else
    fail "$1: $2 and $3 differ:"
    diff "$2" "$3" | head -20 | sed 's/^/    /'
  fi
}

# same_bytes WHAT A B: two files are byte-identical.
same_bytes() {
  if cmp -s "$2" "$3"; then
    ok "$1 ($(wc -c <"$2") bytes)"
  else
    fail "$1: $2 and $3 differ:"
    diff "$2" "$3" | head -10 | sed 's/^/    /'
  fi
}

# skip_if_no_opencl RC ERRFILE: the app's exit 77 means no OpenCL runtime here.
skip_if_no_opencl() {
  [ "$1" -eq 77 ] && skip "no OpenCL runtime: $(cat "$2")"
  return 0
}

# ---- running as another user ----
# nobody_setup required|optional FILE...: prepares $tmp/nobody (home, TMPDIR, PoCL cache,
# owned by nobody) and $nobody_group, for a run as the user nobody. When that cannot be
# (not root, no setpriv, or nobody cannot read one of the FILEs or write under $tmp), a
# `required` run skips the test with the reason; an `optional` one returns 1 after
# saying why.
nobody_setup() {
  need=$1
  shift
  why=""
  if [ "$(id -u)" != 0 ]; then
    why="needs root, to run a second tracer as the user nobody"
  elif ! command -v setpriv >/dev/null 2>&1; then
    why="setpriv is not installed (util-linux)"
  elif ! id nobody >/dev/null 2>&1; then
    why="there is no user nobody"
  else
    nobody_group=$(id -gn nobody)
    nobody_dir="$tmp/nobody"
    mkdir -p "$nobody_dir/home" "$nobody_dir/tmp" "$nobody_dir/pocl" "$nobody_dir/work"
    chown -R nobody:"$nobody_group" "$nobody_dir"
    for f in "$@"; do
      if ! as_nobody test -r "$f"; then
        why="the user nobody cannot read $f: the build tree must be readable by nobody (build under a folder others can enter, with umask 022)"
        break
      fi
    done
    [ -z "$why" ] && ! as_nobody test -w "$nobody_dir/work" &&
      why="the user nobody cannot write in $nobody_dir (is one of its parent folders closed to others?)"
  fi
  [ -z "$why" ] && return 0
  [ "$need" = required ] && skip "$why"
  say "note: the run as nobody is left out: $why"
  return 1
}

# as_nobody CMD...: runs CMD as nobody, with its own HOME, TMPDIR and PoCL cache.
as_nobody() {
  setpriv --reuid=nobody --regid="$nobody_group" --clear-groups \
    env -u LTTNG_HOME HOME="$nobody_dir/home" TMPDIR="$nobody_dir/tmp" \
    POCL_CACHE_DIR="$nobody_dir/pocl" "$@"
}
