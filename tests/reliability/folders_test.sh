#!/bin/sh
# Folders given to `tracer -r`: each trace is read once, runs are never merged, every walk
# ends, and a file is named as given.
# Usage: folders_test.sh links|runs|loop|file TRACER FLOOD_APP
#
# A trace of 300 clGetPlatformIDs calls (apps/flood.c, one thread) is recorded, its
# tally checked against the app's count, and copied into a folder laid out as
# ~/tracer-traces is:
#   links  the run's folder and a `latest` link to it: -r on the folder and on the link
#          each count every call once (not twice), exit 0
#   runs   two runs (the second a copy of the first) and `latest`: -r on the folder
#          exits 2 without a report, names both runs with their app and says to give
#          one; -r on one of them reads it alone
#   loop   a link in the run to the folder above it and one in that folder to itself
#          (loops): -r ends, every call once; -r /proc/self (whose root/ leads to the
#          whole file system) ends within the test's time with a message (exit 4 at the
#          walk's bound, or 2 with the runs it found on the machine), not a report
#   file   -r on the run record, a file: exit 4, the message names the file given (not
#          the metadata beside it)
set -u
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 links|runs|loop|file TRACER FLOOD_APP" >&2; exit 2; }
scenario=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
rel_setup
need_exe tracer "$tracer"
need_exe "flood app" "$app"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

traces="$tmp/tracer-traces"
run="$traces/flood-20261128-120000-1"
mkdir -p "$traces"
rc=0
REL_COUNT="$tmp/count" "$tracer" --trace-output "$run" -j -o "$tmp/full.json" -- "$app" 1 300 \
  >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 77 ] || grep -q "SKIP: no OpenCL" "$tmp/err"; then
  skip "no OpenCL runtime: $(cat "$tmp/err")"
fi
[ "$rc" -eq 0 ] || die "recording the trace failed ($rc): $(cat "$tmp/err")"
check_counts "the run" "$tmp/count" "$tmp/full.json"
calls=$(tally_calls "$tmp/full.json")

# replay LABEL WANT_RC TIMEOUT_S PATH [OPTIONS]: tracer -r PATH -j within a time limit.
replay() {
  label=$1
  want=$2
  limit=$3
  path=$4
  shift 4
  rc=0
  timeout -k 5 "$limit" "$tracer" -r "$path" -j "$@" >"$tmp/$label.out" 2>"$tmp/$label.err" || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    fail "$label: tracer -r $path did not end within $limit s"
    return
  fi
  check_eq "$label: exit status" "$want" "$rc"
  if grep -qE 'Sanitizer|runtime error:' "$tmp/$label.err"; then
    fail "$label: sanitizer report:"
    sed 's/^/    /' "$tmp/$label.err" | head -30
  fi
}

# once LABEL: the JSON tally of the read counts every call of the run once.
once() {
  got=$(tally_calls "$tmp/$1.out" 2>/dev/null) || got="(no JSON tally)"
  if jq -e -n --argjson a "$calls" --argjson b "$got" '$a == $b' >/dev/null 2>&1; then
    ok "$1: every call once: $(echo "$got" | tr -d ' ')"
  else
    fail "$1: the tally $got is not the run's $calls"
  fi
}

case $scenario in
links)
  ln -s "$run" "$traces/latest"
  replay folder 0 60 "$traces"
  once folder
  replay link 0 60 "$traces/latest"
  once link
  ;;
runs)
  cp -a "$run" "$traces/flood-20261128-130000-2"
  touch -d '2026-11-28 13:00' "$traces/flood-20261128-130000-2/tracer-run.txt"
  touch -d '2026-11-28 12:00' "$run/tracer-run.txt"
  ln -s "$traces/flood-20261128-130000-2" "$traces/latest"
  replay folder 2 60 "$traces"
  if [ -s "$tmp/folder.out" ]; then
    fail "a report was printed: $(head -c 200 "$tmp/folder.out")"
  else
    ok "no report of the runs merged"
  fi
  sed 's/^/    /' "$tmp/folder.err"
  if grep -q 'holds 2 runs' "$tmp/folder.err"; then ok "says the folder holds 2 runs"
  else fail "does not say the folder holds 2 runs"; fi
  for name in flood-20261128-120000-1 flood-20261128-130000-2; do
    if grep -E "^  $name +2026-11-28 1[23]:00 +flood +[0-9.]+[BKM]\$" "$tmp/folder.err" >/dev/null; then
      ok "lists $name with its date, app and size"
    else
      fail "does not list $name with its date, app and size"
    fi
  done
  wide=$(awk 'length > 80' "$tmp/folder.err" | grep -v 'error:' | head -n 1)
  if [ -z "$wide" ]; then ok "the list fits 80 columns"; else fail "a line of the list is wider than 80 columns: $wide"; fi
  replay one 0 60 "$traces/flood-20261128-130000-2"
  once one
  ;;
loop)
  ln -s "$traces" "$run/loop"
  ln -s . "$traces/self"
  replay loop 0 60 "$traces"
  once loop
  # What lies behind /proc/self/root is the machine's: the walk ends at its bound (exit 4)
  # or lists the runs it found (other traces on the machine: exit 2), never a report.
  rc=0
  timeout -k 5 100 "$tracer" -r /proc/self -j >"$tmp/proc.out" 2>"$tmp/proc.err" || rc=$?
  case $rc in
  2 | 4) ok "/proc/self: the walk ended (exit $rc): $(grep Cannot "$tmp/proc.err" | head -n 1)" ;;
  124 | 137) fail "/proc/self: tracer -r /proc/self did not end within 100 s" ;;
  *) fail "/proc/self: exit $rc: $(head -c 300 "$tmp/proc.err")" ;;
  esac
  if [ -s "$tmp/proc.out" ]; then fail "/proc/self: a report: $(head -c 200 "$tmp/proc.out")"
  else ok "/proc/self: no report"; fi
  ;;
file)
  replay file 4 60 "$run/tracer-run.txt"
  if grep -q "$run/tracer-run.txt" "$tmp/file.err" && ! grep -q "$run/metadata" "$tmp/file.err"; then
    ok "the message names the file given: $(grep error "$tmp/file.err" | head -n 1)"
  else
    fail "the message does not name $run/tracer-run.txt (alone): $(cat "$tmp/file.err")"
  fi
  ;;
*) die "unknown scenario $scenario" ;;
esac
rel_finish "$scenario"
