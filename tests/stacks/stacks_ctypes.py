"""Kernels launched from known Python lines through ctypes, with or without the GIL, for
the Python frames of submissions on every Python 3 the machine has (3.9 to 3.13: no
package but the standard library; tests/stacks/stacks_test.sh).

A launch through ctypes.CDLL runs with the GIL released, as PyTorch's and Triton's do;
through ctypes.PyDLL with it held. outer() -> middle() -> launch() launches `first`,
outer() -> again() launches `second`; the calls are made DEPTH frames deep (recurse()).
Writes what it did as JSON: each kernel's launches and the file, line and function of
each Python frame that must be on its stacks, innermost first.

usage: stacks_ctypes.py EXPECT_JSON gil|nogil [STEPS [DEPTH]]
"""
import ctypes
import json
import os
import sys

SOURCE = b"""
__kernel void first(__global float *x) { x[get_global_id(0)] += 1.0f; }
__kernel void second(__global float *x) { x[get_global_id(0)] *= 0.5f; }
"""
ELEMENTS = 256


def marked_line(marker):
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith("# " + marker):
                return n
    raise SystemExit("no line marked %s" % marker)


class OpenCL:
    def __init__(self, gil):
        loader = ctypes.PyDLL if gil else ctypes.CDLL
        self.cl = cl = loader("libOpenCL.so.1")
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
        self.launches = {"first": 0, "second": 0}

    def enqueue(self, name):
        args = (self.queue, self.kernels[name], 1, None, self.global_size, None, 0, None, None)
        status = self.cl.clEnqueueNDRangeKernel(*args)  # ENQUEUE
        if status:
            raise SystemExit("clEnqueueNDRangeKernel: %d" % status)
        self.launches[name] += 1


def launch(ocl):
    ocl.enqueue("first")  # LAUNCH first


def middle(ocl):
    launch(ocl)  # CALL launch


def again(ocl):
    ocl.enqueue("second")  # LAUNCH second


def outer(ocl):
    middle(ocl)  # CALL middle
    again(ocl)  # CALL again


def recurse(depth, ocl):
    if depth <= 0:
        outer(ocl)  # CALL outer
    else:
        recurse(depth - 1, ocl)


def frame(function, marker):
    return {"file": os.path.realpath(__file__), "line": marked_line(marker), "function": function}


def main():
    gil = sys.argv[2] == "gil"
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    depth = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    ocl = OpenCL(gil)
    for _ in range(steps):
        recurse(depth, ocl)
    ocl.cl.clFinish(ocl.queue)
    enqueue = frame("OpenCL.enqueue", "ENQUEUE")
    expect = {
        "first": {"launches": ocl.launches["first"],
                  "frames": [enqueue, frame("launch", "LAUNCH first"),
                             frame("middle", "CALL launch"), frame("outer", "CALL middle"),
                             frame("recurse", "CALL outer")]},
        "second": {"launches": ocl.launches["second"],
                   "frames": [enqueue, frame("again", "LAUNCH second"),
                              frame("outer", "CALL again"), frame("recurse", "CALL outer")]},
        "python": "%d.%d" % sys.version_info[:2],
        "gil": gil,
    }
    with open(sys.argv[1], "w") as f:
        json.dump(expect, f, indent=1)
    print("stacks_ctypes: Python %s, %s the GIL: ok" % (expect["python"],
                                                      "with" if gil else "without"))


if __name__ == "__main__":
    main()
