"""A small PyTorch training loop for the runs on an NVIDIA GPU (docs/cuda.md, issue 20):
a few linear layers, forward, backward and optimizer step, each step in a
torch.cuda.nvtx range. Prints the mean step time of the timed steps.

    python3 torch_loop.py [STEPS] [--profiler | --profiler-cuda] [--size small|big]
      --profiler: under torch.profiler, CPU and CUDA activities
      --profiler-cuda: under torch.profiler, CUDA activities only (CUPTI's kernel and
              copy records, no operator events): what device times alone cost it
      --size: small (default; 1024 -> 2048 -> 2048 -> 10, batch 512: about a millisecond
              a step, bound by the host's launches) or big (4096 wide, batch 4096: fp32
              matrix products of many milliseconds a step, bound by the GPU)
"""
import sys
import time

import torch

# (input width, hidden width, batch)
SIZES = {"small": (1024, 2048, 512), "big": (4096, 4096, 4096)}

steps = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 50
size = "small"
if "--size" in sys.argv:
    at = sys.argv.index("--size") + 1
    size = sys.argv[at] if at < len(sys.argv) else ""
    if size not in SIZES:
        sys.exit(f"torch_loop.py: --size takes one of {', '.join(SIZES)}, not {size!r}")
warmup = 10
width_in, width, batch = SIZES[size]
model = torch.nn.Sequential(
    torch.nn.Linear(width_in, width), torch.nn.ReLU(),
    torch.nn.Linear(width, width), torch.nn.ReLU(),
    torch.nn.Linear(width, 10)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(batch, width_in, device="cuda")
y = torch.randint(0, 10, (batch,), device="cuda")


def step(i):
    with torch.cuda.nvtx.range(f"step{i % 2}"):
        optimizer.zero_grad()
        with torch.cuda.nvtx.range("forward"):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        with torch.cuda.nvtx.range("backward"):
            loss.backward()
        optimizer.step()


def run():
    for i in range(warmup):
        step(i)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for i in range(steps):
        step(i)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / steps * 1e3


if "--profiler" in sys.argv or "--profiler-cuda" in sys.argv:
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CUDA]
    if "--profiler" in sys.argv:
        activities.insert(0, ProfilerActivity.CPU)
    with profile(activities=activities):
        ms = run()
else:
    ms = run()
print(f"step_ms={ms:.3f} steps={steps} size={size}")
