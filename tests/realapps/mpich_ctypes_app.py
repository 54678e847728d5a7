"""MPI from Python without mpi4py: the app loads MPICH's library itself (ctypes) after
python3 started, and calls it by name. MPICH's handles are integers (mpi.h): MPI_COMM_WORLD
0x44000000, MPI_DOUBLE 0x4c00080b, MPI_SUM 0x58000003. Each rank writes what it called, and
the bytes it gave each message call, to $APP_MANIFEST.RANK (JSON).

Usage: mpiexec.mpich -n 2 python3 mpich_ctypes_app.py [STEPS]
"""
import ctypes
import json
import os
import sys

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
DOUBLES = 100
COMM_WORLD = ctypes.c_int(0x44000000)
DOUBLE = ctypes.c_int(0x4C00080B)
SUM = ctypes.c_int(0x58000003)
STATUS_IGNORE = ctypes.c_void_p(1)  # MPICH's MPI_STATUS_IGNORE is (MPI_Status *)1

mpi = ctypes.CDLL("libmpich.so.12", mode=ctypes.RTLD_GLOBAL)
calls = {}
sent = {}


def call(name, *args, nbytes=0):
    status = getattr(mpi, name)(*args)
    if status != 0:
        sys.exit(f"{name} failed: {status}")
    calls[name] = calls.get(name, 0) + 1
    if nbytes:
        sent[name] = sent.get(name, 0) + nbytes


call("MPI_Init", None, None)
rank, size = ctypes.c_int(), ctypes.c_int()
call("MPI_Comm_rank", COMM_WORLD, ctypes.byref(rank))
call("MPI_Comm_size", COMM_WORLD, ctypes.byref(size))
a = (ctypes.c_double * DOUBLES)(*([1.0] * DOUBLES))
b = (ctypes.c_double * DOUBLES)()
nbytes = DOUBLES * ctypes.sizeof(ctypes.c_double)
for step in range(STEPS):
    call("MPI_Allreduce", a, b, DOUBLES, DOUBLE, SUM, COMM_WORLD, nbytes=nbytes)
    if size.value >= 2 and rank.value < 2:
        if rank.value == 0:
            call("MPI_Send", a, DOUBLES, DOUBLE, 1, 5, COMM_WORLD, nbytes=nbytes)
        else:
            call("MPI_Recv", b, DOUBLES, DOUBLE, 0, 5, COMM_WORLD, STATUS_IGNORE, nbytes=nbytes)
for step in range(3):
    call("MPI_Barrier", COMM_WORLD)
call("MPI_Finalize")

manifest = os.environ.get("APP_MANIFEST")
if manifest:
    with open(f"{manifest}.{rank.value}", "w") as f:
        json.dump({"rank": rank.value, "calls": calls, "bytes": sent}, f)
print(f"rank {rank.value} of {size.value}: {sum(calls.values())} MPI calls")
