#!/bin/bash
# Where the tracer's cost per launch goes on an NVIDIA GPU (issue 48), in one command from
# the repository root, with `tracer`, LTTng (.devdeps) and nvcc on PATH:
#
#     bash bench/gpu/launch_breakdown.sh OUT [ROUNDS]
#
# 1. cupti_cost.cu without the tracer: host ns per empty-kernel launch with no CUPTI, with
#    CUPTI's records as the tracer sets them up, with the launch APIs' records, and with an
#    external id pushed and popped around each launch (the tie's whole CUPTI cost).
# 2. launch_cost.py: the same launches under the tracer, per timing path and mode.
# 3. nccl-tests (NCCL_TESTS: its source folder; built here against PyTorch's NCCL)
#    all_reduce_perf on the GPUs there are (-g N), 1 and 4 MiB, untraced and traced with
#    every backend, then with each backend alone, rounds interleaved: nccl-tests' own time
#    per iteration, and the traced run's tally (which calls it makes per iteration).
# Everything goes to OUT (breakdown.txt: each step's output; tally_*.txt).
set -u
OUT=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
ROUNDS=${2:-3}
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
LOG=$OUT/breakdown.txt
: >"$LOG"
say() { echo "$*" | tee -a "$LOG"; }
BIN=/tmp/lb-bin
mkdir -p "$BIN"
GPUS=$(nvidia-smi -L 2>/dev/null | wc -l)
say "gpus=$GPUS $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
ARCH="-gencode=arch=compute_90,code=sm_90"

nvcc -O2 -std=c++17 $ARCH -o $BIN/cupti_cost bench/gpu/cupti_cost.cu -lcupti -lcuda \
  -L/usr/local/cuda/lib64 >>"$LOG" 2>&1 || say "cupti_cost: build failed"
nvcc -O2 -std=c++17 -cudart shared $ARCH -I tests/apps -o $BIN/cuda_timing_app \
  tests/gpu/cuda_timing_app.cu >>"$LOG" 2>&1 || say "cuda_timing_app: build failed"

say "== 1. CUPTI alone (cupti_cost, 51200 launches a round, $ROUNDS rounds interleaved)"
for r in $(seq "$ROUNDS"); do
  for c in off tracer launchapi correlate; do
    timeout 60 $BIN/cupti_cost $c 51200 2>&1 | tee -a "$LOG"
  done
done

say "== 2. under the tracer (launch_cost.py)"
timeout 240 python3 bench/gpu/launch_cost.py --app $BIN/cuda_timing_app --launches 20000 \
  --rounds "$ROUNDS" --modes untraced,none,cupti,none-minimal,cupti-minimal --keep "$OUT" \
  2>&1 | tee -a "$LOG"

say "== 3. nccl-tests"
NCCL_HOME=$(python3 -c "import nvidia.nccl, os; print(nvidia.nccl.__path__[0])" 2>/dev/null)
if [ -z "$NCCL_HOME" ] || [ ! -d "${NCCL_TESTS:-.devdeps/nccl-tests}" ]; then
  say "nccl-tests: no NCCL or no source; skipped"
  exit 0
fi
[ -e "$NCCL_HOME/lib/libnccl.so" ] || ln -sf libnccl.so.2 "$NCCL_HOME/lib/libnccl.so"
NT=/tmp/lb-nccl-tests
rm -rf $NT && cp -r "${NCCL_TESTS:-.devdeps/nccl-tests}" $NT
(cd $NT && make -j16 MPI=0 NCCL_HOME="$NCCL_HOME" CUDA_HOME=/usr/local/cuda \
  NVCC_GENCODE="$ARCH" src.build) >"$OUT/nccl_build.txt" 2>&1 || {
  say "nccl-tests: build failed (nccl_build.txt)"
  exit 0
}
export LD_LIBRARY_PATH=$NCCL_HOME/lib:$LD_LIBRARY_PATH
AR=$NT/build/all_reduce_perf
G=$GPUS; [ "$G" -gt 4 ] && G=4
ARGS="-b 1M -e 4M -f 4 -g $G -n 200 -w 20"
# nccl-tests' rows: size count type redop root time algbw busbw #wrong ... (out-of-place first)
rows() { awk '$1 ~ /^[0-9]+$/ && NF >= 12 { printf "%s:%sus/%sGB/s ", $1, $6, $8 }'; }
for r in $(seq "$ROUNDS"); do
  for mode in untraced all cuda cudart nccl; do
    case $mode in
    untraced) line=$(timeout 60 $AR $ARGS 2>&1 | rows) ;;
    all) line=$(timeout 90 tracer -q -o "$OUT/tally_all_$r.txt" -- $AR $ARGS 2>&1 | rows) ;;
    *) line=$(timeout 90 tracer -q -b "$mode" -o "$OUT/tally_${mode}_$r.txt" -- $AR $ARGS 2>&1 | rows) ;;
    esac
    say "round $r $mode: $line"
  done
done
tracer -q -j -o "$OUT/tally_all.json" -- $AR $ARGS >/dev/null 2>&1
say "done in $SECONDS s"
