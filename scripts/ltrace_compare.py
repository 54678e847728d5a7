#!/usr/bin/python3
"""The tracer's counts and errors of a backend against ltrace's, call by call.

Usage: ltrace_compare.py [--documented FILE] MODEL LTRACE TALLY_JSON EXPORTS_MAP [LIBRARY]

MODEL is the backend's model.yaml (each function's status rule), LTRACE the output of
`ltrace -e '*@MAIN' -o LTRACE PROGRAM` (every call the program made itself, with what it
returned), TALLY_JSON `tracer -j`'s tallies of the same program, EXPORTS_MAP the
interposer's export map (the functions it wraps). For each wrapped function the program
called, the tracer's count must be ltrace's, and its count of errors must be the number
of ltrace's return values that the model's rule calls errors; a rule that asks the
library's own test (is_error) calls that function of LIBRARY (its path or soname) on the
value, through ctypes. ltrace prints a result as the low 32 bits of an int, which is what
a record keeps too. Prints one line per function, with the values ltrace saw; exits 1 on
any difference.

--documented FILE checks the model's rules too: FILE (YAML) says, for every wrapped
function the program calls, what its library's documentation calls an error, written by a
person who read it, not by apigen: `none` (no status: void, a pointer, a size, a boolean
answer), `negative`, `zero`, `nonzero`, a list of values or ranges (`[-1]`, `[5..11]`),
or a mapping {error: ..., success: [...], is_error: TEST}. The tracer's count of errors
must then be the number of ltrace's values that the documentation calls errors.
"""
import ctypes
import json
import re
import sys
from collections import defaultdict

import yaml

LINE = re.compile(r"^(?:\[pid \d+\] )?\S+?->([A-Za-z_][A-Za-z0-9_]*)\(.*\) += (\S+)")
RESUMED = re.compile(r"^(?:\[pid \d+\] )?<\.\.\. ([A-Za-z_][A-Za-z0-9_]*) resumed>.* += (\S+)")
UNFINISHED = re.compile(r"^(?:\[pid \d+\] )?\S+?->([A-Za-z_][A-Za-z0-9_]*)\(.*<unfinished \.\.\.>")


def ltrace_calls(path):
    calls = defaultdict(list)  # name -> [return value or None]
    for line in open(path, encoding="utf-8", errors="replace"):
        m = LINE.match(line) or RESUMED.match(line)
        if m:
            calls[m.group(1)].append(value(m.group(2)))
        elif UNFINISHED.match(line):
            pass  # counted when it resumes
    return calls


def value(text):
    try:
        v = int(text, 0)
    except ValueError:
        return None  # nil, a string: no number
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def failed(status, v, library):
    """The tracer's rule (cli/model/event_map.h) on the status as a record keeps it."""
    if v is None:
        return False
    if status.get("is_error"):
        test = getattr(library, status["is_error"])
        test.argtypes = [ctypes.c_size_t]
        return bool(test(v & 0xFFFFFFFFFFFFFFFF))
    if v in status.get("success", []) or v in status.get("not_ready", []):
        return False
    ranges = [(lo, hi, False) for lo, hi in status.get("success_ranges", [])]
    ranges += [(lo, hi, True) for lo, hi in status.get("errors", [])]
    for lo, hi, error in ranges:
        if lo <= v <= hi:
            return error
    return not any(error for _, _, error in ranges)


def documented_status(rule):
    """A documented rule (see --documented) as a model's status, None for `none`."""
    if rule in (None, "none"):
        return None
    if not isinstance(rule, dict):
        rule = {"error": rule}
    status = {}
    if rule.get("is_error"):
        status["is_error"] = rule["is_error"]
    error = rule.get("error", [])
    for item in error if isinstance(error, list) else [error]:
        status.setdefault("errors", []).extend(ranges_of(item))
    status["success"] = rule.get("success", [])
    return status


def ranges_of(item):
    words = {"negative": [(-(1 << 63), -1)], "zero": [(0, 0)],
             "nonzero": [(-(1 << 63), -1), (1, (1 << 63) - 1)], "positive": [(1, (1 << 63) - 1)]}
    if isinstance(item, int):
        return [(item, item)]
    if item in words:
        return words[item]
    low, high = str(item).split("..")
    return [(int(low, 0) if low else -(1 << 63), int(high, 0) if high else (1 << 63) - 1)]


def spread(values):
    """ltrace's values, most frequent first: `1 x2000, -1 x3`."""
    counts = defaultdict(int)
    for v in values:
        counts[v] += 1
    ordered = sorted(counts.items(), key=lambda kv: -kv[1])
    text = ", ".join("%s x%d" % ("?" if v is None else v, n) for v, n in ordered[:4])
    return text + (", ..." if len(ordered) > 4 else "")


def main():
    args = sys.argv[1:]
    documented, documented_path = None, None
    if args[:1] == ["--documented"]:
        documented_path = args[1]
        documented = yaml.safe_load(open(documented_path)) or {}
        args = args[2:]
    model_path, ltrace_path, tally_path, exports_path = args[:4]
    model = yaml.safe_load(open(model_path))
    library = ctypes.CDLL(args[4]) if len(args) > 4 else None
    statuses = {f["name"]: f.get("status") for f in model["functions"]}
    wrapped = set(re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_]*);", open(exports_path).read(), re.M))
    tally = json.load(open(tally_path))
    rows = {}
    for b in tally.get("backends", []):
        if b.get("name") == model["backend"]:
            for row in b.get("host", []):
                rows[row["name"]] = row
    calls = ltrace_calls(ltrace_path)
    bad = 0
    checked = 0
    for name in sorted(set(calls) & wrapped):
        values = calls[name]
        row = rows.get(name, {})
        status = statuses.get(name)
        expected = sum(failed(status, v, library) for v in values) if status else 0
        got_calls, got_errors = row.get("calls", 0), row.get("errors", 0) or 0
        ok = got_calls == len(values) and got_errors == expected
        by_docs = ""
        if documented is not None:
            if name not in documented:
                ok = False
                by_docs = ", but %s says nothing of it" % documented_path
            else:
                rule = documented_status(documented[name])
                truth = sum(failed(rule, v, library) for v in values) if rule else 0
                ok = ok and got_errors == truth
                by_docs = ", %d by the documentation" % truth
        bad += not ok
        checked += 1
        print("%s %s: ltrace %d calls (%s), %d errors by the model's rule%s; tracer %d calls, "
              "%d errors" % ("ok  " if ok else "DIFF", name, len(values), spread(values),
                             expected, by_docs, got_calls, got_errors))
    if checked == 0:
        print("DIFF: ltrace saw no call of a wrapped function")
        return 1
    print("%d functions: %s" % (checked, "the same counts and errors" if not bad else
                                "%d differ" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
