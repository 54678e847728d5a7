"""What a stack costs a call that submits device work (bench/stacks.sh): kernel launches
through ctypes on HIP's null library (its hipLaunchKernel returns at once, so the
launch's own cost is the wrapper's), made DEPTH Python frames deep with the GIL released
(ctypes.CDLL, as PyTorch's and Triton's launches are), and as many calls of a function
that submits nothing (hipGetDevice) for comparison. Prints the least over ROUNDS rounds
of each loop's ns per call, as measured by the app itself in the thread's CPU time (a
machine shared with other work stretches wall-clock time by whatever ran meanwhile), and
the median:

  launch_ns=1234.5 other_ns=567.8 launch_median_ns=1300.2 other_median_ns=600.1 depth=40

With DEEP (bench's libstacks_deep0.so) the launches are made at the bottom of its deep
native stack (40 frames in four objects, as PyTorch's from its binding down to
cudaLaunchKernel), after loading every object of FILLERS (a folder of copies of
libstacks_filler.so: the few hundred objects of a PyTorch process); and as many again
from a thread of its own that never ran Python, through the same stack (thread_ns=,
timed by that thread).

usage: stacks_loop.py LIBAMDHIP64 [CALLS [DEPTH [ROUNDS [DEEP [FILLERS]]]]]
"""
import ctypes
import os
import statistics
import sys
import time


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32), ("z", ctypes.c_uint32)]


class DeepCall(ctypes.Structure):
    """stacks_deep.c's struct deep_call."""
    _fields_ = [("launch", ctypes.c_void_p), ("kernel", ctypes.c_void_p),
                ("seed", ctypes.c_int * 4)]


def deep_call(hip, deep):
    """What deep_launch takes: hipLaunchKernel (the tracer's wrapper under the tracer)."""
    kernel = ctypes.cast(hip.hipGetDevice, ctypes.c_void_p)  # any host address names it
    deep.deep_launch.argtypes = [ctypes.POINTER(DeepCall)]
    return DeepCall(ctypes.cast(hip.hipLaunchKernel, ctypes.c_void_p), kernel, (3, 5, 7, 11))


def loops(hip, calls, rounds, deep):
    launch = hip.hipLaunchKernel
    launch.argtypes = [ctypes.c_void_p, Dim3, Dim3, ctypes.c_void_p, ctypes.c_size_t,
                       ctypes.c_void_p]
    get_device = hip.hipGetDevice
    device = ctypes.c_int(0)
    kernel = ctypes.cast(hip.hipGetDevice, ctypes.c_void_p)  # any host address names it
    one = Dim3(1, 1, 1)
    if deep is not None:
        call = deep_call(hip, deep)
        deep_launch, pointer = deep.deep_launch, ctypes.byref(call)
    launches, others = [], []
    for _ in range(rounds):
        t0 = time.thread_time_ns()
        if deep is None:
            for _ in range(calls):
                launch(kernel, one, one, None, 0, None)
        else:
            for _ in range(calls):
                deep_launch(pointer)
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


def thread_loops(hip, calls, rounds, deep):
    """The launches of a thread that never ran Python: least and median ns per launch."""
    call = deep_call(hip, deep)
    per_call = (ctypes.c_double * rounds)()
    deep.deep_thread_loop.argtypes = [ctypes.POINTER(DeepCall), ctypes.c_long, ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_double)]
    error = deep.deep_thread_loop(ctypes.byref(call), calls, rounds, per_call)
    if error:
        sys.exit("stacks_loop: deep_thread_loop failed: error %d" % error)
    return min(per_call), statistics.median(per_call)


def main():
    hip = ctypes.CDLL(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    deep_lib = None
    if len(sys.argv) > 5:
        fillers = sys.argv[6] if len(sys.argv) > 6 else None
        kept = [ctypes.CDLL(os.path.join(fillers, name)) for name in sorted(os.listdir(fillers))
                if name.endswith(".so")] if fillers else []
        deep_lib = ctypes.CDLL(sys.argv[5])
        print("objects: %d fillers loaded" % len(kept), file=sys.stderr)
    # deep() is depth - 3 frames: with loops(), main() and the module's, depth at the call.
    launch, other, launch_median, other_median = deep(depth - 3, hip, calls, rounds, deep_lib)
    line = ("launch_ns=%.1f other_ns=%.1f launch_median_ns=%.1f other_median_ns=%.1f depth=%d"
            % (launch, other, launch_median, other_median, depth))
    if deep_lib is not None:
        thread, thread_median = thread_loops(hip, calls, rounds, deep_lib)
        line += " thread_ns=%.1f thread_median_ns=%.1f" % (thread, thread_median)
    print(line)


if __name__ == "__main__":
    main()
