#!/usr/bin/env python3
"""The tracer's cost per kernel launch, for each way of timing the device (issue 20).

    launch_cost.py --app /tmp/cuda_timing_app [--launches 20000] [--rounds 3]
                   [--tracer tracer] [--backends cuda,cudart] [--keep DIR] [--cupti-dir DIR]
                   [--modes untraced,none,events,cupti]

Runs `cuda_timing_app launches N` (tests/gpu/cuda_timing_app.cu: the mean host time of
one launch call, measured by the app itself) untraced and under the tracer with
TRACER_CUDA_TIMING=none, events and cupti (and with `-m minimal` as well: modes
none-minimal, events-minimal, cupti-minimal), ROUNDS times, interleaved (one run of each
mode per round, the order rotating), and prints each run, then per mode the mean and
minimum ns per launch and the extra ns over untraced. --keep DIR keeps each mode's first
traced tally there (launch_MODE_tally.txt). --cupti-dir: a folder to add to
LD_LIBRARY_PATH for the cupti runs, where libcupti.so.13 is not found by default.
Exit status: 0 when every run gave a figure, 1 otherwise.
"""
import argparse
import os
import statistics
import sys

import runs

MODES = ["untraced", "none", "events", "cupti", "none-minimal", "events-minimal",
         "cupti-minimal"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", required=True)
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tracer", default="tracer")
    parser.add_argument("--backends", default="cuda,cudart")
    parser.add_argument("--keep")
    parser.add_argument("--cupti-dir")
    parser.add_argument("--run-timeout", type=int, default=90)
    parser.add_argument("--modes", default="untraced,none,events,cupti",
                        help="among " + ",".join(MODES) + "; untraced is the baseline")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    if "untraced" not in modes or any(m not in MODES for m in modes):
        print(f"launch_cost.py: --modes {args.modes}: among {','.join(MODES)}, with untraced",
              file=sys.stderr)
        return 2
    if not os.access(args.app, os.X_OK):
        print(f"launch_cost.py: {args.app} is not an executable program", file=sys.stderr)
        return 2

    folders = runs.TraceFolders()
    figures = {mode: [] for mode in modes}
    failures = 0
    runs.stop_on_sigterm()
    try:
        for round_index in range(args.rounds):
            shift = round_index % len(modes)
            for mode in modes[shift:] + modes[:shift]:
                app = [args.app, "launches", str(args.launches)]
                env = dict(os.environ)
                trace_dir = tally = None
                if mode == "untraced":
                    command = app
                else:
                    timing = mode.split("-")[0]
                    env["TRACER_CUDA_TIMING"] = timing
                    if timing == "cupti" and args.cupti_dir:
                        env["LD_LIBRARY_PATH"] = args.cupti_dir + (
                            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
                    trace_dir = folders.next()
                    tally = trace_dir + ".txt"
                    options = ["-m", "minimal"] if mode.endswith("-minimal") else []
                    command = runs.traced(args.tracer, args.backends, tally, trace_dir, app,
                                          options)
                result = runs.run(command, args.run_timeout, env)
                ns = runs.value(result.stdout, "launch_ns")
                print(f"round={round_index + 1} mode={mode:<8} launch_ns={runs.fmt(ns, 1)} "
                      f"status={result.status} wall_s={result.seconds:.1f}", flush=True)
                if ns is None or result.status != 0:
                    failures += 1
                    print(result.tail(), flush=True)
                else:
                    figures[mode].append(ns)
                runs.keep_and_clean(folders, trace_dir, tally, args.keep,
                                    f"launch_{mode}_tally.txt")
    except runs.Stopped:
        failures += 1
        print("stopped by SIGTERM", flush=True)
    finally:
        folders.close()

    base = statistics.mean(figures["untraced"]) if figures["untraced"] else None
    print("== summary: host ns per launch call "
          f"({args.launches} launches a run, tracer -b {args.backends})")
    print(f"{'mode':<14} {'runs':>4} {'mean ns':>9} {'min ns':>9} {'extra ns':>9}  each run")
    for mode in modes:
        values = figures[mode]
        mean = statistics.mean(values) if values else None
        extra = mean - base if mean is not None and base is not None else None
        print(f"{mode:<14} {len(values):>4} {runs.fmt(mean, 1):>9} "
              f"{runs.fmt(min(values) if values else None, 1):>9} "
              f"{runs.fmt(extra, 1) if mode != 'untraced' else '':>9}  "
              + " ".join(f"{v:.1f}" for v in values))
    print("(modes other than untraced: TRACER_CUDA_TIMING=MODE under the tracer; -minimal: "
          "with -m minimal)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
