#!/bin/sh
# The stacks of the calls that submit device work (docs/flame.md), against what the apps
# themselves did. Usage: stacks_test.sh TRACER CASE [APP]
#
# CASE:
#  pyopencl  Debian's python3 with python3-pyopencl on PoCL (PYOPENCL_CTX=0): two Python
#            functions launching kernels of known relative cost (stacks_pyopencl.py).
#            The device-weighted folded stacks hold each kernel under its function's
#            line; per kernel and per Python frame they add up to the tally's device time;
#            -t prints each launch's line; the report's Top source lines name both lines;
#            the timeline's launch slices carry their stacks; the trace writes each stack
#            once (stack events by id, fewer than the launches); no interpreter frame;
#            `--flame FILE.svg` writes SVG that xmllint reads, each frame as wide as its
#            weight, the weights those of the folded lines (device and host); the same
#            from `tracer -r`; and with --no-stacks, no frame of Python at all.
#  ctypes    every Python 3 from 3.9 to 3.13 the machine has (Debian's and pyenv's), each
#            launching through ctypes without the GIL (CDLL) and with it (PyDLL), and with
#            the public accessors (TRACER_PYTHON_WALK=api, the GIL held): each kernel under
#            its five known frames (stacks_ctypes.py), deep in a recursion.
#  native    APP (stacks_app, built with frame pointers): each kernel under its native
#            frames, main -> run_steps -> layer_forward -> launch_light for `light` and
#            the same through layer_backward -> launch_heavy for `heavy`, under the ITT
#            task `steps` the main thread opened; a kernel launched by a thread of its own
#            (which opened no region) under helper_main -> launch_heavy, and under the
#            region the main thread had open then (`helper wait`), marked `[thread TID]`;
#            the symbols named when the trace is read.
#  cudart    APP (testapp_cudart) on the null CUDA runtime, which makes its driver calls
#            inside its own (LD_LIBRARY_PATH names the null libraries): the driver calls'
#            stacks hold no frame of the tracer's objects (the driver's interposer, the
#            runtime's interposer around it, the runtime) nor of the null libcudart
#            between them (stacks_own_check.py, on the trace's stack and object events):
#            each starts in the app, and -t puts each submission at a line of main that
#            calls the runtime's copy, fill or launch. With TRACER_STACKS_NATIVE=0, stacks
#            without a native frame.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 TRACER CASE [APP]" >&2; exit 2; }
tracer=$(abspath "$1")
case=$2
e2e_name="stacks_$case"
e2e_setup
need_tracer "$tracer"
command -v xmllint >/dev/null 2>&1 || fail "xmllint not found (scripts/setup.sh installs libxml2-utils)"
command -v babeltrace2 >/dev/null 2>&1 || fail "babeltrace2 not found (scripts/setup.sh)"

# check NAME ARGS...: stacks_check.py (or $checker), failing the test with its findings.
check() {
  name=$1
  shift
  /usr/bin/python3 "$here/${checker:-stacks_check.py}" "$@" >"$tmp/$name.check" 2>&1 || {
    echo "FAIL: $e2e_name: $name:" >&2
    sed 's/^/  /' "$tmp/$name.check" >&2
    exit 1
  }
}

# traced NAME TRACER-OPTIONS -- APP...: the app under the tracer, which must succeed.
traced() {
  name=$1
  shift
  run_traced "$name" "$@"
  [ "$rc" -eq 77 ] && skip "no OpenCL runtime: $(cat "$tmp/$name.err")"
  expect_rc 0 "$name"
}

