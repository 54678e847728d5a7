#!/bin/bash
# The GPU runs of issue 20 in one command (bench/gpu/README.md), from the repository root,
# with `tracer`, LTTng, nvcc and a python3 that has PyTorch and Triton on PATH:
#
#     bash bench/gpu/run_gpu.sh OUT
#
# Each step runs under `timeout`; its output is shown and kept in a work folder; a step
# that fails is recorded and the next one runs (a step whose input is missing says so
# and is skipped). Past GPU_RUN_BUDGET seconds (default 480) the steps left are skipped.
# OUT gets few files, since the device tool brings back at most 8:
#   summary.txt      exit status and seconds of each step, then the results' tables
#   results.tar.gz   every step's output, the tallies (JSON and text) and the apps' figures
#   torch_tally.txt  the traced PyTorch loop's tally (cuda, cudart, nvtx)
#   torch.pftrace    its timeline, when under 15 MiB
# summary.txt and results.tar.gz are rewritten after every step, so a run cut short
# still leaves them.
set -u

if [ $# -ne 1 ]; then
  echo "usage: bash bench/gpu/run_gpu.sh OUT" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
OUT=$(cd "$1" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
BUDGET=${GPU_RUN_BUDGET:-480}
NVCC=${NVCC:-nvcc}
W=$(mktemp -d /tmp/gpu-run.XXXXXX) || exit 2   # the work folder: every step's files
T=$W/traces                                     # trace folders, each removed after use
mkdir -p "$T"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
BIN=${GPU_RUN_BIN:-/tmp}                        # where the CUDA programs are built
TIMING_APP=$BIN/cuda_timing_app
GPU_APP=$BIN/cuda_gpu_app
CUPTI_COST=$BIN/cupti_cost
: >"$W/steps.txt"
: >"$W/results.txt"
step_number=0
last_rc=0

pack() {
  cat "$W/steps.txt" "$W/results.txt" >"$OUT/summary.txt"
  tar -czf "$OUT/results.tar.gz.part" -C "$W" --exclude=./traces --exclude=./triton-cache \
    --exclude='*.pftrace' . && mv -f "$OUT/results.tar.gz.part" "$OUT/results.tar.gz"
}

record() {  # record NAME STATUS SECONDS [NOTE]
  printf '%-22s %-10s %7s s  at %4d s  %s\n' "$1" "$2" "$3" "$SECONDS" "${4:-}" >>"$W/steps.txt"
}

# step NAME LIMIT_S COMMAND...: runs COMMAND under timeout, output shown and kept in
# $W/NN_NAME.txt; sets last_rc (99: skipped for the budget).
step() {
  local name=$1 limit=$2
  shift 2
  step_number=$((step_number + 1))
  local log
  log=$W/$(printf '%02d' "$step_number")_$name.txt
  if ((SECONDS >= BUDGET)); then
    record "$name" skipped - "past the budget of $BUDGET s"
    echo "=== $name: skipped, past the budget of $BUDGET s"
    last_rc=99
    LAST_LOG=/dev/null
    pack
    return "$last_rc"
  fi
  echo "=== [$SECONDS s] $name: $*"
  local t0 t1
  t0=$(date +%s.%N)
  timeout -k 10 "$limit" "$@" 2>&1 | tee "$log"
  last_rc=${PIPESTATUS[0]}
  t1=$(date +%s.%N)
  local seconds
  seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  local note=""
  [ "$last_rc" -eq 124 ] || [ "$last_rc" -eq 137 ] && note="timed out after $limit s"
  record "$name" "rc=$last_rc" "$seconds" "$note"
  echo "=== $name: rc=$last_rc in $seconds s (total $SECONDS s)"
  LAST_LOG=$log
  pack
  return "$last_rc"
}

skip() {  # skip NAME WHY
  record "$1" skipped - "$2"
  LAST_LOG=/dev/null
  echo "=== $1: skipped: $2"
  pack
}

# result TITLE [FILTER...]: the last step's output (through FILTER, a command) into the
# results part of summary.txt.
result() {
  local title=$1
  shift
  {
    echo
    echo "## $title"
    if [ "$LAST_LOG" = /dev/null ]; then
      echo "(not run)"
    elif [ $# -gt 0 ]; then
      "$@" <"$LAST_LOG"
    else
      cat "$LAST_LOG"
    fi
  } >>"$W/results.txt"
  pack
}

rm -f "$TIMING_APP" "$GPU_APP" "$CUPTI_COST"
LAST_LOG=/dev/null
echo "run_gpu.sh: work folder $W, results in $OUT, budget $BUDGET s"
{
  echo "# GPU runs of issue 20: bench/gpu/run_gpu.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname)"
  echo "# step                  status     seconds   at       note"
} >>"$W/steps.txt"

# ---- the machine and the tools
step versions 60 bash -c '
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  echo "tracer: $(command -v tracer) ($(tracer --version))"
  echo "nvcc: $('"$NVCC"' --version | tail -1)"
  python3 -c "import sys, torch, triton
print(\"python\", sys.version.split()[0], sys.executable)
print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda)
print(\"triton\", triton.__version__)"
  echo "kernel: $(uname -r)"
  echo "TRACER_UST_FORK_LIBRARY=${TRACER_UST_FORK_LIBRARY:-unset}"
  echo "TRACER_CUDA_TIMING=${TRACER_CUDA_TIMING:-unset}"'
result "machine and tools"
step tracer_check 60 tracer --check

# CUPTI for TRACER_CUDA_TIMING=cupti: the hooks dlopen libcupti.so.13; where the loader
# does not find it, add the folder that has it, for the cupti runs only (PyTorch brings
# its own CUPTI for torch.profiler).
CUPTI_DIR=""
if ! python3 -c 'import ctypes; ctypes.CDLL("libcupti.so.13")' 2>/dev/null; then
  found=$(find /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 \
    /usr/local/cuda/targets/x86_64-linux/lib -name 'libcupti.so.13*' 2>/dev/null | head -1)
  if [ -z "$found" ]; then  # the CUPTI of a pip package (nvidia-cuda-cupti)
    found=$(python3 -c 'import glob, site
for root in site.getsitepackages():
    for path in sorted(glob.glob(root + "/nvidia/**/libcupti.so.13*", recursive=True)):
        print(path)' 2>/dev/null | head -1)
  fi
  [ -n "$found" ] && CUPTI_DIR=$(dirname "$found")
  echo "libcupti.so.13: not found by the loader; using ${CUPTI_DIR:-nothing (cupti runs will fall back to events)}"
else
  echo "libcupti.so.13: found by the loader"
fi
echo "cupti folder added for the cupti runs: ${CUPTI_DIR:-none}" >>"$W/results.txt"
CUPTI_LD=${CUPTI_DIR:+$CUPTI_DIR:}${LD_LIBRARY_PATH:-}

# ---- the CUDA programs
NVCC_FLAGS=(-O2 -std=c++17 -cudart shared -gencode arch=compute_90,code=sm_90 -I tests/apps)
step build_timing_app 180 "$NVCC" "${NVCC_FLAGS[@]}" -o "$TIMING_APP" tests/gpu/cuda_timing_app.cu
step build_gpu_app 180 "$NVCC" "${NVCC_FLAGS[@]}" -o "$GPU_APP" tests/gpu/cuda_gpu_app.cu
step build_cupti_cost 180 "$NVCC" -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 \
  -o "$CUPTI_COST" bench/gpu/cupti_cost.cu ${CUPTI_DIR:+-L"$CUPTI_DIR"} -lcupti -lcuda

# ---- what CUPTI costs by itself, set up one way or another, without the tracer
if [ -x "$CUPTI_COST" ]; then
  step cupti_cost 150 env LD_LIBRARY_PATH="$CUPTI_LD" bash -c '
    for round in 1 2 3; do
      for config in off tracer kernels pinned hes; do "$0" "$config" 50000 || echo "config=$config rc=$?"; done
    done' "$CUPTI_COST"
  result "CUPTI by itself (bench/gpu/cupti_cost.cu, 50000 launches x 7 rounds a run)"
else
  skip cupti_cost "no $CUPTI_COST (its build failed)"
fi

# ---- device times against the app's own CUDA events: CUDA events, then CUPTI (the default)
if [ -x "$TIMING_APP" ]; then
  for timing in events cupti; do
    ld=${LD_LIBRARY_PATH:-}
    [ "$timing" = cupti ] && ld=$CUPTI_LD
    step "acc_$timing" 90 env TRACER_CUDA_TIMING=$timing LD_LIBRARY_PATH="$ld" \
      APP_TIMES="$W/acc_app_$timing.json" \
      tracer -b cuda,cudart -j -o "$W/acc_$timing.json" --trace-output "$T/acc_$timing" \
      -- "$TIMING_APP" accuracy
    rm -rf "$T/acc_$timing"
    step "compare_$timing" 30 python3 bench/gpu/compare_timing.py "$W/acc_app_$timing.json" \
      "$W/acc_$timing.json" --expect-timing "$timing"
    result "device time vs the app's cudaEvents: TRACER_CUDA_TIMING=$timing"
  done

  # ---- cost per launch: untraced, and traced with each timing path, interleaved
  step launch_cost 240 python3 bench/gpu/launch_cost.py --app "$TIMING_APP" --launches 20000 \
    --rounds 3 --keep "$W" ${CUPTI_DIR:+--cupti-dir "$CUPTI_DIR"} \
    --modes untraced,none,events,cupti,none-minimal,cupti-minimal
  result "cost per launch (cuda_timing_app launches 20000)" sed -n '/^== summary/,$p'
else
  skip accuracy_and_launches "no $TIMING_APP (its build failed)"
fi

# ---- the CUDA test program with known counts
if [ -x "$GPU_APP" ]; then
  step gpu_app_events 90 env TRACER_CUDA_TIMING=events APP_MANIFEST="$W/gpu_app_manifest.json" \
    tracer -b cuda,cudart -j -o "$W/gpu_app_events.json" --trace-output "$T/gpu_app" -- "$GPU_APP"
  step gpu_app_text 60 tracer -r "$T/gpu_app" -o "$W/gpu_app_events.txt"
  rm -rf "$T/gpu_app"
  step gpu_app_check 30 python3 bench/gpu/check_counts.py "$W/gpu_app_manifest.json" \
    "$W/gpu_app_events.json" --exact --transfers --calls cudart \
    --ignore-calls cudaStreamQuery,cudaSetDevice,cudaGetErrorName
  result "cuda_gpu_app counts (events timing)" grep -v -e '^  ' -e '^device rows'
  step gpu_app_cupti 90 env TRACER_CUDA_TIMING=cupti LD_LIBRARY_PATH="$CUPTI_LD" \
    APP_MANIFEST="$W/gpu_app_manifest_cupti.json" \
    tracer -b cuda,cudart -j -o "$W/gpu_app_cupti.json" --trace-output "$T/gpu_app_cupti" -- "$GPU_APP"
  rm -rf "$T/gpu_app_cupti"
  step gpu_app_cupti_check 30 python3 bench/gpu/check_counts.py "$W/gpu_app_manifest_cupti.json" \
    "$W/gpu_app_cupti.json" --exact
  result "cuda_gpu_app kernel counts (CUPTI timing)" grep -v -e '^  ' -e '^device rows'
else
  skip gpu_app "no $GPU_APP (its build failed)"
fi

# ---- Triton: two specializations named by the kernel's repr
step triton 240 env -u TRACER_CUDA_TIMING TRITON_CACHE_DIR="$W/triton-cache" \
  VADD_COUNTS="$W/triton_counts.json" \
  tracer -b cuda -j -o "$W/triton.json" --trace-output "$T/triton" -- python3 tests/gpu/triton_vadd.py
result "triton_vadd.py" grep -v '^tracer:'
step triton_text 90 tracer -r "$T/triton" -o "$W/triton_tally.txt"
rm -rf "$T/triton"
if [ -s "$W/triton_counts.json" ]; then
  step triton_check 30 python3 bench/gpu/check_counts.py "$W/triton_counts.json" "$W/triton.json"
  result "Triton names in the device table" grep -e 'vadd' -e '^check_counts'
else
  skip triton_check "triton_vadd.py wrote no counts"
fi

# ---- the PyTorch loop traced once: tallies and the timeline (before the overhead runs,
# which take whatever time is left)
step torch_tally 150 env -u TRACER_CUDA_TIMING tracer -b cuda,cudart,nvtx \
  -o "$W/torch_tally.txt" -l "$W/torch.pftrace" --trace-output "$T/torch" \
  -- python3 tests/gpu/torch_loop.py 100
rm -rf "$T/torch"
if [ -s "$W/torch_tally.txt" ]; then
  cp "$W/torch_tally.txt" "$OUT/torch_tally.txt"
  {
    echo
    echo "## PyTorch loop traced once (torch_tally.txt)"
    grep -h -e '^step_ms' -e '^tracer: timeline' "$LAST_LOG"
    grep -h -e '^BACKEND' -e '^Device' -e '^Cost of tracing' "$W/torch_tally.txt"
  } >>"$W/results.txt"
fi
if [ -f "$W/torch.pftrace" ]; then
  size=$(stat -c %s "$W/torch.pftrace")
  if ((size < 15 * 1024 * 1024)); then
    cp "$W/torch.pftrace" "$OUT/torch.pftrace"
    echo "timeline: torch.pftrace, $size bytes" >>"$W/results.txt"
  else
    echo "timeline: $size bytes, too large to bring back; left out" >>"$W/results.txt"
  fi
fi

# ---- overhead on the PyTorch loop: untraced, traced (with CUPTI's device times, and
# without: nodevice), torch.profiler (CPU and CUDA activities, and CUDA alone); small and
# big.
# Its own budget ends it before BUDGET; the timeout, 60 s later, only if a run hangs.
overhead_budget=$((BUDGET - 10 - SECONDS))
((overhead_budget > 270)) && overhead_budget=270
if ((overhead_budget >= 45)); then
  step torch_overhead $((overhead_budget + 60)) env -u TRACER_CUDA_TIMING \
    python3 bench/gpu/torch_overhead.py --rounds 5 --budget "$overhead_budget" --keep "$W" \
      --modes untraced,traced,nodevice,profiler-cuda,profiler
  result "PyTorch loop overhead" sed -n '/^== summary/,$p'
else
  skip torch_overhead "only $overhead_budget s of the budget left"
fi
pack
rm -rf "$T"

echo
echo "================ summary ($OUT/summary.txt; every file in results.tar.gz)"
cat "$OUT/summary.txt"
