"""Each rank of an MPI job launching kernels from Python lines of its own, through ctypes
on PoCL (ctypes_opencl.py: no package but the standard library), for the top source lines
of a job's report (tests/stacks/stacks_job_test.sh). The rank comes from the launcher
(PMI_RANK under MPICH, OMPI_COMM_WORLD_RANK under Open MPI); the program makes no MPI call.

Rank R runs STEPS + R steps. Every step, every rank launches `first` from common()'s
line; an even rank launches `first` and `second` from even()'s line; an odd rank launches
`second` twice from odd()'s line. Writes what it did as JSON to EXPECT_PREFIX.R: per
marked line, its file, line and function, and the launches of each kernel from it.

usage: stacks_ranks.py EXPECT_PREFIX [STEPS]
"""
import json
import os
import sys

from ctypes_opencl import Kernels, marked_line as marked_line_in

ELEMENTS = 1024


def marked_line(marker):
    return marked_line_in(__file__, marker)


class OpenCL(Kernels):
    def __init__(self):
        super().__init__(ELEMENTS)
        self.launches = {}

    def done(self, marker, name, status):
        if status:
            raise SystemExit("clEnqueueNDRangeKernel: %d" % status)
        line = self.launches.setdefault(marker, {})
        line[name] = line.get(name, 0) + 1


def common(ocl):
    ocl.done("common", "first", ocl.cl.clEnqueueNDRangeKernel(*ocl.args("first")))  # LAUNCH common


def even(ocl, name):
    ocl.done("even", name, ocl.cl.clEnqueueNDRangeKernel(*ocl.args(name)))  # LAUNCH even


def odd(ocl):
    ocl.done("odd", "second", ocl.cl.clEnqueueNDRangeKernel(*ocl.args("second")))  # LAUNCH odd


def main():
    rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "-1")))
    if rank < 0:
        raise SystemExit("no rank: run under mpirun (PMI_RANK or OMPI_COMM_WORLD_RANK)")
    steps = (int(sys.argv[2]) if len(sys.argv) > 2 else 10) + rank
    ocl = OpenCL()
    for _ in range(steps):
        common(ocl)
        if rank % 2 == 0:
            even(ocl, "first")
            even(ocl, "second")
        else:
            odd(ocl)
            odd(ocl)
    ocl.cl.clFinish(ocl.queue)
    functions = {"common": "common", "even": "even", "odd": "odd"}
    expect = {"rank": rank, "lines": [
        {"file": os.path.realpath(__file__), "line": marked_line("LAUNCH " + marker),
         "function": functions[marker], "launches": launches}
        for marker, launches in sorted(ocl.launches.items())]}
    with open("%s.%d" % (sys.argv[1], rank), "w") as f:
        json.dump(expect, f, indent=1)
    print("stacks_ranks: rank %d, %d steps: ok" % (rank, steps))


if __name__ == "__main__":
    main()
