#!/usr/bin/python3
"""The tracer's counts and errors of a backend against ltrace's, call by call.

Usage: ltrace_compare.py MODEL LTRACE TALLY_JSON EXPORTS_MAP [LIBRARY]

MODEL is the backend's model.yaml (each function's status rule), LTRACE the output of
`ltrace -e '*@MAIN' -o LTRACE PROGRAM` (every call the program made itself, with what it
returned), TALLY_JSON `tracer -j`'s tallies of the same program, EXPORTS_MAP the
interposer's export map (the functions it wraps). For each wrapped function the program
called, the tracer's count must be ltrace's, and its count of errors must be the number
of ltrace's return values that the model's rule calls errors; a rule that asks the
library's own test (is_error) calls that function of LIBRARY (its path or soname) on the
value, through ctypes. ltrace prints a result as the low 32 bits of an int, which is what
a record keeps too. Prints one line per function; exits 1 on any difference.
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


def main():
    model_path, ltrace_path, tally_path, exports_path = sys.argv[1:5]
    model = yaml.safe_load(open(model_path))
    library = ctypes.CDLL(sys.argv[5]) if len(sys.argv) > 5 else None
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
        bad += not ok
        checked += 1
        print("%s %s: ltrace %d calls, %d errors by the rule; tracer %d calls, %d errors" %
              ("ok  " if ok else "DIFF", name, len(values), expected, got_calls, got_errors))
    if checked == 0:
        print("DIFF: ltrace saw no call of a wrapped function")
        return 1
    print("%d functions: %s" % (checked, "the same counts and errors" if not bad else
                                "%d differ" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
