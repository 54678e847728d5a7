set -u
cd .devdeps && . ./setup.sh && cd ..
unset LTTNG_HOME
export TRACER_UST_FORK_LIBRARY=/tmp/lt/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so.1 \
  LD_LIBRARY_PATH=$PWD/build-dev/lib:$LD_LIBRARY_PATH PATH=$PWD/build-dev/bin:/usr/local/cuda/bin:$PATH
probe=$PWD/build-dev/bench/cupti_cost
{
echo "== counted calls, timed one in 16: cupti_cost off (no CUPTI), untraced and traced (TRACER_CUDA_TIMING=none)"
for round in 1 2 3; do
  echo "untraced: $($probe off 50000)"
  echo "traced:   $(TRACER_CUDA_TIMING=none tracer -b cuda,cudart -o $OUT/probe_traced.txt -- $probe off 50000 2>/dev/null)"
done
grep -h 'Cost of' $OUT/probe_traced.txt
} > $OUT/counted_probe.txt 2>&1
cat $OUT/counted_probe.txt
python3 bench/gpu/torch_overhead.py --sizes small --small-steps 1000 --rounds 12 --budget 440 \
  --modes untraced,traced,minimal,nodevice,profiler-cuda,profiler --keep $OUT > $OUT/torch_overhead.txt 2>&1
tail -7 $OUT/torch_overhead.txt
