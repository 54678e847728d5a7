#!/bin/sh
# Isolation: tracer runs at the same time never see each other's events, and what the
# tracer writes is private.
# Usage: isolation_test.sh same_user|two_users|permissions TRACER ISO_A ISO_B
#
#   same_user    two tracers at once, same user: iso_a (1500 clGetPlatformIDs + 37
#                clGetPlatformInfo) and iso_b (2500 clGetPlatformIDs + 53 clGetDeviceIDs),
#                whose calls overlap in time for sure (apps/iso.c waits for its peer); each
#                tally has exactly its own app's counts, one process, one thread
#   two_users    the same with iso_a run by root and iso_b by nobody (setpriv); skipped
#                when nobody cannot read the build tree; nobody's tracer starts a private
#                session daemon, which must be gone afterwards
#   permissions  with umask 022 and TMPDIR a fresh folder, for root and (when possible)
#                nobody: while the app runs, nothing under TMPDIR is writable by others
#                where others can reach it (world-writable entries inside folders closed
#                to others are listed as notes); afterwards the trace folder is 0700 and
#                nothing in it is group- or world-writable
set -u
. "$(dirname "$0")/lib.sh"
[ $# -eq 4 ] || { echo "usage: $0 SCENARIO TRACER ISO_A ISO_B" >&2; exit 2; }
scenario=$1
tracer=$(abspath "$2")
iso_a=$(abspath "$3")
iso_b=$(abspath "$4")
rel_setup
need_exe tracer "$tracer"
need_exe "iso_a app" "$iso_a"
need_exe "iso_b app" "$iso_b"
lib_dir=$(dirname "$(dirname "$tracer")")/lib
sync="$tmp/sync"
mkdir -p "$sync"
chmod 1777 "$sync"

# start NAME USER PEER IDS OTHERS APP: a tracer in the background, as USER (root or
# nobody), for APP SYNC NAME PEER IDS OTHERS. Files: $dir_NAME/{trace,live.json,count,...}.
# A root tracer runs with TMPDIR=$root_tmpdir when that is set.
root_tmpdir=""
start() {
  name=$1 user=$2 peer=$3 ids=$4 others=$5 app=$6
  if [ "$user" = nobody ]; then
    d="$nobody_dir/work/$name"
    as_nobody mkdir -p "$d"
    (
      umask 022
      as_nobody env REL_COUNT="$d/count" "$tracer" --trace-output "$d/trace" -j -o "$d/live.json" \
        -- "$app" "$sync" "$name" "$peer" "$ids" "$others" >"$tmp/$name.out" 2>"$tmp/$name.err"
      echo $? >"$tmp/$name.rc"
    ) &
  else
    d="$tmp/work-$name"
    mkdir -p "$d"
    (
      umask 022
      [ -n "$root_tmpdir" ] && export TMPDIR="$root_tmpdir"
      REL_COUNT="$d/count" "$tracer" --trace-output "$d/trace" -j -o "$d/live.json" \
        -- "$app" "$sync" "$name" "$peer" "$ids" "$others" >"$tmp/$name.out" 2>"$tmp/$name.err"
      echo $? >"$tmp/$name.rc"
    ) &
  fi
  rel_bg_pids="$rel_bg_pids $!"
  eval "dir_$name=\$d"
  eval "job_$name=\$!"
}

# finish NAME: waits for the run NAME and checks its tally against its app's count.
finish() {
  eval "wait \$job_$1"
  eval "d=\$dir_$1"
  rc=$(cat "$tmp/$1.rc" 2>/dev/null || echo none)
  if [ "$rc" = 77 ] || grep -q "SKIP: no OpenCL" "$tmp/$1.err" 2>/dev/null; then
    skip "no OpenCL runtime: $(cat "$tmp/$1.err")"
  fi
  check_eq "$1: tracer's exit status" 0 "$rc"
  [ "$rc" = 0 ] || sed 's/^/    /' "$tmp/$1.err"
  check_counts "$1" "$d/count" "$d/live.json"
  check_eq "$1: processes and threads in the tally" "1 1" \
    "$(jq -r '[.backends[] | select(.name == "opencl") | .processes, .threads] | join(" ")' "$d/live.json" 2>/dev/null)"
}

# tracer_pid_of NAME: the tracer running app NAME (the app's parent), once it counts.
tracer_pid_of() {
  eval "d=\$dir_$1"
  wait_for_count "$d/count" clGetPlatformIDs 2 30 || return 1
  parent_of "$(count_value "$d/count" pid)"
}

case $scenario in
same_user | two_users)
  user_b=root
  if [ "$scenario" = two_users ]; then
    nobody_setup required "$tracer" "$lib_dir/libtracer_opencl.so" "$iso_b"
    user_b=nobody
  fi
  start A root B 1500 37 "$iso_a"
  start B "$user_b" A 2500 53 "$iso_b"
  ta=$(tracer_pid_of A) && rel_tracer_pids="$rel_tracer_pids $ta"
  [ "$user_b" = root ] && tb=$(tracer_pid_of B) && rel_tracer_pids="$rel_tracer_pids $tb"
  finish A
  finish B
  # Every count above is exact; this says the runs really overlapped.
  if [ -f "$sync/A.ready" ] && [ -f "$sync/B.ready" ]; then
    ok "the two apps ran at the same time (each waited for the other before its calls)"
  else
    fail "the apps did not both start"
  fi
  if [ "$user_b" = nobody ]; then
    # shellcheck disable=SC2154 # dir_B is set by start (eval)
    check_eq "nobody's trace folder is owned by nobody" nobody "$(stat -c %U "$dir_B/trace")"
    # Only this test's: other tests may start and stop daemons of nobody meanwhile.
    left=""
    for p in $(sessiond_pids nobody); do
      tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -q "$nobody_dir" && left="$left $p"
    done
    check_eq "lttng-sessiond processes of this test's nobody after the run" "" "$left"
  fi
  ;;

