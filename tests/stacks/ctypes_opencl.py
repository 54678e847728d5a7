"""Two kernels on one buffer through ctypes on PoCL, with no package but the standard
library (stacks_ctypes.py, stacks_ranks.py), and the line a marker comment ends.

Exits 77 (SKIP) when there is no OpenCL platform."""
import ctypes
import sys

SOURCE = b"""
__kernel void first(__global float *x) { x[get_global_id(0)] += 1.0f; }
__kernel void second(__global float *x) { x[get_global_id(0)] *= 0.5f; }
"""


def marked_line(path, marker):
    """The line of the file at path that ends with the comment `# MARKER`."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith("# " + marker):
                return n
    raise SystemExit("no line marked %s in %s" % (marker, path))


class Kernels:
    """`first` and `second` ready to enqueue on one queue: args(name) are
    clEnqueueNDRangeKernel's. Through ctypes.PyDLL (gil) the calls hold the GIL; through
    ctypes.CDLL they release it, as PyTorch's and Triton's do."""

    def __init__(self, elements, gil=False):
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
        self.buf = vp(cl.clCreateBuffer(self.context, ctypes.c_uint64(1), elements * 4, None,
                                        ctypes.byref(err)))
        cl.clCreateKernel.restype = vp
        self.kernels = {}
        for name in ("first", "second"):
            k = vp(cl.clCreateKernel(program, name.encode(), ctypes.byref(err)))
            cl.clSetKernelArg(k, 0, ctypes.sizeof(self.buf), ctypes.byref(self.buf))
            self.kernels[name] = k
        self.global_size = (ctypes.c_size_t * 1)(elements)

    def args(self, name):
        return (self.queue, self.kernels[name], 1, None, self.global_size, None, 0, None, None)
