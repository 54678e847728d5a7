"""Each rank of an MPI job launching kernels from Python lines of its own, through ctypes
on PoCL (no package but the standard library), for the top source lines of a job's report
(tests/stacks/stacks_job_test.sh). The rank comes from the launcher (PMI_RANK under
MPICH, OMPI_COMM_WORLD_RANK under Open MPI); the program makes no MPI call.

Rank R runs STEPS + R steps. Every step, every rank launches `first` from common()'s
line; an even rank launches `first` and `second` from even()'s line; an odd rank launches
`second` twice from odd()'s line. Writes what it did as JSON to EXPECT_PREFIX.R: per
marked line, its file, line and function, and the launches of each kernel from it.

usage: stacks_ranks.py EXPECT_PREFIX [STEPS]
"""
import ctypes
import json
import os
import sys

SOURCE = b"""
__kernel void first(__global float *x) { x[get_global_id(0)] += 1.0f; }
__kernel void second(__global float *x) { x[get_global_id(0)] *= 0.5f; }
"""
ELEMENTS = 1024


def marked_line(marker):
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith("# " + marker):
                return n
    raise SystemExit("no line marked %s" % marker)


class OpenCL:
    def __init__(self):
        self.cl = cl = ctypes.CDLL("libOpenCL.so.1")
        vp, u32, i32 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int32
        err = i32(0)
        platform, device = vp(), vp()
        n = u32(0)
        if cl.clGetPlatformIDs(1, ctypes.byref(platform), ctypes.byref(n)) or not n.value:
            print("SKIP: no OpenCL platform")
            sys.exit(77)
        cl.clGetDeviceIDs(platform, ctypes.c_uint64(0xFFFFFFFF), 1, ctypes.byref(device), None)
        cl.clCreateContext.restype = vp
        self.context = vp(cl.clCreateContext(None, 1, ctypes.byref(device), None, None,
                                             ctypes.byref(err)))
        cl.clCreateCommandQueue.restype = vp
        self.queue = vp(cl.clCreateCommandQueue(self.context, device, ctypes.c_uint64(0),
                                                ctypes.byref(err)))
        src = ctypes.c_char_p(SOURCE)
        cl.clCreateProgramWithSource.restype = vp
        program = vp(cl.clCreateProgramWithSource(self.context, 1, ctypes.byref(src), None,
                                                  ctypes.byref(err)))
        if cl.clBuildProgram(program, 0, None, None, None, None):
            raise SystemExit("clBuildProgram failed")
        cl.clCreateBuffer.restype = vp
        self.buf = vp(cl.clCreateBuffer(self.context, ctypes.c_uint64(1), ELEMENTS * 4, None,
                                        ctypes.byref(err)))
        cl.clCreateKernel.restype = vp
        self.kernels = {}
        for name in ("first", "second"):
            k = vp(cl.clCreateKernel(program, name.encode(), ctypes.byref(err)))
            cl.clSetKernelArg(k, 0, ctypes.sizeof(self.buf), ctypes.byref(self.buf))
            self.kernels[name] = k
        self.global_size = (ctypes.c_size_t * 1)(ELEMENTS)
        self.launches = {}

    def args(self, name):
        return (self.queue, self.kernels[name], 1, None, self.global_size, None, 0, None, None)

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
