#!/usr/bin/env python3
"""An app's own count of its kernels (and copies, and calls) against the tracer's tally.

    check_counts.py EXPECTED TRACER_JSON [--exact] [--transfers] [--calls BACKEND]
                    [--ignore-calls NAME,...]

EXPECTED: JSON with "kernels": {name: launches}; tests/apps/manifest.h's form
($APP_MANIFEST) also has "transfers", "bytes" and "calls". TRACER_JSON: `tracer -j` tally.
Checks that each expected kernel has a device row of that name with that many calls.
--exact: a kernel row the app did not launch is a failure too (by default other kernels,
such as PyTorch's, are listed only). --transfers: copies by name with their counts and
bytes. --calls BACKEND: host calls of that backend (cudart) by name and count, except
--ignore-calls (calls the app makes but does not count, such as one failing on purpose).
Prints every device row, then one line per difference. Exit status: 0 when all agree,
1 when not, 2 on bad input.
"""
import argparse
import sys

from tally_json import load, rows_by_name

PROGRAM = "check_counts.py"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("expected")
    parser.add_argument("tracer_json")
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--transfers", action="store_true")
    parser.add_argument("--calls", metavar="BACKEND")
    parser.add_argument("--ignore-calls", default="", metavar="NAME,...")
    args = parser.parse_args()

    expected = load(args.expected, "expected counts", PROGRAM)
    if not isinstance(expected, dict) or not isinstance(expected.get("kernels"), dict):
        print(f"{PROGRAM}: {args.expected} has no \"kernels\" object", file=sys.stderr)
        return 2
    tally = load(args.tracer_json, "tracer tally", PROGRAM)
    device = rows_by_name(tally, args.tracer_json, PROGRAM, "device")
    traffic = rows_by_name(tally, args.tracer_json, PROGRAM, "traffic")

    print("device rows in the tally (backend, kind, calls, total ms, name):")
    for name, rows in sorted(device.items(), key=lambda item: str(item[0])):
        for row in rows:
            print(f"  {row['backend']:<7} {row.get('kind', '?'):<8} {row.get('calls', 0):>6} "
                  f"{row.get('time_ns', 0) / 1e6:>10.4f}  {name}")

    differences = []

    def calls_of(rows, kind=None):
        rows = [r for r in rows if kind is None or r.get("kind") == kind]
        return sum(r.get("calls", 0) for r in rows) if rows else None

    for name, launches in expected["kernels"].items():
        got = calls_of(device.get(name, []), "kernel")
        if got != launches:
            differences.append(f"kernel {name}: tally {got if got is not None else 'absent'}, "
                               f"the app launched {launches}")
    if args.exact:
        for name, rows in device.items():
            got = calls_of(rows, "kernel")
            if got and name not in expected["kernels"]:
                differences.append(f"kernel {name}: tally {got}, the app launched none")
    if args.transfers:
        for name, count in (expected.get("transfers") or {}).items():
            got = calls_of(device.get(name, []), "transfer")
            if got != count:
                differences.append(f"transfer {name}: tally {got if got is not None else 'absent'}"
                                   f", the app made {count}")
        for name, moved in (expected.get("bytes") or {}).items():
            rows = traffic.get(name, [])
            got = sum(r.get("bytes", 0) for r in rows) if rows else None
            if got != moved:
                differences.append(f"traffic {name}: tally {got if got is not None else 'absent'}"
                                   f" bytes, the app moved {moved}")
    if args.calls:
        host = rows_by_name(tally, args.tracer_json, PROGRAM, "host", backend=args.calls)
        ignored = {n for n in args.ignore_calls.split(",") if n}
        made = expected.get("calls") or {}
        for name, count in made.items():
            got = calls_of(host.get(name, []))
            if got != count:
                differences.append(f"{args.calls} call {name}: tally "
                                   f"{got if got is not None else 'absent'}, the app made {count}")
        for name, rows in host.items():
            if name not in made and name not in ignored:
                differences.append(f"{args.calls} call {name}: tally {calls_of(rows)}, "
                                   "the app made none")

    for line in differences:
        print(line)
    checked = "kernels" + (", transfers" if args.transfers else "") + \
        (f", {args.calls} calls" if args.calls else "")
    print(f"{PROGRAM}: {checked}: " +
          ("all agree" if not differences else f"{len(differences)} difference(s)"))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
