#!/usr/bin/python3
"""The status rules `apigen --init` inferred against what a library's documentation says.

Usage: init_rules.py MODEL DOCUMENTED LIBRARY

MODEL is the model apigen made from the --init spec, DOCUMENTED the hand-written rules of
tests/corpus/init/documented/ (scripts/ltrace_compare.py says how they are written),
LIBRARY the library's soname (for the rules that call its own test). For each documented
function, both rules judge every status a record can keep in -4200..4200 and the 32-bit
extremes; the rules agree when they call the same of them errors. Prints one line per
function that disagrees, then `rules: AGREE/TOTAL`.
"""
import ctypes
import os
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from ltrace_compare import documented_status, failed  # noqa: E402

VALUES = list(range(-4200, 4201)) + [-(1 << 31), (1 << 31) - 1]


def main():
    model_path, documented_path, library_name = sys.argv[1:4]
    model = yaml.safe_load(open(model_path))
    documented = yaml.safe_load(open(documented_path)) or {}
    library = ctypes.CDLL(library_name)
    statuses = {f["name"]: f.get("status") for f in model["functions"]}
    agree = 0
    for name, rule in sorted(documented.items()):
        truth = documented_status(rule)
        inferred = statuses.get(name)
        wrong = [v for v in VALUES
                 if (failed(inferred, v, library) if inferred else False)
                 != (failed(truth, v, library) if truth else False)]
        if wrong:
            print("differs %s: inferred %s, documented %s; first value judged otherwise: %d "
                  "(%d of %d values)" % (name, inferred, rule, wrong[0], len(wrong), len(VALUES)))
        else:
            agree += 1
    print("rules: %d/%d" % (agree, len(documented)))


if __name__ == "__main__":
    main()
