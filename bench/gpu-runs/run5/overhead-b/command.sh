set -u
cd .devdeps && . ./setup.sh && cd ..
unset LTTNG_HOME
export TRACER_UST_FORK_LIBRARY=/tmp/lt/usr/lib/x86_64-linux-gnu/liblttng-ust-fork.so.1 \
  LD_LIBRARY_PATH=$PWD/build-dev/lib:$LD_LIBRARY_PATH PATH=$PWD/build-dev/bin:/usr/local/cuda/bin:$PATH
python3 bench/gpu/torch_overhead.py --sizes small --small-steps 1000 --rounds 12 --budget 500 \
  --modes untraced,traced,minimal,nodevice,profiler-cuda,profiler --keep $OUT > $OUT/torch_overhead.txt 2>&1
tail -7 $OUT/torch_overhead.txt
