"""A small PyTorch training loop for the runs on an NVIDIA GPU (docs/cuda.md, issue 20):
a few linear layers, forward, backward and optimizer step, each step in a
torch.cuda.nvtx range. Prints the mean step time of the timed steps.

    python3 torch_loop.py [STEPS] [--profiler]   (--profiler: under torch.profiler, CUDA)
"""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 50
warmup = 10
model = torch.nn.Sequential(
    torch.nn.Linear(1024, 2048), torch.nn.ReLU(),
    torch.nn.Linear(2048, 2048), torch.nn.ReLU(),
    torch.nn.Linear(2048, 10)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(512, 1024, device="cuda")
y = torch.randint(0, 10, (512,), device="cuda")


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


if "--profiler" in sys.argv:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        ms = run()
else:
    ms = run()
print(f"step_ms={ms:.3f} steps={steps}")
