"""The top source lines of a job's report against its ranks' (tests/stacks/stacks_job_test.sh).

usage: stacks_job_check.py --job REPORT --rank REPORT RESULT EXPECT [--rank ...]

REPORT is a text report (the job's, or `tracer -r JOB/rank-N`'s), RESULT the rank's saved
result (JOB/rank-N/tracer-result.txt: its `st`, `sl` and `sk` lines), EXPECT what the rank's
program says it did (stacks_ranks.py). Each row of the job's table must be the sum of the
ranks' rows of that line: its commands equal to the sum of theirs and to the launches the
programs made from it; its device time, as printed, the sum of the ranks' exact times from
their results (and within the rounding of the ranks' printed times); Ranks the number of
ranks whose table has the line (and whose program launched from it); Most (rank) the time
that rank's own table prints, the largest of them; its kernels those the ranks' rows name.
The title's total is the sum of the ranks' totals. Prints what differs; exit status 1 then.
"""
import argparse
import json
import re
import sys

UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9}


def units_time(ns):
    """As the tracer prints a time (cli/reports/units.c)."""
    if ns < 1000:
        return "%dns" % ns
    if ns < 1000000:
        return "%.2fus" % (ns / 1e3)
    if ns < 1000000000:
        return "%.2fms" % (ns / 1e6)
    if ns < 60000000000:
        return "%.2fs" % (ns / 1e9)
    return "%.2fmin" % (ns / 60e9)


def parse_time(text):
    """A printed time in ns, and half its last digit (its rounding)."""
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s|min)", text.strip())
    if not m:
        raise SystemExit("not a time: %r" % text)
    unit = UNITS[m.group(2)]
    half = 0.5 if m.group(2) == "ns" else 0.005 * unit
    return float(m.group(1)) * unit, half


def table(path):
    """The report's Top source lines: its total, and its rows by source."""
    lines = open(path).read().split("\n")
    at = [i for i, l in enumerate(lines) if l.startswith("Top source lines, by the device time")]
    if len(at) != 1:
        return None
    title = lines[at[0]]
    total = re.search(r"\| (\S+) of device time", title).group(1)
    header = [c.strip() for c in lines[at[0] + 2].split("|")]
    rows = {}
    for line in lines[at[0] + 3:]:
        if not line.strip() or line.startswith("("):
            break
        cells = [c.strip() for c in line.split("|")]
        row = dict(zip(header, cells))
        row["kernels"] = {k.rsplit(" (", 1)[0] for k in row[header[-1]].split(", ")}
        rows[row["Source"]] = row
    return {"total": total, "rows": rows, "header": header}


def saved_lines(path):
    """A rank's saved result: its total device time, and each line's exact time by label."""
    total, by_label = None, {}
    for line in open(path):
        if line.startswith("st "):
            stacked, other = line.split()[1:3]
            total = int(stacked) + int(other)
        elif line.startswith("sl "):
            numbers, _file, _function, label = line.rstrip("\n").split("\t")
            by_label[label] = int(numbers.split()[3])
    return total, by_label


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--job", required=True)
    ap.add_argument("--rank", nargs=3, action="append", required=True,
                    metavar=("REPORT", "RESULT", "EXPECT"))
    a = ap.parse_args()
    problems = []
    job = table(a.job)
    if not job:
        raise SystemExit("%s: no Top source lines table" % a.job)
    for column in ("Ranks", "Most (rank)"):
        if column not in job["header"]:
            problems.append("the job's table has no column %r: %s" % (column, job["header"]))
    ranks = []
    for report, result, expect in a.rank:
        t = table(report)
        if not t:
            raise SystemExit("%s: no Top source lines table" % report)
        total, exact = saved_lines(result)
        did = json.load(open(expect))
        launched = {"%s:%d %s" % (l["file"].rsplit("/", 1)[-1], l["line"], l["function"]):
                    l["launches"] for l in did["lines"]}
        ranks.append({"rank": did["rank"], "table": t, "total": total, "exact": exact,
                      "launched": launched})
    # Each rank's own table is what its program did: its lines, their commands.
    for r in ranks:
        if set(r["table"]["rows"]) != set(r["launched"]):
            problems.append("rank %d's table has lines %s, its program launched from %s" %
                            (r["rank"], sorted(r["table"]["rows"]), sorted(r["launched"])))
        for source, row in r["table"]["rows"].items():
            made = sum(r["launched"].get(source, {}).values())
            if int(row["Commands"]) != made:
                problems.append("rank %d, %s: %s commands, its program made %d" %
                                (r["rank"], source, row["Commands"], made))
    sources = set().union(*(r["table"]["rows"] for r in ranks))
    if set(job["rows"]) != sources:
        problems.append("the job's table has lines %s, the ranks' %s" %
                        (sorted(job["rows"]), sorted(sources)))
    for source in sorted(sources & set(job["rows"])):
        row = job["rows"][source]
        having = [r for r in ranks if source in r["table"]["rows"]]
        commands = sum(int(r["table"]["rows"][source]["Commands"]) for r in having)
        made = sum(sum(r["launched"].get(source, {}).values()) for r in ranks)
        if not int(row["Commands"]) == commands == made:
            problems.append("%s: the job has %s commands, its ranks' tables %d, their programs "
                            "made %d" % (source, row["Commands"], commands, made))
        if int(row["Ranks"]) != len(having):
            problems.append("%s: the job says %s ranks, %d ranks' tables have it" %
                            (source, row["Ranks"], len(having)))
        exact = sum(r["exact"][source] for r in having)
        if row["Device time"] != units_time(exact):
            problems.append("%s: the job prints %s, the ranks' results add up to %d ns (%s)" %
                            (source, row["Device time"], exact, units_time(exact)))
        printed, slack = parse_time(row["Device time"])
        parts = [parse_time(r["table"]["rows"][source]["Device time"]) for r in having]
        if abs(printed - sum(p for p, _ in parts)) > slack + sum(h for _, h in parts):
            problems.append("%s: the job prints %s, the ranks' tables %s" %
                            (source, row["Device time"],
                             [r["table"]["rows"][source]["Device time"] for r in having]))
        most = re.fullmatch(r"(\S+) \((-?\d+)\)", row["Most (rank)"])
        if not most:
            problems.append("%s: Most (rank) reads %r" % (source, row["Most (rank)"]))
        else:
            top = max(having, key=lambda r: (r["exact"][source], -r["rank"]))
            if int(most.group(2)) != top["rank"] or \
                    most.group(1) != top["table"]["rows"][source]["Device time"]:
                problems.append("%s: Most (rank) %s; rank %d's own table has the most, %s" %
                                (source, row["Most (rank)"], top["rank"],
                                 top["table"]["rows"][source]["Device time"]))
        kernels = set().union(*(r["table"]["rows"][source]["kernels"] for r in having))
        if row["kernels"] != kernels:
            problems.append("%s: the job names kernels %s, the ranks %s" %
                            (source, sorted(row["kernels"]), sorted(kernels)))
    total = sum(r["total"] for r in ranks)
    if job["total"] != units_time(total):
        problems.append("the job's device time is %s, the ranks' results add up to %d ns (%s)"
                        % (job["total"], total, units_time(total)))
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("%d lines over %d ranks: each the sum of the ranks' rows" % (len(sources), len(ranks)))


if __name__ == "__main__":
    main()
