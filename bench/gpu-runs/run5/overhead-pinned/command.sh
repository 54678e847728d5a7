set -u
cd .devdeps && . ./setup.sh && cd ..
unset LTTNG_HOME
export TRACER_UST_FORK_LIBRARY=/tmp/lt/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so.1 \
  LD_LIBRARY_PATH=$PWD/build-dev/lib:$LD_LIBRARY_PATH PATH=$PWD/build-dev/bin:/usr/local/cuda/bin:$PATH
{
echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo
cat /sys/devices/system/clocksource/clocksource0/current_clocksource
cat /sys/devices/system/clocksource/clocksource0/available_clocksource
grep -m1 -o -w 'constant_tsc\|nonstop_tsc' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -x 'constant_tsc\|nonstop_tsc\|tsc_known_freq\|rdtscp' | tr '\n' ' '; echo
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tracer --check 2>&1 | tail -15
} > $OUT/machine.txt 2>&1
echo "== cupti_cost" > $OUT/cupti_cost.txt
for round in 1 2 3; do
  for c in off tracer kernels pinned serial hes; do
    timeout 60 build-dev/bench/cupti_cost $c 100000 >> $OUT/cupti_cost.txt 2>&1 || echo "config=$c status=$?" >> $OUT/cupti_cost.txt
  done
done
cat $OUT/cupti_cost.txt
python3 bench/gpu/torch_overhead.py --sizes small --small-steps 1000 --rounds 7 --budget 360 \
  --modes untraced,traced,nodevice,profiler-cuda,profiler --cpus 4-7 --keep $OUT > $OUT/torch_overhead.txt 2>&1
tail -8 $OUT/torch_overhead.txt
