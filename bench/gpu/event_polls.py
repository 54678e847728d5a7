"""Polls a CUDA event until a long matmul is done, as code that overlaps work does:
cudaEventQuery (which calls the driver's cuEventQuery) answers "not ready" many times,
then completes; for the tracer's polls (bench/gpu/poll_nesting.py checks the nesting)."""
import torch

x = torch.randn(8192, 8192, device='cuda')
polls = 0
for _ in range(20):
    y = x @ x
    done = torch.cuda.Event()
    done.record()
    while not done.query():
        polls += 1
torch.cuda.synchronize()
print(f'event_polls: {polls} polls that found the event not done')
