"""Checks the stacks of submissions against what the app did (tests/stacks/stacks_test.sh).

Usage: stacks_check.py --folded FILE --tally JSON [--expect JSON] [--native K=F1,F2,...]
                       [--text FILE] [--report FILE] [--svg FILE] [--svg-folded FILE]
                       [--timeline JSON] [--stack-events FILE]

--expect is the app's own account (stacks_pyopencl.py, stacks_ctypes.py): per kernel its
launches and the Python frames (file, line, function) that must be on its stacks; --native
names native frames that must be on the stacks of kernel K, outermost first. Checks:
  - every device line of kernel K holds K's frames, in that order (Python frames as
    `FILE:LINE FUNCTION`, the function as Python names it: qualified from 3.11);
  - per kernel, the lines ending in it add up to the tally's device time; the lines
    through each expected frame add up to the tally's time of the kernels expected under
    it (a Python function's width is the device time it launched);
  - -t (--text): as many `at FILE:LINE FUNCTION` lines for each kernel's innermost frame
    of the app as it launched;
  - with --expect (Python), no frame of Python's interpreter on a device line (`_Py...`,
    `PyEval_...`, `PyObject_...`, or an unnamed frame in python3.X or libpython): its C
    frames are folded away;
  - the report (--report): a "Top source lines" row for each kernel's launching line;
  - the timeline (--timeline, Chrome JSON): as many slices whose `stack` argument holds
    each kernel's launching line as it launched;
  - the trace's stack events (--stack-events, babeltrace2's lines of
    lttng_ust_tracer:stack): each id written once; each kernel's launching line in as
    many stack events as the folded file has distinct device stacks for it, fewer than
    its launches (repeated launches from one place refer to the stack by its id);
  - the SVG (--svg, drawn from --svg-folded): each frame's rectangle is its weight wide
    (weight * (width - 2 * margin) / total), and each frame's weight is what the folded
    lines through it add up to.
Prints `ok: ...` and exits 0, or each difference and exits 1."""

import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

SVG = "{http://www.w3.org/2000/svg}"


def read_folded(path):
    lines = []
    with open(path) as f:
        for line in f:
            stack, _, weight = line.rstrip("\n").rpartition(" ")
            lines.append((stack.split(";"), int(weight)))
    return lines


def subsequence(want, frames):
    """Index in frames after want matched in order, or -1."""
    i = 0
    for w in want:
        while i < len(frames) and not w(frames[i]):
            i += 1
        if i == len(frames):
            return -1
        i += 1
    return i


def python_matcher(frame):
    base = os.path.basename(frame["file"])
    qualified = frame["function"]
    plain = qualified.rsplit(".", 1)[-1]
    labels = {"%s:%d %s" % (base, frame["line"], qualified), "%s:%d %s" % (base, frame["line"], plain)}
    m = lambda f: f in labels
    m.text = "%s:%d %s" % (base, frame["line"], qualified)
    m.frame = frame
    return m


def native_matcher(name):
    m = lambda f: f == name
    m.text = name
    return m


