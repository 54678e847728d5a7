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
import json
import os
import sys

from ctypes_opencl import Kernels, marked_line as marked_line_in

ELEMENTS = 256


def marked_line(marker):
    return marked_line_in(__file__, marker)


class OpenCL(Kernels):
    def __init__(self, gil):
        super().__init__(ELEMENTS, gil)
        self.launches = {"first": 0, "second": 0}

    def enqueue(self, name):
        status = self.cl.clEnqueueNDRangeKernel(*self.args(name))  # ENQUEUE
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
