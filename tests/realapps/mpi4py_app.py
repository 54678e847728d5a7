"""MPI from Python through mpi4py (Debian's python3-mpi4py, built on Open MPI): python3
links no MPI library; mpi4py loads libmpi when it is imported. Collectives, blocking and
non-blocking point-to-point between ranks 0 and 1, with buffers of known sizes. Each rank
writes what it called and the bytes it gave each call to $APP_MANIFEST.RANK (JSON), the
count the test holds the tracer's report to.

Usage: mpirun -n 2 python3 mpi4py_app.py [STEPS]
"""
import array
import json
import os
import sys

from mpi4py import MPI

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 25
DOUBLES = 1000  # per message: 8000 bytes
calls = {}
sent = {}


def did(name, nbytes=0):
    calls[name] = calls.get(name, 0) + 1
    if nbytes:
        sent[name] = sent.get(name, 0) + nbytes


comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
a = array.array("d", [1.0] * DOUBLES)
b = array.array("d", [0.0] * DOUBLES)
nbytes = DOUBLES * a.itemsize
peer = 1 - rank if size >= 2 and rank < 2 else None

for step in range(STEPS):
    comm.Allreduce(a, b, op=MPI.SUM)
    did("MPI_Allreduce", nbytes)
    comm.Bcast(a, root=0)
    did("MPI_Bcast", nbytes)
    if peer is not None:
        # Blocking: rank 0 sends, rank 1 receives.
        if rank == 0:
            comm.Send(a, dest=peer, tag=1)
            did("MPI_Send", nbytes)
        else:
            comm.Recv(b, source=peer, tag=1)
            did("MPI_Recv", nbytes)
        # Non-blocking both ways, completed together.
        reqs = [comm.Irecv(b, source=peer, tag=2), comm.Isend(a, dest=peer, tag=2)]
        did("MPI_Irecv", nbytes)
        did("MPI_Isend", nbytes)
        MPI.Request.Waitall(reqs)
        did("MPI_Waitall", 2 * nbytes)
        # One more non-blocking send, completed by MPI_Wait.
        if rank == 0:
            comm.Isend(a, dest=peer, tag=3).Wait()
            did("MPI_Isend", nbytes)
            did("MPI_Wait", nbytes)
        else:
            comm.Recv(b, source=peer, tag=3)
            did("MPI_Recv", nbytes)
    if step % 5 == 0:
        comm.Barrier()
        did("MPI_Barrier")

manifest = os.environ.get("APP_MANIFEST")
if manifest:
    with open(f"{manifest}.{rank}", "w") as f:
        json.dump({"rank": rank, "calls": calls, "bytes": sent}, f)
print(f"rank {rank} of {size}: {sum(calls.values())} MPI calls")
