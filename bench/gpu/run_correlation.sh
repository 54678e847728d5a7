#!/bin/bash
# Issue 31/32's follow-up run on the two-GPU machine (bench/gpu-runs/run7): does real
# CUPTI join each launch's external id to its kernel (cupti_correlation.cu), then the DDP
# demo's steps (run_ddp.sh) with the tie in place, then overhead rounds in what is left.
#     bash bench/gpu/run_correlation.sh OUT [OVERHEAD_BUDGET_S]
# Same environment as run_ddp.sh (bench/gpu/README.md).
set -u
OUT=$1 BUDGET=${2:-300}
mkdir -p "$OUT"
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
CUPTI_DIR=$(find /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 \
  /usr/local/cuda/targets/x86_64-linux/lib -name 'libcupti.so.13*' 2>/dev/null | head -1)
CUPTI_DIR=${CUPTI_DIR:+$(dirname "$CUPTI_DIR")}
{
  echo "cupti folder: ${CUPTI_DIR:-none}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  timeout 120 nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -o /tmp/cupti_correlation \
    bench/gpu/cupti_correlation.cu ${CUPTI_DIR:+-L"$CUPTI_DIR"} -lcupti -lcuda &&
    for mode in none kernel driver launch_api none kernel driver launch_api; do
      LD_LIBRARY_PATH=${CUPTI_DIR:+$CUPTI_DIR:}${LD_LIBRARY_PATH:-} timeout 60 /tmp/cupti_correlation 20000 $mode
      echo "cupti_correlation $mode rc=$?"
    done
} >"$OUT/cupti_correlation.txt" 2>&1
cat "$OUT/cupti_correlation.txt"
[ -n "${SKIP_DDP:-}" ] || bash bench/gpu/run_ddp.sh "$OUT/ddp" plain nopython launcher profiler
mkdir -p /tmp/ov
timeout -k 10 $((BUDGET + 30)) python3 bench/gpu/ddp_overhead.py --out /tmp/ov --rounds 8 \
  --budget "$BUDGET" >"$OUT/ddp_overhead.log" 2>&1
cp /tmp/ov/ddp_overhead.txt "$OUT/" 2>/dev/null
tail -30 "$OUT/ddp_overhead.txt" 2>/dev/null
