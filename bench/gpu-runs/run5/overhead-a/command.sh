set -u
cd .devdeps && . ./setup.sh && cd ..
unset LTTNG_HOME
export TRACER_UST_FORK_LIBRARY=/tmp/lt/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so.1
base_ld=$LD_LIBRARY_PATH
# with BUILD: the tracer and interposers of that build (build-dev: this change; build-old: before)
with() { b=$1; shift; LD_LIBRARY_PATH=$PWD/$b/lib:$base_ld PATH=$PWD/$b/bin:/usr/local/cuda/bin:$PATH "$@"; }
tar -xJf build-old/build-old.tar.xz -C /tmp && rm -rf build-old && ln -s /tmp/build-old build-old
probe=$PWD/build-dev/bench/cupti_cost
{
echo "== counted calls: cupti_cost off (no CUPTI), untraced and traced (TRACER_CUDA_TIMING=none)"
for round in 1 2 3; do
  echo "untraced: $($probe off 50000)"
  for b in build-old build-dev; do
    echo "$b: $(TRACER_CUDA_TIMING=none with $b tracer -b cuda,cudart -o $OUT/probe_$b.txt -- $probe off 50000 2>/dev/null)"
  done
done
grep -h 'Cost of' $OUT/probe_*.txt
} > $OUT/counted_probe.txt 2>&1
cat $OUT/counted_probe.txt
export LD_LIBRARY_PATH=$PWD/build-dev/lib:$base_ld PATH=$PWD/build-dev/bin:/usr/local/cuda/bin:$PATH
python3 bench/gpu/torch_overhead.py --sizes small --small-steps 1000 --rounds 12 --budget 420 \
  --modes untraced,traced,nodevice,profiler-cuda,profiler --keep $OUT > $OUT/torch_overhead.txt 2>&1
tail -7 $OUT/torch_overhead.txt