case $case in
pyopencl)
  /usr/bin/python3 -c 'import pyopencl' 2>/dev/null ||
    fail "Debian's python3 cannot import pyopencl (scripts/setup.sh installs python3-pyopencl)"
  export PYOPENCL_CTX=0 PYOPENCL_NO_CACHE=1
  app="$here/stacks_pyopencl.py"
  traced run --flame "$tmp/stacks.folded" -- /usr/bin/python3 "$app" "$tmp/expect.json" 20
  "$tracer" -q -r "$tmp/run.trace" -j >"$tmp/tally.json" || fail "tracer -r -j failed"
  "$tracer" -q -r "$tmp/run.trace" -t >"$tmp/text.out" || fail "tracer -r -t failed"
  "$tracer" -q -r "$tmp/run.trace" --flame "$tmp/stacks.svg" >"$tmp/report.out" ||
    fail "tracer -r --flame FILE.svg failed"
  "$tracer" -q -r "$tmp/run.trace" --timeline="$tmp/timeline.pftrace" --timeline-format json \
    -o /dev/null || fail "tracer -r --timeline failed"
  { babeltrace2 "$tmp/run.trace" || fail "babeltrace2 cannot read the trace"; } |
    grep 'lttng_ust_tracer:stack:' >"$tmp/stack_events.txt" || fail "no stack event in the trace"
  for svg in stacks.svg stacks.host.svg; do
    xmllint --noout "$tmp/$svg" 2>"$tmp/xmllint.err" ||
      fail "xmllint rejects $svg: $(head -5 "$tmp/xmllint.err")"
  done
  check run --expect "$tmp/expect.json" --folded "$tmp/stacks.folded" --tally "$tmp/tally.json" \
    --text "$tmp/text.out" --report "$tmp/report.out" \
    --svg "$tmp/stacks.svg" --svg-folded "$tmp/stacks.folded" \
    --timeline "$tmp/timeline.json" --stack-events "$tmp/stack_events.txt"
  check host_svg --folded "$tmp/stacks.host.folded" --tally "$tmp/tally.json" \
    --svg "$tmp/stacks.host.svg"
  # The replay writes the same stacks.
  "$tracer" -q -r "$tmp/run.trace" --flame "$tmp/replay.folded" >/dev/null ||
    fail "tracer -r --flame failed"
  cmp -s "$tmp/stacks.folded" "$tmp/replay.folded" || fail "tracer -r wrote other stacks"
  # The checks can fail: a tally with 1 us more of `light` fails them.
  jq '(.backends[].device[]? | select(.name == "light") | .time_ns) += 1000' "$tmp/tally.json" \
    >"$tmp/tampered.json"
  if /usr/bin/python3 "$here/stacks_check.py" --expect "$tmp/expect.json" \
       --folded "$tmp/stacks.folded" --tally "$tmp/tampered.json" >/dev/null 2>&1; then
    fail "a tally with 1 us more of light still passes the check"
  fi
  # --no-stacks: no Python frame in the stacks, no stack events in the trace.
  traced nostacks --no-stacks --flame "$tmp/none.folded" -- /usr/bin/python3 "$app" \
    "$tmp/expect2.json" 5
  if grep -q '\.py:' "$tmp/none.folded"; then
    fail "--no-stacks still records Python frames: $(grep -m1 '\.py:' "$tmp/none.folded")"
  fi
  grep -q ';-;light' "$tmp/none.folded" || fail "--no-stacks lost the kernels"
  ;;
ctypes)
  versions=0
  for python in /usr/bin/python3 /root/.pyenv/versions/3.*/bin/python3; do
    [ -x "$python" ] || continue
    v=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    case $v in 3.9 | 3.10 | 3.11 | 3.12 | 3.13) ;; *) continue ;; esac
    for mode in nogil gil api; do
      gil=$mode
      walk=""
      [ "$mode" = api ] && gil=gil walk=api
      name="py$(echo "$v" | tr -d .)_${versions}_$mode"
      TRACER_PYTHON_WALK=$walk traced "$name" --flame "$tmp/$name.folded" -j \
        -o "$tmp/$name.tally" -- "$python" "$here/stacks_ctypes.py" "$tmp/$name.expect" "$gil" 6 40
      check "$name" --expect "$tmp/$name.expect" --folded "$tmp/$name.folded" \
        --tally "$tmp/$name.tally"
    done
    versions=$((versions + 1))
  done
  [ "$versions" -gt 0 ] || skip "no Python 3.9 to 3.13 here"
  echo "stacks_ctypes: $versions Python versions"
  ;;
