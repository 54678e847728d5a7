#!/bin/bash
# Issue 47's runs on an NVIDIA machine, from the repository root, with `tracer`, LTTng,
# torchrun and a python3 that has PyTorch, Triton and NCCL on PATH (as bench/gpu/run_ddp.sh;
# docs/cuda.md's recipe for a GPU node). NPROC (default 2) is the ranks torchrun starts:
# NPROC=1 on a machine with one GPU (DDP over NCCL with one rank: no communication, the
# rest of the demo as on two):
#
#     make backend=cuda,cudart,nvtx,nccl,itt      # on Debian: the demo's ITT regions, NCCL
#     scripts/lttng-carry.sh fetch .lttng-carry   # on Debian: LTTng for the node
#     . .lttng-carry/env.sh && export PATH=$PWD/build/bin:$PATH    # on the GPU node
#     bash bench/gpu/run_stacks.sh OUT [STEP...]          # two GPUs (nvidia-h200-x2)
#     NPROC=1 bash bench/gpu/run_stacks.sh OUT [STEP...]  # one GPU
#
# STEPs (default: walk flame pcsampling overhead):
#   walk        which walk of Python's frames this Python gets (TRACER_DEBUG's line:
#               `walk: frames 3.12` expected), on tests/gpu/triton_vadd.py
#   flame       tests/gpu/ddp_demo.py (DDP over NCCL, ITT regions, Triton's vadd) under
#               `torchrun --no-python tracer --flame`, 20 steps: the folded stacks, then
#               `tracer -r --flame ddp.svg` (device and host SVG), the report (its top source
#               lines), -t's first lines of code; bench/gpu/check_stacks.py: no device line
#               right under a rank, copies under their calls, each Triton kernel under
#               triton_add's line, the forward's kernels under forward lines, the backward's
#               under Backward (inherited by the autograd threads: [thread TID]), the
#               weights against the tally
#   pcsampling  tests/gpu/pc_sampling.py (a memory-bound and a compute-bound Triton kernel)
#               untraced, traced, and under `tracer --pc-sampling --flame` (TRACER_DEBUG:
#               the runtime's PC sampling lines go to summary.txt): each kernel's stall
#               reasons and hottest instructions (bench/gpu/check_stacks.py --pc-sampling),
#               and its time in the three runs (CUDA events around each launch)
#   overhead    bench/gpu/ddp_overhead.py --sizes small --modes
#               untraced,traced,pystacks,nostacks: the host-bound step's time with stacks
#               against --no-stacks (issue 47: under 5% more), and with Python frames only
#               (TRACER_STACKS_NATIVE=0: what the native walk costs of it)
# Every step runs under `timeout`; outputs go to OUT (results.tar.gz rewritten after each
# step; summary.txt has each step's status and seconds). The SVGs come back in OUT for a
# screenshot (bench/gpu/svg_screenshot.sh, on the development machine: headless Chromium).
set -u

