"""A small data-parallel training job as PyTorch users write it: DistributedDataParallel
over gloo (CPU), started by torchrun or by anything that sets torchrun's variables
(RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), with ITT
regions Step.N > Forward, Backward, Optimizer.Step through the helper library named by
$ITT_REGIONS (itt_regions.c). Each rank writes the regions it opened, and its steps, to
$APP_MANIFEST.RANK (JSON).

Usage: python3 torch_ddp.py [STEPS]
"""
import ctypes
import json
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 4
regions = {}
helper = ctypes.CDLL(os.environ["ITT_REGIONS"]) if os.environ.get("ITT_REGIONS") else None


class Region:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        regions[self.name] = regions.get(self.name, 0) + 1
        if helper:
            helper.itt_regions_begin(self.name.encode())

    def __exit__(self, *exc):
        if helper:
            helper.itt_regions_end()


dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DistributedDataParallel(
    torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 8)))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
data, target = torch.randn(32, 64), torch.randn(32, 8)
for step in range(STEPS):
    with Region(f"Step.{step}"):
        with Region("Forward"):
            loss = torch.nn.functional.mse_loss(model(data), target)
        with Region("Backward"):
            loss.backward()  # DDP all-reduces the gradients over gloo here
        with Region("Optimizer.Step"):
            optimizer.step()
            optimizer.zero_grad()
dist.barrier()
dist.destroy_process_group()

manifest = os.environ.get("APP_MANIFEST")
if manifest:
    with open(f"{manifest}.{rank}", "w") as f:
        json.dump({"rank": rank, "steps": STEPS, "regions": regions}, f)
print(f"rank {rank}: {STEPS} steps, loss {loss.item():.4f}")