native)
  [ $# -ge 3 ] || fail "usage: $0 TRACER native APP"
  app=$(abspath "$3")
  need_app "$app"
  INTEL_ITTNOTIFY_GROUPS=all traced native --flame "$tmp/stacks.folded" -- "$app" --helper 10
  "$tracer" -q -r "$tmp/native.trace" -j >"$tmp/tally.json" || fail "tracer -r -j failed"
  "$tracer" -q -r "$tmp/native.trace" -t >"$tmp/text.out" || fail "tracer -r -t failed"
  "$tracer" -q -r "$tmp/native.trace" >"$tmp/report.out" || fail "tracer -r failed"
  check native --folded "$tmp/stacks.folded" --tally "$tmp/tally.json" --report "$tmp/report.out" \
    --native light=main,run_steps,layer_forward,launch_light \
    --native heavy=main,run_steps,layer_backward,launch_heavy \
    --native "helper=helper wait,helper_main,launch_heavy"
  # The helper thread opened no region: its work goes under the main thread's, marked.
  grep -q '^stacks_app (pid [0-9]*);helper wait;\[thread [0-9]*\];.*;helper_main;launch_heavy;clEnqueueNDRangeKernel;-;helper ' \
    "$tmp/stacks.folded" || fail "the helper's kernels are not under the main thread's region: $(grep ';helper ' "$tmp/stacks.folded")"
  grep -q '^stacks_app (pid [0-9]*);steps;.*;main;run_steps;layer_forward;launch_light;' \
    "$tmp/stacks.folded" || fail "the main thread's kernels are not under its region steps"
  n=$(grep -c '^    at launch_light' "$tmp/text.out" || true)
  [ "$n" -eq 10 ] || fail "-t names launch_light on $n launches, the app made 10"
  # A window (issue 46) restricts the stacks: through the helper's region, the helper's
  # kernels alone, still under the main thread's region, weighing what they weighed.
  "$tracer" -q -r "$tmp/native.trace" --window 'helper wait' --flame "$tmp/window.folded" \
    -o /dev/null || fail "tracer -r --window --flame failed"
  helper_ns=$(grep ';-;helper ' "$tmp/stacks.folded" | awk '{s += $NF} END {print s + 0}')
  window_ns=$(grep ';-;' "$tmp/window.folded" | awk '{s += $NF} END {print s + 0}')
  [ "$helper_ns" -gt 0 ] && [ "$window_ns" = "$helper_ns" ] ||
    fail "through the window 'helper wait': $window_ns ns of device lines, the helper's weigh $helper_ns: $(cat "$tmp/window.folded")"
  ! grep ';-;' "$tmp/window.folded" | grep -qv '^stacks_app (pid [0-9]*);helper wait;\[thread [0-9]*\];.*;-;helper ' ||
    fail "device lines outside the helper's region through the window: $(grep ';-;' "$tmp/window.folded" | grep -v ';helper wait;')"
  ;;
cudart)
  [ $# -ge 3 ] || fail "usage: $0 TRACER cudart APP"
  app=$(abspath "$3")
  need_app "$app"
  source=$here/../apps/cudart_app.c
  traced cudart -t -- "$app"
  { babeltrace2 "$tmp/cudart.trace" || fail "babeltrace2 cannot read the trace"; } |
    grep -E 'lttng_ust_tracer:(object|stack|device_command):' >"$tmp/events.txt" || true
  checker=stacks_own_check.py check cudart --events "$tmp/events.txt" --app "$app" --foreign '^libcudart' \
    --text "$tmp/cudart.out" --source "$source" --function main \
    --calls 'CUDA\((cudaMemcpy|cudaMemcpyAsync|cudaMemset|cudaLaunchKernel),'
  # TRACER_STACKS_NATIVE=0: stacks without native frames (the Python frames alone).
  TRACER_STACKS_NATIVE=0 traced python_only -t -- "$app"
  babeltrace2 "$tmp/python_only.trace" | grep 'lttng_ust_tracer:stack:' >"$tmp/python_only.txt" ||
    fail "TRACER_STACKS_NATIVE=0: no stack event in the trace"
  ! grep -v '_native_length = 0,' "$tmp/python_only.txt" | grep -q . ||
    fail "TRACER_STACKS_NATIVE=0 still walks native frames: $(grep -m1 -v '_native_length = 0,' "$tmp/python_only.txt")"
  ! grep -q '^    at ' "$tmp/python_only.out" ||
    fail "TRACER_STACKS_NATIVE=0: -t still names native frames: $(grep -m1 '^    at ' "$tmp/python_only.out")"
  ;;
*) fail "unknown case $case" ;;
esac
echo "ok: $e2e_name"
