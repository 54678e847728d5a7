"""Checks the folded stacks of a GPU run (bench/gpu/run_stacks.sh) and says what they hold.

Usage: check_stacks.py --folded FILE --tally JSON [--report FILE]
       check_stacks.py --pc-sampling --folded FILE --tally JSON [--plain M]
                       [--traced-plain M] [--traced M]

DDP run (tests/gpu/ddp_demo.py):
  - no device line right under a rank (`rank N;-;...`), and how much device time has no
    frame of code (no Python or native frame between the regions and the first API call);
  - copies (memcpy...) under a call, as kernels;
  - each Triton kernel (vadd_*) under ddp_demo.py's triton_add line; kernels of the
    forward pass under a `forward` Python frame; the backward's under `Backward`, the
    autograd threads' marked `[thread TID]`;
  - the weights per kernel against the tally's device time;
  - the report's Top source lines table.
PC sampling run (tests/gpu/pc_sampling.py): each kernel's frames below it
(`...;-;KERNEL;+0xOFFSET;STALL`), the share of each stall reason and of the hottest
instructions per kernel, where it was launched from; the memory-bound kernel's largest
reason a memory wait (long_scoreboard, ...), the compute-bound one's a math pipe or issue
reason; the weights per kernel still the tally's; each kernel's time untraced, traced,
and traced with --pc-sampling (the apps' manifests: CUDA events around each launch).
Prints what it found, then `ok` or each problem; exits 0 or 1."""

import argparse
import json
import re
import sys
from collections import Counter, defaultdict


def read_folded(path):
    out = []
    with open(path) as f:
        for line in f:
            stack, _, weight = line.rstrip("\n").rpartition(" ")
            out.append((stack.split(";"), int(weight)))
    return out


def tally_kernels(path):
    with open(path) as f:
        tally = json.load(f)
    kernels = Counter()
    for b in tally.get("backends", []):
        for row in b.get("device", []):
            kernels[row["name"]] += row["time_ns"]
    return kernels


def device_lines(folded):
    return [(fr, w) for fr, w in folded if "-" in fr]


def split(frames):
    dash = frames.index("-")
    return frames[:dash], frames[dash + 1:]


def ddp(args, problems):
    folded = read_folded(args.folded)
    kernels = tally_kernels(args.tally)
    lines = device_lines(folded)
    total = sum(w for _, w in lines)
    under_root = [(fr, w) for fr, w in lines if fr.index("-") == 1]
    for fr, w in under_root:
        problems.append("right under the rank: %s (%d ns)" % (";".join(fr), w))
    no_code = sum(w for fr, w in lines
                  if not any(".py:" in x or x.startswith("[thread") for x in split(fr)[0]))
    print("device time: %.3f ms in %d lines; %.1f%% without a Python frame or [thread]" %
          (total / 1e6, len(lines), 100.0 * no_code / max(total, 1)))
    got = Counter()
    for fr, w in lines:
        got[split(fr)[1][0]] += w
    for name in sorted(set(kernels) | set(got)):
        if got[name] != kernels[name]:
            problems.append("kernel %s: %d ns in the stacks, the tally counts %d" %
                            (name, got[name], kernels[name]))
    copies = [(fr, w) for fr, w in lines if split(fr)[1][0].startswith("memcpy")]
    for fr, w in copies:
        if not re.match(r"cu|cuda", split(fr)[0][-1]):
            problems.append("copy without its call: %s" % ";".join(fr))
    print("copies: %d lines, %.3f ms" % (len(copies), sum(w for _, w in copies) / 1e6))
    for fr, w in lines:
        kernel = split(fr)[1][0]
        code = split(fr)[0]
        if kernel.startswith("vadd_") and not any(re.match(r"ddp_demo\.py:\d+ triton_add$", x)
                                                  for x in code):
            problems.append("Triton kernel not under triton_add: %s" % ";".join(fr))
    forward = sum(w for fr, w in lines if "Forward" in split(fr)[0])
    forward_py = sum(w for fr, w in lines if "Forward" in split(fr)[0] and
                     any(x.endswith("forward") and ".py:" in x for x in split(fr)[0]))
    backward = sum(w for fr, w in lines if "Backward" in split(fr)[0])
    inherited = sum(w for fr, w in lines if "Backward" in split(fr)[0] and
                    any(x.startswith("[thread") for x in split(fr)[0]))
    print("Forward: %.3f ms, %.1f%% of it under a Python forward frame" %
          (forward / 1e6, 100.0 * forward_py / max(forward, 1)))
    print("Backward: %.3f ms, %.1f%% of it launched by another thread ([thread TID])" %
          (backward / 1e6, 100.0 * inherited / max(backward, 1)))
    if forward and forward_py < forward / 2:
        problems.append("less than half the forward's device time under a Python forward frame")
    if not backward:
        problems.append("no device time under Backward")
    # What the frames between the code and the launch look like (Triton's launcher and
    # PyTorch's dispatch folded or not): the widest stack of a few kinds of kernel.
    for label, wanted in (("Triton", lambda k, c: k.startswith("vadd_")),
                          ("forward GEMM", lambda k, c: "gemm" in k.lower() and "Forward" in c),
                          ("backward GEMM", lambda k, c: "gemm" in k.lower() and "Backward" in c)):
        found = [(w, fr) for fr, w in lines if wanted(split(fr)[1][0], split(fr)[0])]
        if found:
            w, fr = max(found)
            code = split(fr)[0]
            last_py = max((i for i, x in enumerate(code) if ".py:" in x), default=-1)
            print("%s kernel's widest stack (%d frames after the last Python one):\n  %s" %
                  (label, len(code) - last_py - 1, "\n  ".join(fr)))
    widest = sorted(((w, fr) for fr, w in lines), reverse=True)[:5]
    print("widest device lines:")
    for w, fr in widest:
        print("  %9.3f ms  %s" % (w / 1e6, ";".join(fr)[:400]))
    if args.report:
        report = open(args.report).read()
        m = re.search(r"Top source lines.*?(?:\n\n|\Z)(.*?)(?:\n\n|\Z)", report, re.S)
        if "Top source lines" not in report:
            problems.append("the report has no Top source lines table")
        elif m:
            print("top source lines:\n" + m.group(1))


