#!/bin/sh
# Options checked before anything runs (issue 50, docs/reliability.md):
#  - numeric options: a value with an unknown suffix, one too large for 64 bits, one too
#    small, one that is not a power of 2 where one is wanted, one that is no number: exit
#    2, a message that says which of these it is, no trace folder;
#  - -b with a backend that does not exist: exit 2, the message lists the backends there
#    are (those --help lists);
#  - -o, --csv, -l FILE and --flame naming a folder that does not exist, a folder where a
#    file is wanted, --otf2 below a file or into a folder holding other files: exit 4 with
#    the writer's own message, before the app runs (the app, which would leave a file,
#    did not run), and nothing made: no trace folder, no file at any of those paths;
#  - an app that cannot start (missing: 127, not executable: 126) leaves no trace folder,
#    given or the default one under ~/tracer-traces;
#  - the same options with writable paths run the app and write each file;
#  - a tracer that has some backends' interposers only traces those without -b, naming
#    the others, and refuses -b with a missing one.
# Usage: options_test.sh TRACER VADD
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER VADD" >&2; exit 2; }
tracer=$(abspath "$1")
vadd=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$vadd"

# bad NAME STATUS PATTERN TRACER-OPTIONS...: the tracer exits STATUS before the app (which
# would make $tmp/NAME.ran) runs, saying PATTERN, and leaves no trace folder.
bad() {
  name=$1 want=$2 pattern=$3
  shift 3
  rc=0
  "$tracer" --trace-output "$tmp/$name.trace" "$@" -- sh -c "touch '$tmp/$name.ran'" \
    >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "$name ($*): exit $rc, expected $want: $(cat "$tmp/$name.err")"
  grep -q -- "$pattern" "$tmp/$name.err" ||
    fail "$name ($*): no message '$pattern' in: $(cat "$tmp/$name.err")"
  [ ! -e "$tmp/$name.ran" ] || fail "$name ($*): the app ran"
  [ ! -e "$tmp/$name.trace" ] || fail "$name ($*): a trace folder was made"
}

# Sizes and counts: what is wrong with each value.
bad size_suffix 2 "Cannot use --max-size 2Q: unknown suffix 'Q'" --max-size 2Q
bad size_overflow 2 "Cannot use --max-size 17179869185G: too large" --max-size 17179869185G
bad size_digits 2 "Cannot use --max-size 18446744073709551616: too large" \
  --max-size 18446744073709551616
bad size_small 2 "Cannot use --max-size 512k: too small (the least is 1M)" --max-size 512k
bad size_negative 2 "Cannot use --max-size -5M: not a number" --max-size -5M
bad split_suffix 2 "Cannot use --timeline-split 1T: unknown suffix 'T'" --timeline-split 1T
bad buffer_power 2 "Cannot use --buffer-size 3M: not a power of 2" --buffer-size 3M
bad buffer_overflow 2 "Cannot use --buffer-size 17179869184G: too large" \
  --buffer-size 17179869184G
bad count_zero 2 "Cannot use --buffer-count 0: too small" --buffer-count 0
bad count_words 2 "Cannot use --buffer-count 4x: not a whole number" --buffer-count 4x
bad threads_word 2 "Cannot use --threads many: not a number" --threads many
bad threads_zero 2 "Cannot use --threads 0: too small" --threads 0
bad ranks_word 2 "Cannot use --ranks=high: not a number (a percentage such as 25)" --ranks=high
bad traced_backwards 2 "Cannot use --traced-ranks 5-2: expected ranks and ranges" \
  --traced-ranks 5-2

# An unknown backend: the message lists those there are, as --help does.
known=$("$tracer" --help | sed -n 's/.*built here: \([^;)]*\).*/\1/p' | tr -d ' ')
[ -n "$known" ] || fail "--help lists no backends"
bad backend 2 "Unknown backend: nosuch (the backends here: $(echo "$known" | sed 's/,/, /g'))" \
  -b nosuch

# Output paths: checked before the app runs, nothing made.
mkdir "$tmp/busy"
echo "notes" >"$tmp/busy/notes.txt"
bad output 4 "Cannot write the analysis: file=$tmp/missing/report.txt: its folder $tmp/missing: No such file or directory" \
  -o "$tmp/missing/report.txt"
bad output_folder 4 "Cannot write the analysis: file=$tmp/busy: it is a folder" -o "$tmp/busy"
bad csv 4 "Cannot write the CSV tally: file=$tmp/missing/t.csv: its folder" \
  --csv "$tmp/missing/t.csv"
bad timeline 4 "Cannot write the timeline: file=$tmp/missing/t.pftrace: its folder" \
  -l "$tmp/missing/t.pftrace"