def check_svg(svg_path, folded_path, problems):
    root = ET.parse(svg_path).getroot()
    width = float(root.get("width"))
    pad = float(root.get("data-pad"))
    total = int(root.get("data-total"))
    scale = (width - 2 * pad) / total if total else 0
    # What the folded lines add up to through each path from the root.
    through = Counter()
    for frames, weight in read_folded(folded_path):
        for i in range(len(frames)):
            through[tuple(frames[:i + 1])] += weight
    frames = []
    for g in root.iter(SVG + "g"):
        if g.get("class") != "f":
            continue
        rect = g.find(SVG + "rect")
        x, w, d = int(g.get("data-x")), int(g.get("data-w")), int(g.get("data-d"))
        frames.append((d, x, w, g.get("data-n"), float(rect.get("width")), float(rect.get("x"))))
        if abs(float(rect.get("width")) - w * scale) > 0.002:
            problems.append("svg: %s is %s px wide, its weight %d makes %.3f" %
                            (g.get("data-n"), rect.get("width"), w, w * scale))
        if abs(float(rect.get("x")) - (pad + x * scale)) > 0.002:
            problems.append("svg: %s starts at %s px, its offset %d makes %.3f" %
                            (g.get("data-n"), rect.get("x"), x, pad + x * scale))
    by_depth = defaultdict(list)
    for f in frames:
        by_depth[f[0]].append(f)
    if [f[3] for f in by_depth[0]] != ["all"] or by_depth[0][0][2] != total:
        problems.append("svg: the root is not `all` of the whole weight %d" % total)
    checked = 0
    for d, x, w, name, _, _ in frames:
        if d == 0:
            continue
        path = [name]
        px, pd = x, d
        while pd > 1:  # the enclosing frame one level down holds this one's span
            parent = [f for f in by_depth[pd - 1] if f[1] <= px and px < f[1] + f[2]]
            if len(parent) != 1:
                problems.append("svg: %s at depth %d has %d parents" % (name, pd, len(parent)))
                break
            path.insert(0, parent[0][3])
            px, pd = parent[0][1], pd - 1
        if through[tuple(path)] != w:
            problems.append("svg: %s weighs %d, the folded lines through it %d" %
                            (";".join(path), w, through[tuple(path)]))
        checked += 1
    return checked


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folded", required=True)
    ap.add_argument("--tally", required=True)
    ap.add_argument("--expect")
    ap.add_argument("--native", action="append", default=[])
    ap.add_argument("--text")
    ap.add_argument("--report")
    ap.add_argument("--svg")
    ap.add_argument("--svg-folded")
    ap.add_argument("--timeline")
    ap.add_argument("--stack-events")
    args = ap.parse_args()
    problems = []
    with open(args.tally) as f:
        tally = json.load(f)
    kernels = Counter()
    for b in tally["backends"]:
        for row in b.get("device", []):
            kernels[row["name"]] += row["time_ns"]
    device = read_folded(args.folded)

    want = defaultdict(list)  # kernel -> matchers, outermost first
    launches = {}
    sources = {}  # kernel -> the app's innermost frame (its launching line)
    if args.expect:
        with open(args.expect) as f:
            expect = json.load(f)
        for k, e in expect.items():
            if not isinstance(e, dict):
                continue
            frames = e.get("frames") or [{"file": e["file"], "line": e["line"],
                                          "function": e["function"]}]
            want[k] = [python_matcher(fr) for fr in reversed(frames)]
            launches[k] = e["launches"]
            sources[k] = python_matcher(frames[0])
    for spec in args.native:
        k, _, names = spec.partition("=")
        want[k] += [native_matcher(n) for n in names.split(",")]
        sources.setdefault(k, native_matcher(names.split(",")[-1]))

    for k, matchers in want.items():
        lines = [(fr, w) for fr, w in device if len(fr) >= 2 and fr[-2] == "-" and fr[-1] == k]
        if not lines:
            problems.append("kernel %s: no device line" % k)
        for fr, w in lines:
            if subsequence(matchers, fr) < 0:
                problems.append("kernel %s: the line %s lacks %s" %
                                (k, ";".join(fr), ";".join(m.text for m in matchers)))
        got = sum(w for _, w in lines)
        if got != kernels[k]:
            problems.append("kernel %s: %d ns in the stacks, the tally counts %d" % (k, got, kernels[k]))
    # A frame's width: the device time of the kernels launched from under it, no more.
    under = defaultdict(set)  # frame -> the kernels whose stacks hold it
    matcher_of = {}
    for k, matchers in want.items():
        for m in matchers:
            under[m.text].add(k)
            matcher_of[m.text] = m
    for text, ks in sorted(under.items()):
        m = matcher_of[text]
        through = sum(w for fr, w in device if any(m(x) for x in fr))
        expected = sum(kernels[k] for k in ks)
        if through != expected:
            problems.append("frame %s: %d ns under it, the tally counts %d for %s" %
                            (text, through, expected, "+".join(sorted(ks))))

    if args.text:
        text = open(args.text).read()
        per_line = defaultdict(list)  # the app's launching line -> its kernels
        for k, m in sources.items():
            if k in launches and hasattr(m, "frame"):
                per_line[m.text].append(k)
        for label, ks in per_line.items():
            fr = sources[ks[0]].frame
            pattern = re.compile(r"^    at %s:%d (%s|%s)$" % (re.escape(fr["file"]), fr["line"],
                                                           re.escape(fr["function"]),
                                                           re.escape(fr["function"].rsplit(".", 1)[-1])),
                                 re.M)
            n = len(pattern.findall(text))
            if n != sum(launches[k] for k in ks):
                problems.append("-t: %d lines `at %s:%d`, the app launched %s %d times from it" %
                                (n, fr["file"], fr["line"], "+".join(ks),
                                 sum(launches[k] for k in ks)))
    if args.report:
        report = open(args.report).read()
        if "Top source lines" not in report:
            problems.append("report: no Top source lines table")
        for k, m in sources.items():
            rows = [l for l in report.splitlines() if l.startswith(m.text) and k in l]
            if not rows:
                problems.append("report: no source row %s launching %s" % (m.text, k))
    if args.expect:
        # The eval loop and the calls through it (a binding's own functions, such as
        # _ctypes' PyCFuncPtr_call, are not the interpreter's and stay).
        interpreter = re.compile(r"^(_Py|PyEval_|PyObject_|PyVectorcall_|"
                                 r"(lib)?python3[0-9.]*(\.so[0-9.]*)?\+0x)")
        for fr, _ in device:
            if "-" in fr and any(interpreter.match(x) for x in fr[:fr.index("-")]):
                problems.append("an interpreter frame on %s" % ";".join(fr))
                break
    if args.timeline:
        with open(args.timeline) as f:
            events = json.load(f)
        if isinstance(events, dict):
            events = events.get("traceEvents", [])
        stacks = [e["args"]["stack"].split("\n") for e in events
                  if isinstance(e.get("args"), dict) and "stack" in e["args"]]
        for k, m in sources.items():
            if k not in launches:
                continue
            n = sum(1 for st in stacks if any(m(x) for x in st))
            if n != launches[k]:
                problems.append("timeline: %d slices with %s in their stack, the app launched %s %d times" %
                                (n, m.text, k, launches[k]))
    if args.stack_events:
        ids = Counter()
        places = []  # each stack event's Python frames, as `FILE:LINE FUNCTION`
        for line in open(args.stack_events):
            if "lttng_ust_tracer:stack:" not in line:
                continue
            found = re.search(r"\bid = (0x[0-9A-Fa-f]+)", line)
            ids[found.group(1) if found else line] += 1
            python = re.search(r'python = "(.*?)(?<!\\)"', line)
            frames = []
            for f in (python.group(1).split("\\n") if python else []):
                parts = f.split("\\t")
                if len(parts) == 3 and parts[0].isdigit():
                    frames.append("%s:%s %s" % (os.path.basename(parts[2]), parts[0], parts[1]))
            places.append(frames)
        twice = [i for i, n in ids.items() if n > 1]
        if not ids or twice:
            problems.append("stack events: %d, written more than once: %s" % (sum(ids.values()), twice))
        for k, m in sources.items():
            if k not in launches:
                continue
            n = sum(1 for frames in places if any(m(x) for x in frames))
            lines = {tuple(fr[:-2]) for fr, _ in device if len(fr) >= 2 and fr[-2] == "-" and fr[-1] == k}
            if n != len(lines) or n >= launches[k]:
                problems.append("stack events: %d hold %s, the folded file has %d stacks of %s, "
                                "launched %d times" % (n, m.text, len(lines), k, launches[k]))
    svg_frames = 0
    if args.svg:
        svg_frames = check_svg(args.svg, args.svg_folded or args.folded, problems)

    if problems:
        for p in problems:
            print(p)
        return 1
    print("ok: %d kernels, %d device stacks%s" %
          (len(want), len(device), ", %d SVG frames" % svg_frames if args.svg else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
