#!/bin/bash
# Issue 46's runs on a machine with two GPUs (bench/gpu/README.md), from the repository
# root, with `tracer`, LTTng, torchrun and a python3 that has PyTorch and NCCL on PATH:
#
#     bash bench/gpu/run_hta.sh OUT [NCCL_TESTS_DIR]
#
#   ddp       tests/gpu/ddp_hta.py (4 Linear layers of 4096, batch 1024, DDP over NCCL, 13
#             steps, torch.profiler over steps 3-12 exporting each rank's Kineto trace,
#             NVTX ranges Step.N) under `torchrun --no-python tracer`, with CUDA-event
#             device timing (TRACER_CUDA_TIMING=events: torch.profiler keeps CUPTI)
#   window    tracer -r JOB --steps 'Step.*' --skip-steps 3: the job's report over the
#             profiled steps, text (with "Device time per rank (HTA's definitions)") and
#             JSON (the kernels per GPU)
#   steps     tracer -r JOB/rank-0 --steps 'Step.*': rank 0's steps table, and the same
#             with the window (its verdict from the steps)
#   whole     tracer -r JOB: the whole run's report, for the before/after of the issue
#   nccl      with NCCL_TESTS_DIR (nccl-tests built there: ENVIRONMENT.md says how):
#             tracer all_reduce_perf -g 2 -b 8M -e 256M -f 2: the verdict
# Then, here or on any machine with HTA (ENVIRONMENT.md: Debian's /usr/bin/python3 with
# python3-pandas, -plotly, -networkx, -pydot and HTA's folder on PYTHONPATH):
#
#     python3 bench/gpu/hta_compare.py --kineto OUT/kineto --report OUT/window_report.txt \
#         --json OUT/window.json
#
# compares compute, non-compute and idle (within 2 points), overlap (within 5) and the
# kernels per rank (equal) with HTA's get_temporal_breakdown and get_comm_comp_overlap.
# OUT gets every step's output, the reports, the Kineto traces and summary.txt (each
# step's exit status and seconds). TRACER_BACKENDS, when set, is given as -b; NPROC (default
# 2) is the ranks torchrun starts (1 on a machine with one GPU: no communication then).
set -u

if [ $# -lt 1 ]; then
  echo "usage: bash bench/gpu/run_hta.sh OUT [NCCL_TESTS_DIR]" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
OUT=$(cd "$1" && pwd)
NCCL_TESTS=${2:-}
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
SCRIPT=$PWD/tests/gpu/ddp_hta.py
TRACES=$(mktemp -d /tmp/hta-traces.XXXXXX) || exit 2
TRACER=(tracer ${TRACER_BACKENDS:+-b "$TRACER_BACKENDS"})
: >"$OUT/summary.txt"

# step NAME LIMIT_S COMMAND...: runs COMMAND under timeout, output in OUT/NAME.txt
step() {
  local name=$1 limit=$2 t0 rc
  shift 2
  echo "=== [$SECONDS s] $name: $*" | tee "$OUT/$name.txt"
  t0=$SECONDS
  timeout -k 10 "$limit" "$@" >>"$OUT/$name.txt" 2>&1
  rc=$?
  tail -n 40 "$OUT/$name.txt"
  printf '%-14s rc=%-4s %5d s\n' "$name" "$rc" "$((SECONDS - t0))" | tee -a "$OUT/summary.txt"
}

export TRACER_CUDA_TIMING=events
step ddp 300 torchrun --standalone --nproc_per_node="${NPROC:-2}" --no-python \
  "${TRACER[@]}" --trace-output "$TRACES/job" -o "$OUT/job_report.txt" \
  python3 "$SCRIPT" --kineto "$OUT/kineto"
unset TRACER_CUDA_TIMING
step window 120 tracer -r "$TRACES/job" --steps 'Step.*' --skip-steps 3 -o "$OUT/window_report.txt"
step window_json 120 tracer -r "$TRACES/job" --steps 'Step.*' --skip-steps 3 -j -o "$OUT/window.json"
step steps 120 tracer -r "$TRACES/job/rank-0" --steps 'Step.*' -o "$OUT/rank0_steps.txt"
step steps_window 120 tracer -r "$TRACES/job/rank-0" --steps 'Step.*' --skip-steps 3 \
  -o "$OUT/rank0_window.txt"
step whole 120 tracer -r "$TRACES/job" -o "$OUT/whole_report.txt"
if [ -n "$NCCL_TESTS" ]; then
  step nccl 300 "${TRACER[@]}" --trace-output "$TRACES/nccl" -o "$OUT/nccl_report.txt" \
    "$NCCL_TESTS/build/all_reduce_perf" -g 2 -b 8M -e 256M -f 2
  step nccl_steps 120 tracer -r "$TRACES/nccl" --steps -o "$OUT/nccl_steps.txt"
  grep -h '^Where the\|^Verdict' "$OUT/nccl_report.txt" "$OUT/nccl_steps.txt" | tee -a "$OUT/summary.txt"
fi
grep -h '^Window\|^Where the\|^Verdict' "$OUT/window_report.txt" | tee -a "$OUT/summary.txt"
ls -l "$OUT/kineto" >>"$OUT/summary.txt" 2>&1
rm -rf "$TRACES"
