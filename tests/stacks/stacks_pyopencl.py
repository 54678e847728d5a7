"""Two Python functions launching kernels of known relative cost through pyopencl (Debian's
python3-pyopencl on PoCL), for the stacks of submissions (tests/stacks/stacks_test.sh).

light() launches `light` (ROUNDS iterations an element), heavy() launches `heavy` (16
times as many), each from one line marked below; step() calls both, the main loop STEPS
times. Writes what it did as JSON to the path given: each kernel's launches and the
file, line and function that launched it, so that the test checks the tracer against
the app, not against numbers of its own.

usage: stacks_pyopencl.py EXPECT_JSON [STEPS]
"""
import json
import os
import sys

import numpy as np
import pyopencl as cl

SOURCE = """
__kernel void light(__global float *x, const int rounds) {
  size_t i = get_global_id(0);
  float v = x[i];
  for (int r = 0; r < rounds; r++) v = v * 0.999f + 0.5f;
  x[i] = v;
}
__kernel void heavy(__global float *x, const int rounds) {
  size_t i = get_global_id(0);
  float v = x[i];
  for (int r = 0; r < 16 * rounds; r++) v = v * 0.999f + 0.5f;
  x[i] = v;
}
"""
ELEMENTS, ROUNDS = 4096, 64


def marked_line(marker):
    """The line of this file that ends with the marker comment."""
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith("# " + marker):
                return n
    raise SystemExit("no line marked %s" % marker)


class Model:
    def __init__(self):
        self.ctx = cl.create_some_context(interactive=False)
        self.queue = cl.CommandQueue(self.ctx)
        self.program = cl.Program(self.ctx, SOURCE).build()
        self.buf = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, ELEMENTS * 4)
        cl.enqueue_fill_buffer(self.queue, self.buf, np.float32(1.0), 0, ELEMENTS * 4)
        self.light_kernel = self.program.light
        self.heavy_kernel = self.program.heavy
        self.launches = {"light": 0, "heavy": 0}

    def light(self):
        self.light_kernel(self.queue, (ELEMENTS,), None, self.buf, np.int32(ROUNDS))  # LAUNCH light
        self.launches["light"] += 1

    def heavy(self):
        self.heavy_kernel(self.queue, (ELEMENTS,), None, self.buf, np.int32(ROUNDS))  # LAUNCH heavy
        self.launches["heavy"] += 1

    def step(self):
        self.light()
        self.heavy()


def main():
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    model = Model()
    for _ in range(steps):
        model.step()
    model.queue.finish()
    path = os.path.realpath(__file__)
    expect = {k: {"launches": model.launches[k], "file": path, "line": marked_line("LAUNCH " + k),
                  "function": "Model." + k}
              for k in ("light", "heavy")}
    with open(sys.argv[1], "w") as f:
        json.dump(expect, f, indent=1)
    print("stacks_pyopencl: %d steps: ok" % steps)


if __name__ == "__main__":
    main()
