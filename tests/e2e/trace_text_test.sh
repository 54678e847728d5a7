#!/bin/sh
# `tracer -m full -t` decodes arguments right: for each call of the decode app, the line
# of its event shows the values the app passed and got (enum and status names, handles in
# hex, out values, strings, arrays, struct members). Then the project's CTF reader and
# babeltrace2 must agree on every field of every event of that trace.
# Usage: trace_text_test.sh TRACER DECODE_APP CTF_DUMP
set -eu
. "$(dirname "$0")/lib.sh"
e2e_setup
tracer=$(abspath "$1")
app=$(abspath "$2")
ctf_dump=$(abspath "$3")
need_tracer "$tracer"
command -v babeltrace2 >/dev/null 2>&1 || skip "babeltrace2 not found"

set +e
"$tracer" -q -m full -t -o "$tmp/trace.txt" --trace-output "$tmp/trace" -- \
  "$app" "$tmp/expect.tsv" >"$tmp/app.out" 2>"$tmp/app.err"
rc=$?
set -e
[ "$rc" -eq 77 ] && skip "no OpenCL platform"
[ "$rc" -eq 0 ] || fail "the app exited with $rc: $(cat "$tmp/app.err")"
[ -s "$tmp/expect.tsv" ] || fail "the app wrote no expectation"

checked=0
tab=$(printf '\t')
while IFS="$tab" read -r event text; do
  # Every line of that event is a candidate: the app may call a function twice.
  if ! grep -F ":$event: {" "$tmp/trace.txt" | grep -qF -- "$text"; then
    echo "--- lines of $event:" >&2
    grep -F ":$event: {" "$tmp/trace.txt" | head -5 >&2
    fail "no $event line shows: $text"
  fi
  checked=$((checked + 1))
done <"$tmp/expect.tsv"
echo "$checked decoded values checked in $(wc -l <"$tmp/trace.txt") event lines"

# One event per call comes back as two lines: per thread, entries and exits pair up as a
# stack (nested calls inside their caller), and times never go back.
awk '
  match($0, /tid: [0-9]+ - [^ ]+:[A-Za-z0-9_]+_(entry|exit): /) {
    split(substr($0, RSTART, RLENGTH), w, /[ :]+/)
    tid = w[2]; name = w[5]; t = $1
    if (t < last[tid]) { print "time goes back on thread " tid ": " $0; bad = 1 }
    last[tid] = t
    if (name ~ /_entry$/) { sub(/_entry$/, "", name); stack[tid, ++depth[tid]] = name; calls++ }
    else {
      sub(/_exit$/, "", name)
      if (depth[tid] < 1 || stack[tid, depth[tid]] != name) { print "unpaired exit: " $0; bad = 1 }
      else depth[tid]--
    }
  }
  END {
    for (tid in depth) if (depth[tid]) { print "thread " tid ": " depth[tid] " calls never exit"; bad = 1 }
    if (!calls) { print "no call lines"; bad = 1 }
    exit bad
  }' "$tmp/trace.txt" >"$tmp/pairs.txt" || fail "-t lines do not pair up: $(head -3 "$tmp/pairs.txt")"
echo "entry and exit lines pair up per thread, in time order"

# The same trace through both decoders, event for event, field for field.
LC_ALL=C babeltrace2 --clock-cycles --no-delta "$tmp/trace" >"$tmp/bt2.txt"
"$ctf_dump" "$tmp/trace" >"$tmp/ours.txt" || fail "ctf_dump failed"
[ -s "$tmp/bt2.txt" ] || fail "babeltrace2 printed nothing"
if ! cmp -s "$tmp/bt2.txt" "$tmp/ours.txt"; then
  diff "$tmp/bt2.txt" "$tmp/ours.txt" | head -10 >&2
  fail "the project's decoder and babeltrace2 disagree"
fi
echo "the project's decoder and babeltrace2 agree on all $(wc -l <"$tmp/bt2.txt") events"

# The event metadata says what calls mean, so analyses stay generic (api-specs/opencl.yaml:
# trace.commands and trace.calls): check it through the JSON tally of the same trace.
"$tracer" -q -r "$tmp/trace" -j -o "$tmp/tally.json"
for pair in clCreateBuffer=alloc clReleaseMemObject=free clFinish=sync \
            clWaitForEvents=sync clEnqueueNDRangeKernel=kernel_launch; do
  fn=${pair%=*} meaning=${pair#*=}
  got=$(jq -r --arg f "$fn" '.backends[] | select(.name == "opencl") | .host[] |
                             select(.name == $f) | .meaning' "$tmp/tally.json")
  [ "$got" = "$meaning" ] || fail "$fn should mean $meaning, the tally says '$got'"
done
echo "call meanings (alloc, free, sync, kernel_launch) are in the tally"