bad flame 4 "Cannot write the folded stacks: file=$tmp/missing/s.folded: its folder" \
  --flame "$tmp/missing/s.folded"
bad otf2 4 "Cannot write the OTF2 archive: $tmp/busy/notes.txt/a: $tmp/busy/notes.txt is not a folder" \
  --otf2 "$tmp/busy/notes.txt/a"
bad otf2_busy 4 "Cannot write the OTF2 archive: $tmp/busy holds files and no OTF2 archive" \
  --otf2 "$tmp/busy"
grep -q "The app was not run" "$tmp/otf2_busy.err" || fail "the tracer did not say the app was not run"
[ ! -e "$tmp/missing" ] || fail "a folder named in the options was made"
[ "$(ls "$tmp/busy")" = notes.txt ] || fail "the busy folder was changed: $(ls "$tmp/busy")"
# Every problem at once, each said.
bad all 4 "Cannot write the CSV tally" -o "$tmp/missing/r.txt" --csv "$tmp/missing/t.csv"
grep -q "Cannot write the analysis" "$tmp/all.err" || fail "-o's problem not said with --csv's"

# An app that cannot start: no trace folder, given or default (HOME's tracer-traces).
mkdir -p "$tmp/home"
rc=0
HOME=$tmp/home "$tracer" "$tmp/no-such-app" >"$tmp/nf.out" 2>"$tmp/nf.err" || rc=$?
[ "$rc" -eq 127 ] || fail "a missing app: exit $rc, expected 127: $(cat "$tmp/nf.err")"
grep -q "Cannot run app: command=$tmp/no-such-app, no such file" "$tmp/nf.err" ||
  fail "a missing app: no message: $(cat "$tmp/nf.err")"
[ -z "$(ls -A "$tmp/home/tracer-traces" 2>/dev/null)" ] ||
  fail "a missing app left a trace folder: $(ls "$tmp/home/tracer-traces")"
printf '#!/bin/sh\n' >"$tmp/not-executable"
chmod 0644 "$tmp/not-executable"
rc=0
"$tracer" --trace-output "$tmp/ne.trace" "$tmp/not-executable" >/dev/null 2>"$tmp/ne.err" || rc=$?
[ "$rc" -eq 126 ] || fail "an app that is not executable: exit $rc, expected 126"
[ ! -e "$tmp/ne.trace" ] || fail "an app that is not executable left a trace folder"

# The same options with paths that can be written (--otf2's folders made on the way, as
# libotf2 makes them): the app runs, every file is written.
run_traced good -o "$tmp/r.txt" --csv "$tmp/t.csv" -l "$tmp/t.pftrace" \
  --flame "$tmp/s.folded" --otf2 "$tmp/new/archive" -- "$vadd"
[ "$rc" -eq 77 ] && skip "no OpenCL runtime"
expect_rc 0 good
for f in r.txt t.csv t.pftrace s.folded s.host.folded new/archive/traces.otf2; do
  [ -s "$tmp/$f" ] || fail "the run did not write $f"
done
# A tracer with some backends' interposers only (a GPU node's build carrying the CUDA
# ones): without -b it traces those it has, every call of theirs as the whole build
# counts them, and names the others in one line; -b naming a missing one is an error.
libs=$(dirname "$tracer")/../lib
mkdir -p "$tmp/part/bin" "$tmp/part/lib"
cp "$tracer" "$tmp/part/bin/tracer"
for b in runtime clock opencl; do
  [ -e "$libs/libtracer_$b.so" ] && ln -s "$(cd "$libs" && pwd)/libtracer_$b.so" "$tmp/part/lib/"
done
run_traced whole -b opencl -j -o "$tmp/whole.json" -- "$vadd"
expect_rc 0 whole
tracer_saved=$tracer
tracer=$tmp/part/bin/tracer
run_traced part -j -o "$tmp/part.json" -- "$vadd"
expect_rc 0 part
grep -q "not traced: .*hip.*(no interposer next to the tracer" "$tmp/part.err" ||
  fail "the backends left out are not named: $(cat "$tmp/part.err")"
opencl_calls() { jq '[.backends[] | select(.name == "opencl") | .host[].calls] | add // 0' "$1"; }
whole=$(opencl_calls "$tmp/whole.json")
part=$(opencl_calls "$tmp/part.json")
[ "$whole" -gt 0 ] && [ "$part" = "$whole" ] ||
  fail "OpenCL calls with the interposers there are: $part, with every one: $whole"
bad partial_b 2 "Cannot find the hip interposer" -b hip
tracer=$tracer_saved

echo "PASS: $e2e_name: bad values named, unknown backend lists the known ones, unwritable" \
  "outputs refused before the app runs, an app that cannot start leaves no trace folder"
