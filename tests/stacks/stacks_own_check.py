"""The native frames of a traced run read as the app's code (tests/stacks/stacks_test.sh,
case cudart): no frame of the tracer's own objects (libtracer_*.so: the runtime, every
interposer) nor of the objects named by --foreign (the vendor runtime whose internals
lie between an outer traced call and the inner one), the app's frames kept.

  --events FILE   babeltrace2's text of the trace's lttng_ust_tracer:object, :stack and
                  :device_command events
  --app PATH      the app: each stack's innermost frame lies in it (every submission of
                  the app is made by its own code)
  --foreign RE    a regular expression on an object's file name (repeatable)
  --text FILE     `tracer -t`: each submission's `at` line names FUNCTION in SOURCE, at a
                  line of SOURCE that calls one of --calls
  --source FILE, --function NAME, --calls RE

Exit 0 when all hold; else each finding on a line, exit 1.
"""
import argparse
import os
import re
import sys

OBJECT = re.compile(r'lttng_ust_tracer:object: .*path = "([^"]*)".*start = (0x[0-9A-Fa-f]+), '
                    r'end = (0x[0-9A-Fa-f]+)')
STACK = re.compile(r'lttng_ust_tracer:stack: .*id = (0x[0-9A-Fa-f]+),.*native = \[(.*)\], flags')
PC = re.compile(r'\[\d+\] = (0x[0-9A-Fa-f]+)')
AT = re.compile(r'^\s+at (\S+) \((.*):(\d+)\)$')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", required=True)
    ap.add_argument("--app", required=True)
    ap.add_argument("--foreign", action="append", default=[])
    ap.add_argument("--text", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--function", required=True)
    ap.add_argument("--calls", required=True)
    args = ap.parse_args()
    problems = []
    objects, stacks, commands = [], [], 0
    with open(args.events) as f:
        for line in f:
            m = OBJECT.search(line)
            if m:
                objects.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1)))
                continue
            m = STACK.search(line)
            if m:
                stacks.append((m.group(1), [int(pc, 16) for pc in PC.findall(m.group(2))]))
                continue
            if "lttng_ust_tracer:device_command:" in line:
                commands += 1

    def object_of(pc):
        for lo, hi, path in objects:
            if lo <= pc < hi:
                return path
        return None

    foreign = [re.compile(r"libtracer_")] + [re.compile(r) for r in args.foreign]
    app = os.path.realpath(args.app)
    if not stacks:
        problems.append("no stack event in the trace")
    for stack_id, pcs in stacks:
        if not pcs:
            problems.append("stack %s has no native frame" % stack_id)
            continue
        for i, pc in enumerate(pcs):
            path = object_of(pc)
            if path is None:
                problems.append("stack %s: frame %d (%#x) lies in no object written" % (stack_id, i, pc))
            elif any(r.search(os.path.basename(path)) for r in foreign):
                problems.append("stack %s: frame %d (%#x) lies in %s" % (stack_id, i, pc, path))
        inner = object_of(pcs[0])
        if inner is not None and os.path.realpath(inner) != app:
            problems.append("stack %s: its innermost frame lies in %s, not in the app" % (stack_id, inner))

    # The source lines that call one of the submitting functions.
    calls = re.compile(args.calls)
    with open(args.source) as f:
        calling = {n for n, text in enumerate(f, 1) if calls.search(text)}
    ats = 0
    with open(args.text) as f:
        for line in f:
            m = AT.match(line.rstrip("\n"))
            if not m:
                continue
            ats += 1
            name, source, number = m.group(1), m.group(2), int(m.group(3))
            if name != args.function or os.path.basename(source) != os.path.basename(args.source):
                problems.append("-t names %s (%s:%d), not %s in %s" % (
                    name, source, number, args.function, os.path.basename(args.source)))
            elif number not in calling:
                problems.append("-t names %s:%d, a line that calls none of %s" % (
                    source, number, args.calls))
    if ats != commands:
        problems.append("-t has %d `at` lines, the trace %d device commands (one a submission)"
                        % (ats, commands))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
