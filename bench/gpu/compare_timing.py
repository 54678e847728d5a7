#!/usr/bin/env python3
"""Each kernel's device time from the tracer against the app's own CUDA event timing.

    compare_timing.py APP_TIMES TRACER_JSON [--tolerance-ms 0.002] [--expect-timing events|cupti]

APP_TIMES: {"kernels": {"busy_1": ms, ...}} from tests/gpu/cuda_timing_app.cu (accuracy
mode), each kernel launched once between two cudaEventRecord calls of the app.
TRACER_JSON: the tracer's tally of that run (`tracer -j -o TRACER_JSON ...`).

The app's events bracket the kernel (and, with CUDA-event timing, the tracer's own events
recorded inside them), so the tracer's time must not exceed the app's by more than the
events' resolution (--tolerance-ms, default 0.002 ms). Prints one row per kernel: app ms,
tracer ms, ratio, the difference in microseconds, and whether it is within. The timing
path the tracer used shows in the name of the app's one memset: "memset" (CUPTI) or
"cuMemset..." (CUDA events); --expect-timing makes a mismatch a failure.

Exit status: 0 when every kernel is present once and within, 1 otherwise, 2 on bad input.
"""
import argparse
import sys

from tally_json import load, rows_by_name

PROGRAM = "compare_timing.py"


def timing_path(rows):
    names = [name for name in rows if isinstance(name, str)]
    if "memset" in names or any(name.startswith("memcpy(") for name in names):
        return "cupti"
    if any(name.startswith("cuMemset") or name.startswith("cuMemcpy") for name in names):
        return "events"
    return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app_times")
    parser.add_argument("tracer_json")
    parser.add_argument("--tolerance-ms", type=float, default=0.002)
    parser.add_argument("--expect-timing", choices=("events", "cupti"))
    args = parser.parse_args()

    app = load(args.app_times, "app timings", PROGRAM)
    kernels = app.get("kernels") if isinstance(app, dict) else None
    if not isinstance(kernels, dict) or not kernels:
        print(f"compare_timing.py: {args.app_times} has no \"kernels\" object", file=sys.stderr)
        return 2
    rows = rows_by_name(load(args.tracer_json, "tracer tally", PROGRAM), args.tracer_json, PROGRAM,
                        "device")

    failures = 0
    print(f"{'kernel':<10} {'app ms':>10} {'tracer ms':>10} {'ratio':>7} {'diff us':>9}  verdict")
    for name, app_ms in kernels.items():
        found = rows.get(name, [])
        if len(found) != 1:
            print(f"{name:<10} {app_ms:>10.4f} {'-':>10} {'-':>7} {'-':>9}  "
                  f"MISSING ({len(found)} device rows of that name)")
            failures += 1
            continue
        row = found[0]
        calls = row.get("calls", 0)
        if calls != 1 or row.get("kind") != "kernel":
            print(f"{name:<10} {app_ms:>10.4f} {'-':>10} {'-':>7} {'-':>9}  "
                  f"WRONG: {calls} calls of kind {row.get('kind')!r}, expected 1 kernel")
            failures += 1
            continue
        tracer_ms = row["time_ns"] / 1e6
        ratio = tracer_ms / app_ms if app_ms > 0 else float("inf")
        within = tracer_ms <= app_ms + args.tolerance_ms
        failures += not within
        print(f"{name:<10} {app_ms:>10.4f} {tracer_ms:>10.4f} {ratio:>7.4f} "
              f"{(tracer_ms - app_ms) * 1e3:>9.2f}  {'ok' if within else 'OUTSIDE'}")

    print(f"{len(kernels) - failures} of {len(kernels)} kernels present once and within "
          f"{args.tolerance_ms} ms of the app's events")
    path = timing_path(rows)
    others = sorted(n for n in rows if n not in kernels and isinstance(n, str))
    print(f"timing path seen: {path} (other device rows: {', '.join(others) or 'none'})")
    if args.expect_timing and path != args.expect_timing:
        print(f"compare_timing.py: expected {args.expect_timing} timing, the tally shows {path}")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