if [ $# -lt 1 ]; then
  echo "usage: [NPROC=N] bash bench/gpu/run_stacks.sh OUT [walk|flame|pcsampling|overhead...]" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
RESULTS=$(cd "$1" && pwd)
OUT=$(mktemp -d /tmp/stacks-results.XXXXXX) || exit 2
shift
STEPS=${*:-walk flame pcsampling overhead}
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TRITON_CACHE_DIR=/tmp/stacks-triton-cache
DEMO=$PWD/tests/gpu/ddp_demo.py
TRACES=$(mktemp -d /tmp/stacks-traces.XXXXXX) || exit 2
NPROC=${NPROC:-2}
TORCHRUN=(torchrun --standalone --nproc_per_node="$NPROC")
TRACER=(tracer ${TRACER_BACKENDS:+-b "$TRACER_BACKENDS"})
: >"$OUT/steps.txt"

pack() {
  cp "$OUT/steps.txt" "$RESULTS/summary.txt"
  cp "$OUT"/*.svg "$RESULTS/" 2>/dev/null
  tar -czf "$RESULTS/results.tar.gz.part" -C "$OUT" . && mv -f "$RESULTS/results.tar.gz.part" "$RESULTS/results.tar.gz"
}

# step NAME LIMIT_S COMMAND...: runs COMMAND under timeout, output in OUT/NAME.txt
step() {
  local name=$1 limit=$2 t0 rc
  shift 2
  echo "=== [$SECONDS s] $name: $*" | tee "$OUT/$name.txt"
  t0=$SECONDS
  timeout -k 10 "$limit" "$@" >>"$OUT/$name.txt" 2>&1
  rc=$?
  tail -n 40 "$OUT/$name.txt"
  printf '%-14s rc=%-4s %5d s\n' "$name" "$rc" "$((SECONDS - t0))" | tee -a "$OUT/steps.txt"
  pack
}

for s in $STEPS; do
  case $s in
  walk)
    step walk 120 env TRACER_DEBUG=1 "${TRACER[@]}" --trace-output "$TRACES/walk" \
      --flame "$OUT/walk.folded" -o "$OUT/walk_report.txt" python3 tests/gpu/triton_vadd.py
    grep -h 'python:' "$OUT/walk.txt" | sort -u >>"$OUT/steps.txt" ;;
  flame)
    step flame 300 "${TORCHRUN[@]}" --no-python \
      "${TRACER[@]}" --trace-output "$TRACES/ddp" --flame "$OUT/ddp.folded" \
      -o "$OUT/ddp_report.txt" python3 "$DEMO" --steps 20 --manifest "$OUT/ddp"
    step flame_svg 180 tracer -r "$TRACES/ddp" --flame "$OUT/ddp.svg" -o "$OUT/ddp_replay.txt"
    step flame_json 120 tracer -r "$TRACES/ddp" -j -o "$OUT/ddp.json"
    step flame_text 240 bash -c "tracer -r '$TRACES/ddp/rank-0' -t | grep -B1 '^    at ' | head -400 >'$OUT/ddp_text.txt'"
    step flame_check 60 python3 bench/gpu/check_stacks.py --folded "$OUT/ddp.folded" \
      --tally "$OUT/ddp.json" --report "$OUT/ddp_report.txt" ;;
  pcsampling)
    step pc_plain 120 python3 tests/gpu/pc_sampling.py --manifest "$OUT/pc_plain.json"
    step pc_traced_plain 180 "${TRACER[@]}" --trace-output "$TRACES/pc_plain" \
      -o "$OUT/pc_plain_report.txt" \
      python3 tests/gpu/pc_sampling.py --manifest "$OUT/pc_traced_plain.json"
    step pc_traced 240 env TRACER_DEBUG=1 "${TRACER[@]}" --trace-output "$TRACES/pc" \
      --pc-sampling --flame "$OUT/pc.folded" -o "$OUT/pc_report.txt" \
      python3 tests/gpu/pc_sampling.py --manifest "$OUT/pc_traced.json"
    grep -h 'PC sampling\|pc-sampling' "$OUT/pc_traced.txt" "$OUT/pc_report.txt" | sort -u \
      >>"$OUT/steps.txt"
    step pc_svg 120 tracer -r "$TRACES/pc" --flame "$OUT/pc.svg" -o /dev/null
    step pc_json 120 tracer -r "$TRACES/pc" -j -o "$OUT/pc.json"
    step pc_check 60 python3 bench/gpu/check_stacks.py --pc-sampling --folded "$OUT/pc.folded" \
      --tally "$OUT/pc.json" --plain "$OUT/pc_plain.json" \
      --traced-plain "$OUT/pc_traced_plain.json" --traced "$OUT/pc_traced.json" ;;
  overhead)
    step overhead 560 python3 bench/gpu/ddp_overhead.py --out "$OUT" --sizes small --nproc "$NPROC" \
      --modes untraced,traced,pystacks,nostacks --rounds 7 --budget 520 ;;
  *) echo "run_stacks.sh: no step $s" >&2 ;;
  esac
done
pack
rm -rf "$TRACES" "$OUT"
