#!/bin/sh
# The libraries `tracer` loads when a command needs them, not at its start (issue 48,
# cli/loaded/loaded_library.h), seen through the dynamic loader's own account
# (LD_DEBUG=files, one file a process): a replay (`tracer -r`: the tables, -t, -l) of a
# trace without native stacks loads neither liblttng-ctl (nor the libstdc++, libxml2 and
# ICU it pulls in) nor libdw; the replay of a trace with native stacks loads libdw (and
# names the frames), and recording loads liblttng-ctl: the same account sees a library
# where one is loaded. Usage: replay_libraries_test.sh TRACER APP (an OpenCL app that
# launches kernels, whose launches carry native stacks unless --no-stacks).
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$app"

# loaded NAME COMMAND...: runs COMMAND (a tracer) with the loader's account of the files
# it loads in $tmp/NAME.ld (its own process only), its output in $tmp/NAME.out and .err.
loaded() {
  name=$1
  shift
  mkdir -p "$tmp/ld-$name"
  rc=0
  sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/$name.pid" env LD_DEBUG=files \
    LD_DEBUG_OUTPUT="$tmp/ld-$name/ld" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  [ "$rc" -ne 77 ] || skip "no OpenCL runtime: $(cat "$tmp/$name.err")"
  [ "$rc" -eq 0 ] || fail "$name: exit $rc: $(cat "$tmp/$name.err")"
  own="$tmp/ld-$name/ld.$(cat "$tmp/$name.pid")"
  [ -s "$own" ] || fail "$name: no account of the loader for the tracer's process ($own)"
  sed -n 's/.*calling init: //p' "$own" >"$tmp/$name.ld"
  grep -q 'libc\.so' "$tmp/$name.ld" || fail "$name: the account names no libc: $(cat "$own")"
}
has() { grep -q "/$2" "$tmp/$1.ld"; }

# Recording loads liblttng-ctl (the session), when the session is made.
loaded record "$tracer" -q --no-stacks --trace-output "$tmp/plain.trace" -o /dev/null -- "$app"
has record liblttng-ctl.so || fail "recording did not load liblttng-ctl: $(cat "$tmp/record.ld")"
loaded stacks "$tracer" -q --trace-output "$tmp/stacks.trace" -o /dev/null -- "$app"

# The libraries a replay must not load; libstdc++ unless the tracer's own build needs it
# (a sanitized build: the sanitizers' runtime links it).
unwanted="liblttng-ctl.so libdw.so libxml2.so libicuuc.so libopen-trace-format2.so libjansson.so"
ldd "$tracer" | grep -q 'libstdc++' || unwanted="$unwanted libstdc++.so"
for args in "" "-t" "-l $tmp/timeline.json"; do
  # shellcheck disable=SC2086 # the options' words
  loaded replay "$tracer" -q -r "$tmp/plain.trace" $args
  grep -q . "$tmp/replay.out" || [ -s "$tmp/timeline.json" ] || fail "tracer -r $args wrote nothing"
  for lib in $unwanted; do
    if has replay "$lib"; then
      fail "tracer -r $args of a trace without native stacks loaded $lib: $(tr '\n' ' ' <"$tmp/replay.ld")"
    fi
  done
  echo "ok: tracer -r $args: $(sed 's|.*/||' "$tmp/replay.ld" | tr '\n' ' ')"
done

# A trace with native stacks: its frames are named through libdw, loaded then.
loaded named "$tracer" -q -r "$tmp/stacks.trace" -t
has named libdw.so || fail "the replay of native stacks did not load libdw: $(cat "$tmp/named.ld")"
grep -q '^    at main ' "$tmp/named.out" ||
  fail "no launch under main in -t of a trace with native stacks: $(grep -m3 '^    at ' "$tmp/named.out")"
has named liblttng-ctl.so && fail "the replay of native stacks loaded liblttng-ctl"
echo "ok: native stacks named through libdw ($(grep -c '^    at main ' "$tmp/named.out") frames of main); liblttng-ctl not loaded"
