"""The seeds' distributed-training demo (issue 32): a few transformer-like layers trained
with DistributedDataParallel over NCCL, ITT regions around each phase, a Triton vector add
named by its repr in two specializations. Launched as PyTorch users do:

    torchrun --standalone --nproc_per_node=2 --no-python tracer -l python3 ddp_demo.py
    tracer -l torchrun --standalone --nproc_per_node=2 ddp_demo.py

Options:
    --steps N           training steps (default 20), the first 5 of them warm-up
    --size small|big    small: host-bound steps of about a millisecond; big: GPU-bound steps
    --profile-steps     torch.profiler (CUDA activities) active for steps 3 and 4: prints how
                        many kernels it listed
    --profile-all       torch.profiler (CPU and CUDA activities) over every step: the
                        overhead runs' comparison
    --busbw             after training, time dist.all_reduce of 64 MiB and 256 MiB with CUDA
                        events (the script's own algorithm and bus bandwidth)
    --manifest PREFIX   each rank writes PREFIX.rankN.json: what it did, for the checks
                        (bench/gpu/check_ddp.py): all-reduces per bucket with bytes, Triton
                        launches per name, regions per name, step time

Regions (torch.profiler.itt): Step.N > Forward > Layer.N > Attn.N, MLP.N; Backward;
Optimizer.Step. The gradients are all-reduced by a DDP communication hook that does what
DDP's default hook does (all-reduce the bucket, divide by the world size) and counts each
bucket's bytes. Exits 77 without PyTorch, NCCL or a GPU.
"""
import argparse
import json
import os
import sys
import time

try:
    import torch
    import torch.distributed as dist
    import torch.profiler.itt as itt
    import triton
except ImportError as error:
    print(f"ddp_demo.py: cannot import PyTorch and Triton: {error}")
    sys.exit(77)
if not torch.cuda.is_available() or not dist.is_nccl_available():
    print("ddp_demo.py: no CUDA device or no NCCL for PyTorch")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_vadd import specialization_name, vadd  # noqa: E402 (after the checks)

# (width, heads, sequence, batch, layers)
SIZES = {"small": (256, 4, 64, 4, 3), "big": (2048, 16, 512, 8, 4)}
WARMUP = 5
# The two specializations: (BLOCK_SIZE, num_warps, num_stages)
VADD_CONFIGS = [(128, 4, 2), (256, 8, 2)]


class Block(torch.nn.Module):
    def __init__(self, index, width, heads):
        super().__init__()
        self.index = index
        self.norm1 = torch.nn.LayerNorm(width)
        self.attn = torch.nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm2 = torch.nn.LayerNorm(width)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                       torch.nn.Linear(4 * width, width))

    def forward(self, x):
        with itt.range(f"Layer.{self.index}"):
            with itt.range(f"Attn.{self.index}"):
                h = self.norm1(x)
                x = x + self.attn(h, h, h, need_weights=False)[0]
            with itt.range(f"MLP.{self.index}"):
                x = x + self.mlp(self.norm2(x))
        return x


class Model(torch.nn.Module):
    def __init__(self, width, heads, layers):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(i, width, heads) for i in range(layers))
        self.head = torch.nn.Linear(width, width)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def bucket_counting_hook(world_size, buckets):
    """DDP's default all-reduce (sum, then divide by the world size), appending each
    bucket's bytes to buckets in the order the all-reduces are made. A function, since DDP
    reads the hook's __name__."""

    def allreduce_counted(state, bucket):
        tensor = bucket.buffer()
        buckets.append(tensor.numel() * tensor.element_size())
        work = dist.all_reduce(tensor, async_op=True)
        return work.get_future().then(lambda fut: fut.value()[0].div_(world_size))

    return allreduce_counted


def triton_add(x, y, config):
    block_size, warps, stages = config
    z = torch.empty_like(x)
    grid = (triton.cdiv(x.numel(), block_size),)
    vadd[grid](x, y, z, x.numel(), BLOCK_SIZE=block_size, W_NAME=warps, S_NAME=stages,
               num_warps=warps, num_stages=stages)
    return z


