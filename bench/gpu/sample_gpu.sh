#!/bin/bash
# `tracer --sample` on the NVIDIA machine (issue 35), from the repository root, with the
# tracer built on Debian in build-dev/ (bin/tracer, bin/tracer-sampler, lib/) and LTTng
# carried in .devdeps/ (bench/gpu-runs/README.md):
#
#     bash bench/gpu/sample_gpu.sh OUT
#
# Runs tests/gpu/torch_loop.py (the big, GPU-bound model) under `tracer --sample=100`
# with `nvidia-smi --query-gpu=... --loop-ms=100` beside it, and leaves in OUT the
# tracer's report (report.txt), its timeline (torch.pftrace), nvidia-smi's readings
# (smi.csv) and summary.txt: nvidia-smi's least, mean and most of the same counters over
# the same time, to set against the report's.
set -u
[ $# -eq 1 ] || { echo "usage: bash bench/gpu/sample_gpu.sh OUT" >&2; exit 2; }
mkdir -p "$1" && OUT=$(cd "$1" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
cd .devdeps && . ./setup.sh && cd .. || exit 2
unset LTTNG_HOME
export TRACER_UST_FORK_LIBRARY=/tmp/lt/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so.1 \
  LD_LIBRARY_PATH=$PWD/build-dev/lib:$LD_LIBRARY_PATH PATH=$PWD/build-dev/bin:/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
query=timestamp,power.draw,clocks.sm,clocks.mem,utilization.gpu,utilization.memory,memory.used,temperature.gpu
nvidia-smi --query-gpu=$query --format=csv,noheader,nounits --loop-ms=100 >"$OUT/smi.csv" 2>&1 &
smi=$!
sleep 1
timeout 300 tracer --sample=100 -b cuda -l "$OUT/torch.pftrace" -o "$OUT/report.txt" -- \
  python3 tests/gpu/torch_loop.py 300 --size big >"$OUT/run.txt" 2>&1
echo "tracer exit status $?" >>"$OUT/run.txt"
sleep 1
kill "$smi"
# nvidia-smi's figures over its readings (one more second before and after the run).
awk -F', *' '{ for (i = 2; i <= 8; i++) { v = $i + 0; s[i] += v; if (NR == 1 || v < lo[i]) lo[i] = v; if (v > hi[i]) hi[i] = v } n++ }
  END { split("- power(W) sm_clock(MHz) memory_clock(MHz) gpu_utilization(%) memory_utilization(%) memory_used(MiB) temperature(C)", name, " ")
        printf "nvidia-smi, %d readings every 100 ms:\n%-24s %10s %10s %10s\n", n, "counter", "least", "mean", "most"
        for (i = 2; i <= 8; i++) printf "%-24s %10.2f %10.2f %10.2f\n", name[i], lo[i], s[i] / n, hi[i] }' \
  "$OUT/smi.csv" >"$OUT/summary.txt"
{ echo; cat "$OUT/gpu.txt"; echo; sed -n '/^Device counters/,$p' "$OUT/report.txt"; tail -3 "$OUT/run.txt"; } >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
