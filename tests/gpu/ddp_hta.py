"""Issue 46's DDP job for the comparison with Holistic Trace Analysis: 4 Linear layers of
4096, batch 1024, DDP over NCCL, 13 steps, torch.profiler (CPU and CUDA activities) over
steps 3 to 12 exporting each rank's Kineto trace. Each step is an NVTX range `Step.N`
(N from 0), so that the tracer finds the steps and `--skip-steps 3` is the profiled part:

    torchrun --standalone --nproc_per_node=2 --no-python \\
        tracer --trace-output JOB python3 tests/gpu/ddp_hta.py --kineto KINETO_DIR

Options:
    --kineto DIR   where each rank writes its Kineto trace (rank-N.json)
    --steps N      steps in all (default 13); the profiler skips the first 2, warms up on
                   the third and records the rest (10 of 13)
    --no-profiler  the same loop without torch.profiler

Each step ends with loss.item(), as a training loop that logs its loss does. Prints
`rank R: steps=N profiled=A..B step_ms=MEDIAN`. Exits 77 without PyTorch, NCCL or 2 GPUs.
"""
import argparse
import os
import statistics
import sys
import time

try:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.profiler import ProfilerActivity, profile, schedule
except ImportError as error:
    print(f"ddp_hta.py: cannot import PyTorch: {error}")
    sys.exit(77)
if not torch.cuda.is_available() or not dist.is_nccl_available():
    print("ddp_hta.py: no CUDA device or no NCCL for PyTorch")
    sys.exit(77)

WIDTH, BATCH, LAYERS = 4096, 1024, 4
SKIP_FIRST, WARMUP = 2, 1  # the profiler records from step SKIP_FIRST + WARMUP on


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kineto", default="kineto")
    parser.add_argument("--steps", type=int, default=13)
    parser.add_argument("--no-profiler", action="store_true")
    args = parser.parse_args()
    rank = int(os.environ["RANK"])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    model = torch.nn.Sequential(*[torch.nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)]).cuda()
    ddp = DistributedDataParallel(model, device_ids=[local])
    optimizer = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    x = torch.randn(BATCH, WIDTH, device="cuda")
    y = torch.randn(BATCH, WIDTH, device="cuda")
    os.makedirs(args.kineto, exist_ok=True)
    active = args.steps - SKIP_FIRST - WARMUP

    def export(prof):
        prof.export_chrome_trace(os.path.join(args.kineto, f"rank-{rank}.json"))

    profiler = None
    if not args.no_profiler:
        profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                           schedule=schedule(skip_first=SKIP_FIRST, wait=0, warmup=WARMUP,
                                             active=active, repeat=1),
                           on_trace_ready=export)
        profiler.__enter__()
    times = []
    for step in range(args.steps):
        started = time.perf_counter()
        torch.cuda.nvtx.range_push(f"Step.{step}")
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        loss.item()
        torch.cuda.nvtx.range_pop()
        times.append((time.perf_counter() - started) * 1e3)
        if profiler is not None:
            profiler.step()
    if profiler is not None:
        profiler.__exit__(None, None, None)
    first = SKIP_FIRST + WARMUP
    print(f"rank {rank}: steps={args.steps} profiled={first}..{args.steps - 1} "
          f"step_ms={statistics.median(times[first:]):.3f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
