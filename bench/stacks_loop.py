"""What a stack costs a call that submits device work (bench/stacks.sh): kernel launches
through ctypes on HIP's null library (its hipLaunchKernel returns at once, so the
launch's own cost is the wrapper's), made DEPTH Python frames deep with the GIL released
(ctypes.CDLL, as PyTorch's and Triton's launches are), and as many calls of a function
that submits nothing (hipGetDevice) for comparison. Prints the least over ROUNDS rounds
of each loop's ns per call, as measured by the app itself in the thread's CPU time (a
machine shared with other work stretches wall-clock time by whatever ran meanwhile), and
the median:

  launch_ns=1234.5 other_ns=567.8 launch_median_ns=1300.2 other_median_ns=600.1 depth=40

usage: stacks_loop.py LIBAMDHIP64 [CALLS [DEPTH [ROUNDS]]]
"""
import ctypes
import statistics
import sys
import time


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32), ("z", ctypes.c_uint32)]


def loops(hip, calls, rounds):
    launch = hip.hipLaunchKernel
    launch.argtypes = [ctypes.c_void_p, Dim3, Dim3, ctypes.c_void_p, ctypes.c_size_t,
                       ctypes.c_void_p]
    get_device = hip.hipGetDevice
    device = ctypes.c_int(0)
    kernel = ctypes.cast(hip.hipGetDevice, ctypes.c_void_p)  # any host address names it
    one = Dim3(1, 1, 1)
    launches, others = [], []
    for _ in range(rounds):
        t0 = time.thread_time_ns()
        for _ in range(calls):
            launch(kernel, one, one, None, 0, None)
        t1 = time.thread_time_ns()
        for _ in range(calls):
            get_device(ctypes.byref(device))
        t2 = time.thread_time_ns()
        launches.append((t1 - t0) / calls)
        others.append((t2 - t1) / calls)
    return (min(launches), min(others), statistics.median(launches), statistics.median(others))


def deep(depth, *args):
    """loops(*args), called depth frames deep."""
    if depth <= 1:
        return loops(*args)
    return deep(depth - 1, *args)


def main():
    hip = ctypes.CDLL(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    # deep() is depth - 3 frames: with loops(), main() and the module's, depth at the call.
    launch, other, launch_median, other_median = deep(depth - 3, hip, calls, rounds)
    print("launch_ns=%.1f other_ns=%.1f launch_median_ns=%.1f other_median_ns=%.1f depth=%d"
          % (launch, other, launch_median, other_median, depth))


if __name__ == "__main__":
    main()
