"""The DDP demo's step time untraced, traced (default, -m minimal, --no-stacks, pystacks:
stacks of Python frames only, TRACER_STACKS_NATIVE=0) and under
torch.profiler, rounds interleaved so that the machine's drift falls on every mode alike
(issue 32). Each run is a fresh `torchrun --nproc_per_node=N` job (--nproc, default 2;
1 on a machine with one GPU); the step time is
rank 0's median over the steps after the warm-up (tests/gpu/ddp_demo.py prints it).

    python3 bench/gpu/ddp_overhead.py --out OUT [--rounds 5] [--budget 520] [--nproc 2]
        [--sizes small,big] [--modes untraced,traced,minimal,nostacks,pystacks,profiler]

Writes OUT/ddp_overhead.txt: every run, then per size and mode the median, least and most
step time and the median's ratio to untraced. Rounds stop when the budget (seconds) would
be passed; the table says how many ran.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "gpu",
                    "ddp_demo.py")
STEPS = {"small": 200, "big": 40}
NPROC = 2  # ranks per job (--nproc)


def command(mode, size, trace_dir):
    demo = ["python3", os.path.abspath(DEMO), "--size", size, "--steps", str(STEPS[size])]
    launcher = ["torchrun", "--standalone", f"--nproc_per_node={NPROC}", "--no-python"]
    if mode == "untraced":
        return launcher + demo
    if mode == "profiler":
        return launcher + demo + ["--profile-all"]
    tracer = ["tracer", "--trace-output", trace_dir, "-o", os.devnull]
    if os.environ.get("TRACER_BACKENDS"):  # a build that carries only some interposers
        tracer += ["-b", os.environ["TRACER_BACKENDS"]]
    if mode == "minimal":
        tracer += ["-m", "minimal"]
    if mode == "nostacks":  # the submissions' stacks off (docs/flame.md)
        tracer += ["--no-stacks"]
    # pystacks: stacks of Python frames only (TRACER_STACKS_NATIVE=0, run_once): between
    # traced and nostacks, what the native walk costs apart from the rest.
    return launcher + tracer + demo


def run_once(mode, size, log):
    with tempfile.TemporaryDirectory(prefix="ddp-overhead-") as scratch:
        trace_dir = os.path.join(scratch, "trace")
        cmd = command(mode, size, trace_dir)
        started = time.time()
        env = dict(os.environ)
        if mode == "pystacks":
            env["TRACER_STACKS_NATIVE"] = "0"
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=env)
        seconds = time.time() - started
    match = re.search(r"rank 0: step_ms=([0-9.]+)", done.stdout)
    log.write(f"{size:5} {mode:9} rc={done.returncode} wall={seconds:.1f}s "
              f"step_ms={match.group(1) if match else '-'}\n")
    log.flush()
    if done.returncode != 0 or not match:
        sys.stderr.write(f"ddp_overhead.py: {size} {mode} failed (rc {done.returncode}):\n"
                         f"{done.stdout[-3000:]}\n")
        return None, seconds
    return float(match.group(1)), seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=520)
    parser.add_argument("--sizes", default="small,big")
    parser.add_argument("--modes", default="untraced,traced,minimal,profiler")
    parser.add_argument("--nproc", type=int, default=2)
    args = parser.parse_args()
    global NPROC
    NPROC = args.nproc
    sizes, modes = args.sizes.split(","), args.modes.split(",")
    results = {(size, mode): [] for size in sizes for mode in modes}
    began = time.time()
    longest_round = 0.0
    rounds = 0
    with open(os.path.join(args.out, "ddp_overhead.txt"), "w") as log:
        log.write("runs, in order (size mode exit wall step):\n")
        for _ in range(args.rounds):
            if time.time() - began + longest_round * 1.1 > args.budget:
                break
            round_start = time.time()
            for size in sizes:
                for mode in modes:
                    step_ms, _ = run_once(mode, size, log)
                    if step_ms is not None:
                        results[(size, mode)].append(step_ms)
            longest_round = max(longest_round, time.time() - round_start)
            rounds += 1
        log.write(f"\n{rounds} rounds in {time.time() - began:.0f} s; step time in ms, "
                  "rank 0's median step of each run\n")
        log.write(f"{'size':6}{'mode':10}{'runs':>5}{'median':>9}{'least':>9}{'most':>9}"
                  f"{'ratio':>8}{'spread':>16}\n")
        for size in sizes:
            base = results.get((size, "untraced")) or []
            base_median = statistics.median(base) if base else None
            for mode in modes:
                values = results[(size, mode)]
                if not values:
                    log.write(f"{size:6}{mode:10}{0:>5}   (no run succeeded)\n")
                    continue
                median = statistics.median(values)
                ratio = f"{median / base_median:.3f}" if base_median else "-"
                spread = (f"{min(values) / base_median:.3f}-{max(values) / base_median:.3f}"
                          if base_median else "-")
                log.write(f"{size:6}{mode:10}{len(values):>5}{median:>9.3f}{min(values):>9.3f}"
                          f"{max(values):>9.3f}{ratio:>8}{spread:>16}\n")
            with_stacks, without = results.get((size, "traced")), results.get((size, "nostacks"))
            if with_stacks and without:  # issue 47: stacks cost under 5% of a host-bound step
                log.write(f"{size:6}stacks: traced / --no-stacks = "
                          f"{statistics.median(with_stacks) / statistics.median(without):.3f} "
                          "(medians)\n")
            python_only = results.get((size, "pystacks"))
            if python_only and without:  # the same, Python frames only (no native walk)
                log.write(f"{size:6}stacks: pystacks / --no-stacks = "
                          f"{statistics.median(python_only) / statistics.median(without):.3f} "
                          "(medians)\n")
    with open(os.path.join(args.out, "ddp_overhead.txt")) as log:
        print(log.read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
