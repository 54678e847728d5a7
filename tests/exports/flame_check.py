"""Checks the folded stacks the tracer wrote (--flame FILE: FILE by device time, its host
twin by the time in API calls) against the tally of the same trace (-j).

Usage: flame_check.py FILE HOST_FILE TALLY_JSON [--ranks N]

Checks, against the tally:
  - both files are folded stacks: `frame;frame;... weight`, one line per distinct stack;
  - device time: every line ends `...;-;NAME`, and per device row of the tally, the lines
    ending in its name add up to its time; the frame before `-` is an API function of
    the tally (the submitting call) or the root; the file's total is the tally's;
  - host time: per API function of the tally, the lines holding it add up to its time
    (a frame's width is the whole time of its calls: each line weighs the time its last
    call spent outside the traced calls it made);
  - with --ranks N: the roots are ranks `rank 0` .. `rank N-1` (those traced).
Prints `ok: ...` and exits 0, or each difference and exits 1."""

import argparse
import json
import sys
from collections import Counter


def read(path, problems):
    lines = []
    seen = set()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            stack, _, weight = line.rstrip("\n").rpartition(" ")
            if not stack or not weight.isdigit() or int(weight) == 0:
                problems.append("%s:%d: not `frames weight`: %r" % (path, n, line))
                continue
            if stack in seen:
                problems.append("%s:%d: the stack is on another line too" % (path, n))
            seen.add(stack)
            lines.append((stack.split(";"), int(weight)))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("device")
    ap.add_argument("host")
    ap.add_argument("tally")
    ap.add_argument("--ranks", type=int, default=0)
    args = ap.parse_args()
    with open(args.tally) as f:
        tally = json.load(f)
    problems = []
    device = read(args.device, problems)
    host = read(args.host, problems)

    functions = Counter()
    kernels = Counter()
    for b in tally["backends"]:
        # Every call the trace has: the app's, and those made inside other APIs' calls,
        # which the tally sets apart (inside_other) and the stacks show under their call.
        for row in b["host"] + b.get("inside_other", []):
            functions[row["name"]] += row["time_ns"]
        for row in b.get("device", []):
            kernels[row["name"]] += row["time_ns"]

    got = Counter()
    for frames, weight in device:
        if len(frames) < 3 or frames[-2] != "-":
            problems.append("device line without `-` before its command: %s" % ";".join(frames))
            continue
        got[frames[-1]] += weight
        if len(frames) > 3 and frames[-3] not in functions:
            problems.append("device line whose call %s the tally does not count" % frames[-3])
    for name in sorted(set(kernels) | set(got)):
        if got[name] != kernels[name]:
            problems.append("device %s: %d ns in the stacks, the tally counts %d"
                            % (name, got[name], kernels[name]))

    inclusive = Counter()
    for frames, weight in host:
        for name in set(frames[1:]):
            inclusive[name] += weight
    for name in sorted(functions):
        if inclusive[name] != functions[name]:
            problems.append("host %s: %d ns in the stacks holding it, the tally counts %d"
                            % (name, inclusive[name], functions[name]))

    if args.ranks:
        roots = {frames[0] for frames, _ in host + device}
        want = {"rank %d" % r for r in range(args.ranks)}
        if not roots or not roots <= want:
            problems.append("roots %s, expected ranks among %s" % (sorted(roots), sorted(want)))

    if problems:
        for p in problems:
            print(p)
        return 1
    print("ok: %d device stacks (%d ns), %d host stacks (%d ns)"
          % (len(device), sum(w for _, w in device), len(host), sum(w for _, w in host)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
