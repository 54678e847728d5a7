#!/bin/sh
# Two CUPTI clients in one process (docs/cuda.md, "An app's own CUPTI client"): a traced
# program runs a CUPTI activity client of its own, as a training script running
# torch.profiler does, on the null driver with a stand-in CUPTI (cupti_standin.c) that has
# CUPTI's rule of one client. TRACER_CUDA_TIMING is unset, so the tracer takes CUPTI first.
#  - The app's client gets every kernel it profiled, in its own buffers, on CUPTI's clock,
#    as without the tracer (the app checks that itself and exits 1 otherwise);
#  - the tracer's report has every kernel of the run (the app's own count), the ones
#    before the app's client from CUPTI (the stand-in's kernels last exactly 7 us), and a
#    note that it times device work with CUDA events from then on;
#  - the same when the app's client starts before cuInit: events from the start.
# Usage: cupti_client_test.sh TRACER APP
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
e2e_dir=$(cd "$(dirname "$0")/../e2e" && pwd) # compare.jq lives there
[ $# -eq 2 ] || { echo "usage: $0 TRACER APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$app"
unset TRACER_CUDA_TIMING

note='Note: .*own CUPTI activity client.*times device work with CUDA events'

for first in 0 1; do
  export APP_CUPTI_FIRST=$first
  run_plain "plain$first" "$app"
  expect_rc 0 "plain$first"
  run_traced "traced$first" -j -o "$tmp/traced$first.tally.json" -- "$app"
  expect_rc 0 "traced$first" # the app's own client got all its kernels
  same_stdout "plain$first" "traced$first"
  E2E_BACKEND=cuda compare_tally "$tmp/traced$first.tally.json" "$tmp/traced$first.json"
  jq -e '.backends[] | select(.name == "cuda") | .device_times != "host"' \
    "$tmp/traced$first.tally.json" >/dev/null || fail "first=$first: cuda device times said host-side"
  # The note, in the text report of the same trace.
  "$tracer" -r "$tmp/traced$first.trace" >"$tmp/text$first.out" 2>&1 ||
    fail "first=$first: tracer -r failed: $(cat "$tmp/text$first.out")"
  grep -q "$note" "$tmp/text$first.out" ||
    fail "first=$first: no note that CUDA events time the device work: $(cat "$tmp/text$first.out")"
done

# Before the app's client started, CUPTI (the stand-in, 7 us a kernel) timed the warmups;
# the profiled kernels, after it, were timed with events.
kernel() { jq -c --arg k "$2" '.backends[] | select(.name == "cuda") | .device[] | select(.name == $k)' "$1"; }
kernel "$tmp/traced0.tally.json" warmup |
  jq -e '.min_ns >= 6900 and .max_ns <= 7100' >/dev/null ||
  fail "the warmups were not timed by CUPTI (7 us each): $(kernel "$tmp/traced0.tally.json" warmup)"

echo "PASS: $e2e_name: $(cat "$tmp/traced0.out")"
