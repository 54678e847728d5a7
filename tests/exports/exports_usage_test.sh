#!/bin/sh
# --otf2 and --flame where they cannot or must not write, on a trace of the vadd app:
#  - --otf2 into a folder holding other files: exit 4, a message naming the folder, the
#    tables still printed, the folder left as it was;
#  - --otf2 into a folder that holds an archive (an earlier run's): replaced, and read;
#  - --otf2 into an empty folder: used;
#  - --flame into a folder that does not exist: exit 4, a message naming the file, the
#    OTF2 archive of the same run still written;
#  - --help lists both options.
# Usage: exports_usage_test.sh TRACER APP
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_app "$app"
need_tracer "$tracer"
command -v otf2-print >/dev/null 2>&1 || fail "otf2-print not found (scripts/setup.sh installs otf2-tools)"

run_traced traced -- "$app"
[ "$rc" -eq 77 ] && skip "no OpenCL runtime"
expect_rc 0 traced
trace=$tmp/traced.trace

replay() { # NAME OPTIONS...: tracer -r on the trace
  name=$1
  shift
  rc=0
  "$tracer" -r "$trace" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
}

mkdir "$tmp/busy"
echo "my notes" >"$tmp/busy/notes.txt"
replay busy --otf2 "$tmp/busy"
expect_rc 4 busy
grep -q "Cannot write the OTF2 archive: $tmp/busy holds files and no OTF2 archive" "$tmp/busy.err" ||
  fail "no message naming the busy folder: $(cat "$tmp/busy.err")"
grep -q '^Total' "$tmp/busy.out" || fail "the tables were not printed with the failed export"
[ "$(ls "$tmp/busy")" = notes.txt ] && [ "$(cat "$tmp/busy/notes.txt")" = "my notes" ] ||
  fail "the busy folder was changed: $(ls -la "$tmp/busy")"

replay first --otf2 "$tmp/archive"
expect_rc 0 first
echo "left over" >"$tmp/archive/traces/99.evt" # an earlier, larger archive's location
replay again --otf2 "$tmp/archive"
expect_rc 0 again
[ ! -e "$tmp/archive/traces/99.evt" ] || fail "the archive replaced kept an old location's file"
otf2-print "$tmp/archive/traces.otf2" >/dev/null 2>"$tmp/print.err" ||
  fail "otf2-print cannot read the replaced archive: $(cat "$tmp/print.err")"
[ ! -e "$tmp/archive.tmp" ] || fail "the temporary folder was left behind"

mkdir "$tmp/empty"
replay empty --otf2 "$tmp/empty"
expect_rc 0 empty
[ -s "$tmp/empty/traces.otf2" ] || fail "the empty folder did not get the archive"

replay noflame --flame "$tmp/missing/stacks.folded" --otf2 "$tmp/withflame"
expect_rc 4 noflame
grep -q "Cannot write the folded stacks: file=$tmp/missing/stacks.folded" "$tmp/noflame.err" ||
  fail "no message naming the folded stacks' file: $(cat "$tmp/noflame.err")"
[ -s "$tmp/withflame/traces.otf2" ] || fail "the OTF2 archive of the same run was not written"

"$tracer" --help >"$tmp/help.txt"
grep -q -- '--otf2 DIR' "$tmp/help.txt" && grep -q -- '--flame FILE' "$tmp/help.txt" ||
  fail "--help does not list --otf2 and --flame"
echo "PASS: $e2e_name: a busy folder refused and left alone, an archive replaced, an empty folder used, an unwritable flame file reported"