permissions)
  # watch NAME USER APP: runs the tracer with TMPDIR a fresh folder; while the app waits
  # for its peer, lists what is under TMPDIR; then checks the trace folder.
  watch() {
    name=$1 user=$2 app=$3
    if [ "$user" = nobody ]; then t="$nobody_dir/tmp"; else t="$tmp/tmpdir-$name"; mkdir -p "$t"; fi
    chmod 755 "$t"
    root_tmpdir=$t
    start "$name" "$user" never 100 10 "$app"
    root_tmpdir=""
    eval "d=\$dir_$name"
    wait_for_count "$d/count" clGetPlatformIDs 2 30 || die "$name: the app did not start"
    [ "$user" = root ] && rel_tracer_pids="$rel_tracer_pids $(parent_of "$(count_value "$d/count" pid)")"
    sleep 0.3
    say "$name ($user): under TMPDIR while the app runs:"
    find "$t" -mindepth 1 -printf '    %M %u %p\n' | sed "s|$t|TMPDIR|"
    exposed=""
    notes=""
    find "$t" -mindepth 1 -perm -o+w ! -type l >"$tmp/writable"
    while read -r f; do
      # Reachable by others only when every folder on the way lets them through.
      p=$(dirname "$f") open=yes
      while [ "$p" != "$t" ] && [ "$p" != / ]; do
        [ "$(stat -c %A "$p" | cut -c10)" = x ] || open=no
        p=$(dirname "$p")
      done
      if [ "$open" = yes ]; then exposed="$exposed ${f#"$t"/}"; else notes="$notes ${f#"$t"/}"; fi
    done <"$tmp/writable"
    check_eq "$name ($user): entries under TMPDIR that other users can reach and write" "" "$exposed"
    [ -n "$notes" ] && say "note: world-writable but inside folders closed to others:$notes"
    touch "$sync/never.ready" "$sync/never.done"
    finish "$name"
    rm -f "$sync/never.ready" "$sync/never.done"
    check_eq "$name ($user): trace folder mode" 700 "$(stat -c %a "$d/trace")"
    writable=$(find "$d/trace" -perm /022 -printf '%M %p\n' | sed "s|$d/trace|TRACE|")
    if [ -z "$writable" ]; then
      ok "$name ($user): nothing in the trace folder is group- or world-writable"
    else
      fail "$name ($user): group- or world-writable in the trace folder:"
      printf '%s\n' "$writable" | sed 's/^/    /'
    fi
    left=$(find "$t" -mindepth 1 | sed "s|$t|TMPDIR|")
    check_eq "$name ($user): what the tracer left under TMPDIR" "" "$left"
  }
  watch R root "$iso_a"
  if nobody_setup optional "$tracer" "$lib_dir/libtracer_opencl.so" "$iso_b"; then
    watch N nobody "$iso_b"
  fi
  ;;
*) die "unknown scenario $scenario" ;;
esac
rel_finish "$scenario"
