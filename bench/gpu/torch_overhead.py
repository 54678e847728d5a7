#!/usr/bin/env python3
"""The PyTorch loop's step time untraced, traced and under torch.profiler (issue 20).

    torch_overhead.py [--rounds 5] [--budget 270] [--sizes small,big]
                      [--small-steps 200] [--big-steps 50] [--tracer tracer]
                      [--backends cuda,cudart,nvtx] [--modes untraced,traced,profiler]
                      [--cpus LIST] [--keep DIR]

Runs tests/gpu/torch_loop.py (which prints the mean step time of its timed steps) for
each size: small (bound by the host's launches) and big (bound by the GPU), in the modes
of --modes: untraced, traced (under `tracer -b BACKENDS`, tally to a file, trace folder
removed after each run), minimal (the same with `-m minimal`), nodevice (traced with
TRACER_CUDA_TIMING=none: host calls alone, no CUPTI), profiler (the loop's --profiler:
torch.profiler, CPU and CUDA activities) and profiler-cuda (torch.profiler with CUDA
activities alone: about what CUPTI's device records cost by themselves). One run of each
mode per size per round, the order of the modes rotating from round to round, so that
drift of the machine falls on all modes alike. Stops starting rounds when the next one
would pass --budget seconds (at least one round is run). Prints each run, then per size
the median step time of each mode and its ratio to untraced, then the same for the least
run of each mode (the machine's other work only ever slows a run).
--cpus LIST (taskset's form, "2-5") pins every run, the tracer and the app, to those CPUs.
On the H100 guest it made traced runs far slower (the app then shares its CPUs with the
threads of the tracer, LTTng and CUPTI: gpu-runs/run5); the figures are taken without it.
--keep DIR keeps each size's first traced tally there (overhead_SIZE_tally.txt).
Exit status: 0 when every run gave a step time, 1 otherwise.
"""
import argparse
import os
import sys
import time

import runs

MODES = ["untraced", "traced", "minimal", "nodevice", "profiler", "profiler-cuda"]
SHORT = {"profiler-cuda": "prof-cuda"}  # column names of at most 9 characters
LOOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "gpu",
                    "torch_loop.py")


def ratio(a, b):
    return a / b if a is not None and b else None


def least(values):
    return min(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=270.0, help="seconds")
    parser.add_argument("--sizes", default="small,big")
    parser.add_argument("--small-steps", type=int, default=200)
    parser.add_argument("--big-steps", type=int, default=50)
    parser.add_argument("--tracer", default="tracer")
    parser.add_argument("--backends", default="cuda,cudart,nvtx")
    parser.add_argument("--modes", default="untraced,traced,profiler",
                        help=", ".join(MODES) + "; untraced is the baseline")
    parser.add_argument("--cpus", help="pin every run to these CPUs (taskset -c LIST)")
    parser.add_argument("--keep")
    parser.add_argument("--run-timeout", type=int, default=90)
    args = parser.parse_args()
    loop = os.path.normpath(LOOP)
    if not os.path.exists(loop):
        print(f"torch_overhead.py: {loop} is missing", file=sys.stderr)
        return 2
    sizes = [s for s in args.sizes.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    if "untraced" not in modes or any(m not in MODES for m in modes):
        print(f"torch_overhead.py: --modes {args.modes}: among {','.join(MODES)}, with untraced",
              file=sys.stderr)
        return 2
    steps = {"small": args.small_steps, "big": args.big_steps}
    unknown = [s for s in sizes if s not in steps]
    if unknown:
        print(f"torch_overhead.py: unknown size(s) {unknown}: small or big", file=sys.stderr)
        return 2

    print(f"torch_overhead.py: {sys.executable} {loop}; tracer -b {args.backends}; "
          f"up to {args.rounds} rounds within {args.budget:.0f} s", flush=True)
    folders = runs.TraceFolders()
    step_ms = {(size, mode): [] for size in sizes for mode in modes}
    failures = 0
    start = time.monotonic()
    longest_round = 0.0
    rounds_done = 0
    runs.stop_on_sigterm()
    try:
        for round_index in range(args.rounds):
            elapsed = time.monotonic() - start
            if round_index > 0 and elapsed + longest_round > args.budget:
                print(f"stopping after {round_index} rounds: another would pass the budget "
                      f"({elapsed:.0f} s spent, a round takes up to {longest_round:.0f} s)",
                      flush=True)
                break
            round_start = time.monotonic()
            shift = round_index % len(modes)
            for size in sizes:
                for mode in modes[shift:] + modes[:shift]:
                    app = [sys.executable, loop, str(steps[size]), "--size", size]
                    trace_dir = tally = None
                    env = None
                    if mode.startswith("profiler"):
                        command = app + ["--" + mode]
                    elif mode in ("traced", "minimal", "nodevice"):
                        trace_dir = folders.next()
                        tally = trace_dir + ".txt"
                        options = ["-m", "minimal"] if mode == "minimal" else []
                        command = runs.traced(args.tracer, args.backends, tally, trace_dir, app,
                                              options)
                        if mode == "nodevice":
                            env = dict(os.environ, TRACER_CUDA_TIMING="none")
                    else:
                        command = app
                    if args.cpus:
                        command = ["taskset", "-c", args.cpus] + command
                    result = runs.run(command, args.run_timeout, env)
                    ms = runs.value(result.stdout, "step_ms")
                    print(f"round={round_index + 1} size={size:<5} mode={mode:<13} "
                          f"step_ms={runs.fmt(ms)} status={result.status} "
                          f"wall_s={result.seconds:.1f}", flush=True)
                    if ms is None or result.status != 0:
                        failures += 1
                        print(result.tail(), flush=True)
                    else:
                        step_ms[(size, mode)].append(ms)
                    runs.keep_and_clean(folders, trace_dir, tally, args.keep,
                                        f"overhead_{size}_{mode}_tally.txt")
            rounds_done += 1
            longest_round = max(longest_round, time.monotonic() - round_start)
    except runs.Stopped:
        failures += 1
        print(f"stopped by SIGTERM during round {rounds_done + 1}", flush=True)
    finally:
        folders.close()

    print(f"== summary: PyTorch loop step time, median of each mode's runs ({rounds_done} full round(s)) "
          f"(tracer -b {args.backends}; profiler: torch.profiler CPU+CUDA"
          f"{'; pinned to CPUs ' + args.cpus if args.cpus else ''})")
    others = [m for m in modes if m != "untraced"]
    # The median is the figure; the least run of each mode says the same without the runs
    # that the machine's other work slowed (they only ever slow a run).
    for statistic, pick in (("median", runs.median), ("least", least)):
        print(f"{'size':<6} {'steps':>5} " + " ".join(f"{SHORT.get(m, m):>9}" for m in modes) +
              " " + " ".join(f"{SHORT.get(m, m)[:6] + '/untr':>11}" for m in others) +
              (f"  runs ({' | '.join(modes)})" if statistic == "median" else
               "  (least of each mode's runs)"))
        for size in sizes:
            figures = {mode: pick(step_ms[(size, mode)]) for mode in modes}
            each = " | ".join(" ".join(f"{v:.3f}" for v in step_ms[(size, mode)])
                              for mode in modes)
            print(f"{size:<6} {steps[size]:>5} " +
                  " ".join(f"{runs.fmt(figures[m]):>9}" for m in modes) + " " +
                  " ".join(f"{runs.fmt(ratio(figures[m], figures['untraced'])):>11}"
                           for m in others) + (f"  {each}" if statistic == "median" else ""))
    print("(step_ms: mean ms per step over the timed steps of one run, after 10 warm-up steps)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
