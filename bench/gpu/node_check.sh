#!/bin/bash
# The GPU-node recipe of docs/cuda.md, checked on the NVIDIA machine (issue 50), from the
# repository root, with the tracer built on Debian in build/ and LTTng carried in
# .lttng-carry/ (`scripts/lttng-carry.sh fetch .lttng-carry` on Debian):
#
#     bash bench/gpu/node_check.sh OUT
#
# Needs python3 with torch (to hold a known amount of device memory) and nvidia-smi.
# Leaves in OUT, and prints, summary.txt:
#   1. the carried tracer starts: `ldd build/bin/tracer` after `. .lttng-carry/env.sh`
#      lists no library "not found" (libotf2 is not needed to start), nor does `ldd` of
#      the runtime the app loads (build/lib/libtracer_runtime.so; it loads libunwind
#      itself, from the carry where the node has none);
#   2. without libotf2 (the carried copy left out of the library path): a traced CUDA
#      program runs and reports (exit 0); `--otf2` stops before the app runs, exit 4,
#      with one line naming the Debian package;
#   3. with the carried libotf2: `--otf2` writes an archive (exit 0);
#   4. NVML's memory used: at idle, the first nvmlDeviceGetMemoryInfo, the versioned
#      _v2 (used and reserved) and nvidia-smi, side by side (v2 and nvidia-smi should
#      agree; v1 is larger by the reserved memory); then `tracer --sample=100` around a
#      program that holds 4 GiB on GPU 0 for 2 s, with nvidia-smi --loop-ms=100 beside
#      it: the report's least and most memory_used of nvml 0 against nvidia-smi's least
#      and most for GPU 0 (they should agree within a reading's change, a few MiB).
# Each line of summary.txt starts with "ok" or "CHECK" (what to look at).
set -u
[ $# -eq 1 ] || { echo "usage: bash bench/gpu/node_check.sh OUT" >&2; exit 2; }
mkdir -p "$1" && OUT=$(cd "$1" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
[ -x build/bin/tracer ] || { echo "no build/bin/tracer: build on Debian, copy build/ here" >&2; exit 2; }
[ -f .lttng-carry/env.sh ] || { echo "no .lttng-carry/: scripts/lttng-carry.sh fetch .lttng-carry on Debian" >&2; exit 2; }
. .lttng-carry/env.sh
tracer=$PWD/build/bin/tracer
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
say "GPUs: $(tr '\n' ';' <"$OUT/gpu.txt")"

# 1. The carried tracer's libraries.
ldd "$tracer" >"$OUT/ldd.txt" 2>&1
missing=$(grep -c "not found" "$OUT/ldd.txt")
[ "$missing" -eq 0 ] && say "ok    1. ldd build/bin/tracer: every library found" ||
  say "CHECK 1. ldd build/bin/tracer: $missing not found: $(grep "not found" "$OUT/ldd.txt" | tr '\n' ' ')"
ldd build/lib/libtracer_runtime.so >"$OUT/ldd_runtime.txt" 2>&1
missing=$(grep -c "not found" "$OUT/ldd_runtime.txt")
[ "$missing" -eq 0 ] && say "ok    1. ldd build/lib/libtracer_runtime.so: every library found" ||
  say "CHECK 1. ldd build/lib/libtracer_runtime.so: $missing not found: $(grep "not found" "$OUT/ldd_runtime.txt" | tr '\n' ' ')"

# A CUDA program through the runtime (PyTorch), small and known: 64 MiB, one add.
cat >"$OUT/hold.py" <<'PY'
import sys, time, torch
mib, seconds = int(sys.argv[1]), float(sys.argv[2])
x = torch.empty(mib << 20, dtype=torch.uint8, device="cuda:0")
x.fill_(1)
torch.cuda.synchronize()
time.sleep(seconds)
print("held", mib, "MiB for", seconds, "s on", torch.cuda.get_device_name(0))
PY

# 2. Without libotf2: a library path without the carried copy (the node has none).
nootf2=$OUT/fallback-without-otf2
mkdir -p "$nootf2"
# shellcheck disable=SC2154 # tracer_lt: the carried prefix, set by env.sh
for l in "$tracer_lt"/fallback/*; do
  case $(basename "$l") in libopen-trace-format2*) ;; *) ln -sf "$(readlink -f "$l")" "$nootf2/$(basename "$l")" ;; esac
done
plain_path=$(printf '%s' "$LD_LIBRARY_PATH" | sed "s#[^:]*/fallback#$nootf2#g")
if ldconfig -p | grep -q libopen-trace-format2; then
  say "CHECK 2. this node has libotf2 of its own: the run without it is not one"
fi
LD_LIBRARY_PATH=$plain_path "$tracer" -b cuda,cudart --trace-output "$OUT/no_otf2.trace" \
  -o "$OUT/no_otf2_report.txt" -- python3 "$OUT/hold.py" 64 0.2 >"$OUT/no_otf2.out" 2>"$OUT/no_otf2.err"
rc=$?
lines=$(grep -c "" "$OUT/no_otf2_report.txt" 2>/dev/null)
[ "$rc" -eq 0 ] && say "ok    2a. traced without libotf2: exit 0, report of $lines lines" ||
  say "CHECK 2a. traced without libotf2: exit $rc: $(tail -2 "$OUT/no_otf2.err" | tr '\n' ' ')"
LD_LIBRARY_PATH=$plain_path "$tracer" -b cuda,cudart --trace-output "$OUT/no_otf2_b.trace" \
  --otf2 "$OUT/no_otf2.otf2" -- python3 "$OUT/hold.py" 64 0.2 >"$OUT/no_otf2_b.out" 2>"$OUT/no_otf2_b.err"
rc=$?
if [ "$rc" -eq 4 ] && grep -q "install the Debian package" "$OUT/no_otf2_b.err" &&
  [ ! -s "$OUT/no_otf2_b.out" ] && [ ! -e "$OUT/no_otf2_b.trace" ]; then
  say "ok    2b. --otf2 without libotf2: exit 4 before the app ran: $(grep "Cannot write the OTF2" "$OUT/no_otf2_b.err")"
else
  say "CHECK 2b. --otf2 without libotf2: exit $rc: $(tr '\n' ' ' <"$OUT/no_otf2_b.err")"
fi

# 3. With the carried libotf2.
"$tracer" -b cuda,cudart --trace-output "$OUT/otf2.trace" --otf2 "$OUT/run.otf2" \
  -o "$OUT/otf2_report.txt" -- python3 "$OUT/hold.py" 64 0.2 >"$OUT/otf2.out" 2>"$OUT/otf2.err"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$OUT/run.otf2/traces.otf2" ] &&
  say "ok    3. --otf2 with the carried libotf2: $(grep "OTF2 archive" "$OUT/otf2.err")" ||
  say "CHECK 3. --otf2 with the carried libotf2: exit $rc: $(tail -2 "$OUT/otf2.err" | tr '\n' ' ')"

# 4. NVML's memory used at idle, both ways, and nvidia-smi's.
cat >"$OUT/nvml_memory.py" <<'PY'
import ctypes
nvml = ctypes.CDLL("libnvidia-ml.so.1")
class V1(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]
class V2(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("total", ctypes.c_ulonglong),
                ("reserved", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]
assert nvml.nvmlInit_v2() == 0
count = ctypes.c_uint()
nvml.nvmlDeviceGetCount_v2(ctypes.byref(count))
for i in range(count.value):
    h = ctypes.c_void_p()
    nvml.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h))
    v1, v2 = V1(), V2()
    v2.version = ctypes.sizeof(V2) | 2 << 24
    r1 = nvml.nvmlDeviceGetMemoryInfo(h, ctypes.byref(v1))
    r2 = nvml.nvmlDeviceGetMemoryInfo_v2(h, ctypes.byref(v2))
    print("%d %d %d %d %d %d" % (i, r1, v1.used >> 20, r2, v2.used >> 20, v2.reserved >> 20))
nvml.nvmlShutdown()
PY
python3 "$OUT/nvml_memory.py" >"$OUT/nvml_idle.txt" 2>&1
nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits >"$OUT/smi_idle.txt" 2>&1
while read -r i r1 v1 r2 v2 reserved; do
  smi=$(awk -F', *' -v i="$i" '$1 == i { print $2 }' "$OUT/smi_idle.txt")
  line="GPU $i idle: nvidia-smi $smi MiB; nvmlDeviceGetMemoryInfo $v1 MiB (status $r1); _v2 $v2 MiB, reserved $reserved MiB (status $r2)"
  [ "$r2" -eq 0 ] && [ "$v2" -eq "$smi" ] && say "ok    4a. $line" || say "CHECK 4a. $line"
done <"$OUT/nvml_idle.txt"

# 4b. --sample around 4 GiB held on GPU 0, nvidia-smi beside it.
nvidia-smi -i 0 --query-gpu=memory.used --format=csv,noheader,nounits --loop-ms=100 >"$OUT/smi.csv" 2>&1 &
smi=$!
sleep 0.5
"$tracer" --sample=100 -b cuda --trace-output "$OUT/sample.trace" -o "$OUT/sample_report.txt" -- \
  python3 "$OUT/hold.py" 4096 2 >"$OUT/sample.out" 2>"$OUT/sample.err"
rc=$?
sleep 0.5
kill "$smi" 2>/dev/null
"$tracer" -r "$OUT/sample.trace" -j -o "$OUT/sample.json" 2>>"$OUT/sample.err"
got=$(python3 - "$OUT/sample.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for d in report.get("samples", {}).get("devices", []):
    if d["backend"] == "nvml" and d["index"] == 0:
        for c in d["counters"]:
            if c["name"] == "memory_used":
                print(int(c["least"]) >> 20, int(c["most"]) >> 20)
PY
)
want=$(awk 'NR == 1 || $1 < lo { lo = $1 } $1 > hi { hi = $1 } END { print lo + 0, hi + 0 }' "$OUT/smi.csv")
line="tracer --sample (exit $rc) memory_used of nvml 0, least and most: ${got:-none} MiB; nvidia-smi: $want MiB"
if [ -n "$got" ] && awk -v g="$got" -v w="$want" 'BEGIN { split(g, a, " "); split(w, b, " ")
    d1 = a[1] - b[1]; d2 = a[2] - b[2]; exit !(d1 < 64 && d1 > -64 && d2 < 64 && d2 > -64) }'; then
  say "ok    4b. $line"
else
  say "CHECK 4b. $line"
fi
sed -n '/^Device counters/,$p' "$OUT/sample_report.txt" >>"$summary"
echo "summary: $summary"
