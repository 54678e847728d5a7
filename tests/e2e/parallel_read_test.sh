#!/bin/sh
# The read in time order on several threads (cli/reader/reader_ordered.c) gives what
# the read on one thread gives, byte for byte: `-t`, `-l` (the Perfetto file and the
# text tables with the device use and gaps that come with it) and `-j -l`, read with
# --threads 1, 2 and 4, on traces with several streams: the threads app (a main thread
# and 4 workers, each with its queue and kernels) in default and full mode (device
# commands, strings, the runtime's own events; several threads, so that a loaded
# machine's scheduler still spreads the events over CPUs), cl_loop with 2 threads, each on
# a CPU of its own (--spread: a loaded machine's scheduler kept both on one, 3 recordings
# in a row, in a chroot trial), in default and minimal mode (batches, the horizon) and, as root, in default mode as nobody (a private daemon:
# the TSC clock where there is one). Each trace must have several streams with events, and
# -v must say the read took several threads, else the test would prove nothing.
# Usage: parallel_read_test.sh TRACER THREADS VADD CL_LOOP
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 4 ] || { echo "usage: $0 TRACER THREADS VADD CL_LOOP" >&2; exit 2; }
tracer=$(abspath "$1")
threads_app=$(abspath "$2")
vadd=$(abspath "$3")
cl_loop=$(abspath "$4")
e2e_setup
need_tracer "$tracer"
for a in "$threads_app" "$vadd" "$cl_loop"; do need_app "$a"; done
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "one CPU: LTTng writes one stream per CPU"

# record NAME [AS...] -- TRACER-OPTIONS -- APP ARGS: a trace in $tmp/NAME (recorded in
# $dir/NAME: a folder the user AS can write).
dir=$tmp
record() {
  name=$1
  shift
  as=
  while [ "$1" != -- ]; do as="$as $1"; shift; done
  shift
  rc=0
  # shellcheck disable=SC2086 # $as is a command prefix
  $as "$tracer" -q --trace-output "$dir/$name" -o /dev/null "$@" >"$tmp/$name.out" 2>&1 || rc=$?
  if [ "$rc" -eq 77 ]; then
    skip "no OpenCL runtime"
  fi
  [ "$rc" -eq 0 ] || { sed 's/^/    /' "$tmp/$name.out" >&2; fail "recording $name exited $rc"; }
  [ "$dir" = "$tmp" ] || ln -s "$dir/$name" "$tmp/$name"
  # LTTng writes a stream per CPU: the CPUs that have events.
  streams=$(babeltrace2 "$tmp/$name" | grep -o 'cpu_id = [0-9]*' | sort -u | wc -l)
}

# record_streams NAME ...: as record, again (3 times at most) while the trace has
# events of one CPU only (the scheduler kept the app there).
record_streams() {
  for try in 1 2 3; do
    rm -rf "${dir:?}/$1" "${tmp:?}/$1"
    record "$@"
    [ "$streams" -lt 2 ] || return 0
  done
  fail "$1: 3 recordings had events of one CPU only: the read would take one thread"
}

# same NAME WHAT OPTIONS...: OPTIONS on trace NAME with 1, 2, 4 and 64 threads write the
# same bytes (standard output, and FILE.pftrace when -l FILE is among them). 64 is more
# than the read takes (a thread per stream and the merge): a timeline is then written on
# a thread of its own beside the read (cli/reader/consumer_thread.c), with the reports
# that can go with it, and -v must say so.
beside=64
same() {
  name=$1
  what=$2
  shift 2
  threads="1 2 4 $beside"
  for t in $threads; do
    rm -f "$tmp/out.pftrace"
    "$tracer" -v -r "$tmp/$name" --threads "$t" "$@" >"$tmp/$what-$t.txt" 2>"$tmp/$what-$t.err" ||
      { sed 's/^/    /' "$tmp/$what-$t.err" >&2; fail "$name: $what with $t threads failed"; }
    if [ -f "$tmp/out.pftrace" ]; then mv "$tmp/out.pftrace" "$tmp/$what-$t.pftrace"; fi
    read=$(sed -n 's/^tracer: debug: read the trace in time order on \([0-9]*\) threads*\(;.*\)*$/\1/p' \
      "$tmp/$what-$t.err")
    [ -n "$read" ] || fail "$name: $what with $t threads: no read in time order"
    if [ "$t" -gt 1 ] && [ "$read" -lt 2 ]; then
      fail "$name: $what with --threads $t read on $read thread"
    fi
  done
  [ -s "$tmp/$what-1.txt" ] || fail "$name: $what printed nothing"
  if [ -f "$tmp/$what-1.pftrace" ]; then
    grep -q '^tracer: debug: read the trace .*; on one more: .*timeline' "$tmp/$what-$beside.err" ||
      fail "$name: $what with $beside threads: the timeline not on a thread of its own"
  fi
  if grep -q '; on one more' "$tmp/$what-1.err"; then
    fail "$name: $what with one thread took another"
  fi
  for t in $threads; do
    [ "$t" != 1 ] || continue
    cmp -s "$tmp/$what-1.txt" "$tmp/$what-$t.txt" || {
      diff "$tmp/$what-1.txt" "$tmp/$what-$t.txt" | head -10 >&2
      fail "$name: $what with $t threads differs from one thread"
    }
    if [ -f "$tmp/$what-1.pftrace" ]; then
      cmp -s "$tmp/$what-1.pftrace" "$tmp/$what-$t.pftrace" ||
        fail "$name: the timeline ($what) with $t threads differs from one thread"
    fi
  done
  checked=$((checked + 1))
}

command -v babeltrace2 >/dev/null 2>&1 || fail "babeltrace2 not found (scripts/setup.sh installs it)"
record_streams threads -- -b opencl -- "$threads_app"
record_streams minimal -- -b opencl -m minimal -- "$cl_loop" --calls 100000 --threads 2 --spread
record_streams full -- -b opencl -m full -- "$threads_app"
record_streams loop -- -b opencl -- "$cl_loop" --calls 100000 --threads 2 --spread
traces="threads minimal full loop"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && ! nobody_can_run "$tracer" "$cl_loop"; then
  echo "note: the recording as nobody is left out: $nobody_why"
elif [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  chmod 755 "$tmp"
  mkdir "$tmp/home"
  chown nobody "$tmp/home"
  dir=$tmp/home
  record_streams tsc setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp/home" \
    POCL_CACHE_DIR="$tmp/home/pocl" -- -b opencl -- "$cl_loop" --calls 100000 --threads 2 --spread
  traces="$traces tsc"
fi

checked=0
for name in $traces; do
  same "$name" "$name-text" -t
  same "$name" "$name-timeline" -l "$tmp/out.pftrace"
  same "$name" "$name-json" -j -l "$tmp/out.pftrace"
done
echo "PASS: $e2e_name: $checked reads of $(echo "$traces" | wc -w) traces, the same bytes on 1, 2, 4 and $beside threads (the timeline beside the read)"