def busbw(device, world_size):
    """The script's own all-reduce timing, as nccl-tests defines algbw and busbw."""
    results = []
    for mib in (64, 256):
        tensor = torch.ones(mib << 18, device=device)  # float32: 4 bytes
        # The ranks start together, as nccl-tests starts them: NCCL's kernel spins on the
        # device until every rank arrives, so a rank that came first would time the wait.
        torch.cuda.synchronize()
        dist.barrier()
        for _ in range(3):
            dist.all_reduce(tensor)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        runs = 10
        start.record()
        for _ in range(runs):
            dist.all_reduce(tensor)
        end.record()
        torch.cuda.synchronize()
        seconds = start.elapsed_time(end) / 1e3 / runs
        size = tensor.numel() * tensor.element_size()
        algbw = size / seconds / 1e9
        results.append({"bytes": size, "calls": runs + 3, "seconds": seconds,
                        "algbw_GBps": algbw,
                        "busbw_GBps": algbw * 2 * (world_size - 1) / world_size})
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--size", choices=SIZES, default="small")
    parser.add_argument("--profile-steps", action="store_true")
    parser.add_argument("--profile-all", action="store_true")
    parser.add_argument("--busbw", action="store_true")
    parser.add_argument("--manifest")
    args = parser.parse_args()

    dist.init_process_group("nccl")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    torch.manual_seed(0)

    width, heads, sequence, batch, layers = SIZES[args.size]
    model = Model(width, heads, layers).to(device)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    buckets = []
    ddp.register_comm_hook(None, bucket_counting_hook(world_size, buckets))
    optimizer = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    x = torch.randn(batch, sequence, width, device=device)
    target = torch.randn(batch, sequence, width, device=device)
    a = torch.rand(1 << 20, device=device)
    b = torch.rand(1 << 20, device=device)

    triton_launches = {}
    regions = {}

    def region(name):
        regions[name] = regions.get(name, 0) + 1
        return itt.range(name)

    def count_layers():
        for i in range(layers):
            for name in (f"Layer.{i}", f"Attn.{i}", f"MLP.{i}"):
                regions[name] = regions.get(name, 0) + 1

    profiler = None
    profiled_kernels = None
    step_times = []
    whole_run_profiler = None
    if args.profile_all:
        from torch.profiler import ProfilerActivity, profile
        whole_run_profiler = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        whole_run_profiler.__enter__()
    for step in range(args.steps):
        if args.profile_steps and step == 3:
            from torch.profiler import ProfilerActivity, profile
            profiler = profile(activities=[ProfilerActivity.CUDA])
            profiler.__enter__()
        torch.cuda.synchronize()
        started = time.perf_counter()
        with region(f"Step.{step}"):
            optimizer.zero_grad(set_to_none=True)
            with region("Forward"):
                loss = torch.nn.functional.mse_loss(ddp(x), target)
                count_layers()
            with region("Backward"):
                loss.backward()
            with region("Optimizer.Step"):
                optimizer.step()
                config = VADD_CONFIGS[step % 2]
                a = triton_add(a, b, config).mul_(0.5)
                name = specialization_name(*config)
                triton_launches[name] = triton_launches.get(name, 0) + 1
        torch.cuda.synchronize()
        if step >= WARMUP:
            step_times.append(time.perf_counter() - started)
        if profiler is not None and step == 4:
            profiler.__exit__(None, None, None)
            profiled_kernels = sum(1 for e in profiler.events()
                                   if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA)
            profiler = None
            print(f"rank {rank}: torch.profiler listed {profiled_kernels} kernels in steps 3-4")

    if whole_run_profiler is not None:
        whole_run_profiler.__exit__(None, None, None)
    bandwidth = busbw(device, world_size) if args.busbw else []
    step_ms = sorted(step_times)[len(step_times) // 2] * 1e3 if step_times else 0.0
    print(f"rank {rank}: step_ms={step_ms:.3f} steps={args.steps} size={args.size} "
          f"allreduces={len(buckets)} bucket_bytes={sorted(set(buckets))}")
    for entry in bandwidth:
        print(f"rank {rank}: all_reduce {entry['bytes'] >> 20} MiB: "
              f"algbw {entry['algbw_GBps']:.1f} GB/s busbw {entry['busbw_GBps']:.1f} GB/s")
    if args.manifest:
        with open(f"{args.manifest}.rank{rank}.json", "w") as f:
            json.dump({"rank": rank, "world_size": world_size, "device": local_rank,
                       "device_name": torch.cuda.get_device_name(device),
                       "steps": args.steps, "size": args.size, "step_ms": step_ms,
                       "allreduce_bytes": buckets, "busbw": bandwidth,
                       "triton": triton_launches, "regions": regions,
                       "profiled_kernels": profiled_kernels}, f, indent=1)
            f.write("\n")
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
