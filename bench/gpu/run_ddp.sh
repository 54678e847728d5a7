#!/bin/bash
# Issue 32's runs on a machine with two GPUs, in one command (bench/gpu/README.md), from
# the repository root, with `tracer`, LTTng, torchrun and a python3 that has PyTorch,
# Triton and NCCL on PATH:
#
#     bash bench/gpu/run_ddp.sh OUT [STEP...]
#
# STEPs (default: all but overhead): plain, nopython, launcher, profiler, overhead.
#   plain     the demo untraced: its own figures (manifests), the reference
#   nopython  torchrun --no-python tracer -l python3 ddp_demo.py --busbw: the job report
#             (text and JSON) and one timeline
#   launcher  tracer -l torchrun ... ddp_demo.py: the same from the launcher's side
#   profiler  torch.profiler with CUDA activities for two steps inside a traced run
#   overhead  bench/gpu/ddp_overhead.py: step time untraced, traced, -m minimal and
#             under torch.profiler, rounds interleaved
# TRACER_BACKENDS, when set, is given to every tracer as -b (a build that carries only
# some interposers). Every step runs under `timeout`; its output, the reports, JSON
# tallies, manifests and the timelines under 12 MiB go into OUT/results.tar.gz, rewritten
# after each step (the device tool brings back few files); OUT/summary.txt has each
# step's exit status and seconds. check_ddp.py compares the reports with the script's own
# figures afterwards.
set -u

if [ $# -lt 1 ]; then
  echo "usage: bash bench/gpu/run_ddp.sh OUT [plain|nopython|launcher|profiler|overhead...]" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
RESULTS=$(cd "$1" && pwd)
OUT=$(mktemp -d /tmp/ddp-results.XXXXXX) || exit 2   # packed into RESULTS after each step
shift
STEPS=${*:-plain nopython launcher profiler}
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TRITON_CACHE_DIR=/tmp/ddp-triton-cache
DEMO=$PWD/tests/gpu/ddp_demo.py
TRACES=$(mktemp -d /tmp/ddp-traces.XXXXXX) || exit 2
TORCHRUN=(torchrun --standalone --nproc_per_node=2)
TRACER=(tracer ${TRACER_BACKENDS:+-b "$TRACER_BACKENDS"})
: >"$OUT/steps.txt"

pack() {
  cp "$OUT/steps.txt" "$RESULTS/summary.txt"
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
  tail -n 60 "$OUT/$name.txt"
  printf '%-14s rc=%-4s %5d s\n' "$name" "$rc" "$((SECONDS - t0))" | tee -a "$OUT/steps.txt"
  pack
}

keep_timeline() {  # keep_timeline FILE NAME: into OUT when small enough to bring back
  [ -f "$1" ] || return 0
  if [ "$(stat -c %s "$1")" -lt $((12 << 20)) ]; then cp "$1" "$OUT/$2"; fi
  ls -l "$1" >>"$OUT/steps.txt"
}

for s in $STEPS; do
  case $s in
  plain)
    step plain 180 "${TORCHRUN[@]}" "$DEMO" --steps 20 --busbw --manifest "$OUT/plain" ;;
  nopython)
    step nopython 240 "${TORCHRUN[@]}" --no-python \
      "${TRACER[@]}" --trace-output "$TRACES/nopython" -l "$TRACES/nopython.pftrace" \
      -o "$OUT/nopython_report.txt" python3 "$DEMO" --steps 20 --busbw --manifest "$OUT/nopython"
    step nopython_json 120 tracer -r "$TRACES/nopython" -j -o "$OUT/nopython.json"
    keep_timeline "$TRACES/nopython.pftrace" nopython.pftrace ;;
  launcher)
    step launcher 240 "${TRACER[@]}" --trace-output "$TRACES/launcher" -l "$TRACES/launcher.pftrace" \
      -o "$OUT/launcher_report.txt" "${TORCHRUN[@]}" "$DEMO" --steps 20 --manifest "$OUT/launcher"
    step launcher_json 120 tracer -r "$TRACES/launcher" -j -o "$OUT/launcher.json"
    keep_timeline "$TRACES/launcher.pftrace" launcher.pftrace ;;
  profiler)
    step profiler 240 "${TORCHRUN[@]}" --no-python \
      "${TRACER[@]}" --trace-output "$TRACES/profiler" -o "$OUT/profiler_report.txt" \
      python3 "$DEMO" --steps 10 --profile-steps --manifest "$OUT/profiler"
    step profiler_json 120 tracer -r "$TRACES/profiler" -j -o "$OUT/profiler.json" ;;
  overhead)
    step overhead 560 python3 bench/gpu/ddp_overhead.py --out "$OUT" ;;
  *) echo "run_ddp.sh: no step $s" >&2 ;;
  esac
done
pack
rm -rf "$TRACES" "$OUT"