STALL_MEMORY = ("long_scoreboard", "lg_throttle", "drain", "mio_throttle", "short_scoreboard",
                "tex_throttle", "membar")
STALL_MATH = ("math_pipe_throttle", "wait", "selected", "not_selected", "dispatch_stall",
              "tensor")


def pc_sampling(args, problems):
    folded = read_folded(args.folded)
    kernels = tally_kernels(args.tally)
    lines = device_lines(folded)
    per_kernel = defaultdict(Counter)     # kernel -> stall -> ns
    per_pc = defaultdict(Counter)         # kernel -> +0xOFFSET -> ns
    launched_from = defaultdict(Counter)  # kernel -> innermost pc_sampling.py frame -> ns
    got = Counter()
    for fr, w in lines:
        code, below = split(fr)
        got[below[0]] += w
        if len(below) == 3:
            per_kernel[below[0]][below[2]] += w
            per_pc[below[0]][below[1]] += w
        ours = [x for x in code if x.startswith("pc_sampling.py:")]
        launched_from[below[0]][ours[-1] if ours else "(no pc_sampling.py frame)"] += w
    for name in sorted(set(kernels) | set(got)):
        if got[name] != kernels[name]:
            problems.append("kernel %s: %d ns in the stacks, the tally counts %d" %
                            (name, got[name], kernels[name]))
    for wanted, reasons in (("memory_bound", STALL_MEMORY), ("compute_bound", STALL_MATH)):
        found = [k for k in per_kernel if wanted in k]
        if not found:
            problems.append("%s: no stall frames below it (kernels sampled: %s)" %
                            (wanted, sorted(per_kernel) or "none"))
        for kernel in found:
            stalls = per_kernel[kernel]
            whole = sum(stalls.values())
            print("%s: %.3f ms; stalls: %s" % (kernel, whole / 1e6, ", ".join(
                "%s %.1f%%" % (s, 100.0 * w / whole) for s, w in stalls.most_common(6))))
            print("  hottest instructions: %s" % ", ".join(
                "%s %.1f%%" % (pc, 100.0 * w / whole) for pc, w in per_pc[kernel].most_common(5)))
            print("  launched from: %s" % ", ".join(
                "%s (%.0f%%)" % (where, 100.0 * w / whole)
                for where, w in launched_from[kernel].most_common(3)))
            first = stalls.most_common(1)[0][0]
            if first not in reasons:
                problems.append("%s: the largest stall is %s, not one of %s" %
                                (kernel, first, ", ".join(reasons)))
            if not any(where.endswith(("launch_memory", "launch_compute"))
                       for where in launched_from[kernel]):
                problems.append("%s: not under its launch_* line of pc_sampling.py" % kernel)
    runs = [(label, json.load(open(path))) for label, path in
            (("untraced", args.plain), ("traced", args.traced_plain),
             ("traced --pc-sampling", args.traced)) if path]
    if len(runs) > 1:
        base = runs[0][1]["seconds"]
        for k in sorted(base):
            print("%s: %s" % (k, ", ".join(
                "%s %.3f ms (%.3fx)" % (label, run["seconds"][k] * 1e3,
                                        run["seconds"][k] / max(base[k], 1e-12))
                for label, run in runs)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folded", required=True)
    ap.add_argument("--tally", required=True)
    ap.add_argument("--report")
    ap.add_argument("--pc-sampling", action="store_true")
    ap.add_argument("--plain", help="the untraced run's manifest")
    ap.add_argument("--traced-plain", help="the traced run's without --pc-sampling")
    ap.add_argument("--traced", help="the run's under --pc-sampling")
    args = ap.parse_args()
    problems = []
    (pc_sampling if args.pc_sampling else ddp)(args, problems)
    for p in problems:
        print("problem:", p)
    print("ok" if not problems else "%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
