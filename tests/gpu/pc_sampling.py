"""Two Triton kernels whose GPU stalls one can predict, for `tracer --pc-sampling`
(issue 47, bench/gpu/run_stacks.sh's pcsampling step, checked by bench/gpu/check_stacks.py):

  memory_bound   y = 2 * x over 256 Mi floats (1 GiB read, 1 GiB written): each warp
                 waits on its global loads, so its samples should mostly be stalled on
                 long_scoreboard (or lg_throttle, drain: other memory waits);
  compute_bound  8 independent chains of 2048 fused multiply-adds per element over
                 16 Mi floats read once: the FP32 pipe is the limit, so its samples
                 should mostly be math_pipe_throttle, wait (a dependent FMA's fixed
                 latency), selected or not_selected (issuing, or ready while another
                 warp issued).

    python3 pc_sampling.py [--repeats 20] [--manifest FILE]

Each kernel is launched once to compile, then --repeats times, each timed with CUDA
events; prints the median and writes FILE as {"seconds": {name: median s},
"launches": {name: count}} for the comparison of runs with and without --pc-sampling.
Exits 77 without PyTorch, Triton or a GPU, 1 when a result is wrong.
"""
import argparse
import json
import statistics
import sys

try:
    import torch
    import triton
    import triton.language as tl
except ImportError as error:
    print(f"pc_sampling.py: cannot import PyTorch and Triton: {error}")
    sys.exit(77)
if not torch.cuda.is_available():
    print("pc_sampling.py: no CUDA device for PyTorch")
    sys.exit(77)

MEMORY_N = 256 << 20
COMPUTE_N = 16 << 20
CHAIN = 2048
BLOCK = 1024


@triton.jit
def memory_bound(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    tl.store(y_ptr + offsets, 2.0 * tl.load(x_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def compute_bound(x_ptr, y_ptr, n, CHAIN_LENGTH: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    a0, a1, a2, a3 = x, x + 1.0, x + 2.0, x + 3.0
    a4, a5, a6, a7 = x + 4.0, x + 5.0, x + 6.0, x + 7.0
    for _ in range(CHAIN_LENGTH):
        a0 = a0 * 0.999 + 0.001
        a1 = a1 * 0.999 + 0.001
        a2 = a2 * 0.999 + 0.001
        a3 = a3 * 0.999 + 0.001
        a4 = a4 * 0.999 + 0.001
        a5 = a5 * 0.999 + 0.001
        a6 = a6 * 0.999 + 0.001
        a7 = a7 * 0.999 + 0.001
    tl.store(y_ptr + offsets, a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7, mask=mask)


def launch_memory(x, y):
    memory_bound[(triton.cdiv(MEMORY_N, BLOCK),)](x, y, MEMORY_N, BLOCK_SIZE=BLOCK)


def launch_compute(x, y):
    compute_bound[(triton.cdiv(COMPUTE_N, BLOCK),)](x, y, COMPUTE_N, CHAIN_LENGTH=CHAIN,
                                                    BLOCK_SIZE=BLOCK)


def timed(launch, x, y, repeats):
    launch(x, y)  # compiles
    torch.cuda.synchronize()
    seconds = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch(x, y)
        end.record()
        end.synchronize()
        seconds.append(start.elapsed_time(end) / 1e3)
    return statistics.median(seconds), repeats + 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--manifest")
    args = parser.parse_args()
    print(f"pc_sampling.py: torch {torch.__version__}, triton {triton.__version__}, "
          f"{torch.cuda.get_device_name(0)}")
    failed = False
    x = torch.rand(MEMORY_N, device="cuda")
    y = torch.empty_like(x)
    memory_s, memory_launches = timed(launch_memory, x, y, args.repeats)
    if not torch.equal(y, 2 * x):
        print("pc_sampling.py: memory_bound's results are wrong", file=sys.stderr)
        failed = True
    del x, y
    x = torch.rand(COMPUTE_N, device="cuda")
    y = torch.empty_like(x)
    compute_s, compute_launches = timed(launch_compute, x, y, args.repeats)
    expected = torch.zeros_like(x)
    for k in range(8):
        expected += 1.0 + (x + k - 1.0) * 0.999 ** CHAIN
    if not torch.allclose(y, expected, rtol=1e-3, atol=1e-3):
        print("pc_sampling.py: compute_bound's results are wrong", file=sys.stderr)
        failed = True
    gbps = 2 * 4 * MEMORY_N / memory_s / 1e9
    tflops = 2 * 8 * CHAIN * COMPUTE_N / compute_s / 1e12
    print(f"memory_bound: {memory_s * 1e3:.3f} ms a launch ({gbps:.0f} GB/s)")
    print(f"compute_bound: {compute_s * 1e3:.3f} ms a launch ({tflops:.1f} FP32 TFLOP/s)")
    if args.manifest:
        with open(args.manifest, "w") as f:
            json.dump({"seconds": {"memory_bound": memory_s, "compute_bound": compute_s},
                       "launches": {"memory_bound": memory_launches,
                                    "compute_bound": compute_launches}}, f)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
