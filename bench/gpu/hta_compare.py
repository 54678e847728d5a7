"""The tracer's GPU time per rank over a window against Holistic Trace Analysis on the
Kineto traces of the same run (issue 46; bench/gpu/run_hta.sh makes both):

    PYTHONPATH=HTA_DIR /usr/bin/python3 bench/gpu/hta_compare.py \\
        --kineto OUT/kineto --report OUT/window_report.txt --json OUT/window.json

HTA (facebookresearch/HolisticTraceAnalysis) runs on Debian's python3 with python3-pandas,
python3-plotly, python3-networkx and python3-pydot (ENVIRONMENT.md). Compared per rank:
compute, non-compute (the tracer's communication plus copies) and idle as shares of the
GPU's span (HTA's get_temporal_breakdown; within 2 points), the communication/computation
overlap (get_comm_comp_overlap; within 5 points), and the kernels (the Kineto trace's
`kernel` events; the tracer's kernel rows of that GPU in the window's JSON; equal).
Prints a table and exits 1 when a figure is out of bounds.
"""
import argparse
import glob
import json
import re
import sys


def tracer_rows(report):
    """rank -> {compute, comm, copies, idle, overlap} from the text report's table."""
    rows, inside = {}, False
    with open(report) as f:
        for line in f:
            if line.startswith("Device time per rank (HTA's definitions)"):
                inside = True
                continue
            if inside and line.startswith("Kernel launch delay"):
                break
            m = re.match(r"^rank (\d+) +GPU \d+ *\| *[^|]+\| *([\d.]+)% *\| *([\d.]+)% *\| *"
                         r"([\d.]+)% *\| *([\d.]+)% *\| *[\d.]+% *\| *([\d.]+%|-) *\|", line)
            if inside and m:
                overlap = None if m.group(6) == "-" else float(m.group(6)[:-1])
                rows[int(m.group(1))] = {"compute": float(m.group(2)), "comm": float(m.group(3)),
                                         "copies": float(m.group(4)), "idle": float(m.group(5)),
                                         "overlap": overlap}
    return rows


def tracer_kernels(path):
    """GPU ordinal -> kernels in the window, from the job's JSON device rows."""
    with open(path) as f:
        tally = json.load(f)
    counts = {}
    for backend in tally.get("backends", []):
        for row in backend.get("device", []):
            if row.get("kind") != "kernel":
                continue
            m = re.match(r"GPU (\d+)", row.get("device") or "")
            if m:
                counts[int(m.group(1))] = counts.get(int(m.group(1)), 0) + row.get("calls", 0)
    return counts


def kineto_kernels(trace_dir):
    counts = {}
    for path in glob.glob(f"{trace_dir}/*.json"):
        with open(path) as f:
            trace = json.load(f)
        rank = trace.get("distributedInfo", {}).get("rank", 0)
        counts[rank] = sum(1 for e in trace.get("traceEvents", []) if e.get("cat") == "kernel")
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kineto", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    from hta.trace_analysis import TraceAnalysis  # HTA's folder on PYTHONPATH

    analyzer = TraceAnalysis(trace_dir=args.kineto)
    breakdown = analyzer.get_temporal_breakdown(visualize=False)
    overlap = analyzer.get_comm_comp_overlap(visualize=False)
    ours = tracer_rows(args.report)
    our_kernels = tracer_kernels(args.json)
    their_kernels = kineto_kernels(args.kineto)
    failed = False
    print(f"{'rank':>4} | {'figure':<12} | {'HTA':>8} | {'tracer':>8} | {'diff':>6} | bound")
    for _, row in breakdown.iterrows():
        rank = int(row["rank"])
        mine = ours.get(rank)
        if mine is None:
            print(f"rank {rank}: no row in the tracer's report")
            failed = True
            continue
        olap = overlap[overlap["rank"] == rank]["comp_comm_overlap_pctg"]
        checks = [
            ("compute", float(row["compute_time_pctg"]), mine["compute"], 2.0),
            ("non-compute", float(row["non_compute_time_pctg"]), mine["comm"] + mine["copies"], 2.0),
            ("idle", float(row["idle_time_pctg"]), mine["idle"], 2.0),
        ]
        if len(olap) and mine["overlap"] is not None:
            checks.append(("overlap", float(olap.iloc[0]), mine["overlap"], 5.0))
        for name, theirs, value, bound in checks:
            ok = abs(theirs - value) <= bound
            failed |= not ok
            print(f"{rank:>4} | {name:<12} | {theirs:7.1f}% | {value:7.1f}% | {value - theirs:+5.1f} "
                  f"| {'ok' if ok else 'OUT'} (±{bound:g})")
        k_theirs, k_ours = their_kernels.get(rank), our_kernels.get(rank)
        ok = k_theirs == k_ours
        failed |= not ok
        print(f"{rank:>4} | {'kernels':<12} | {k_theirs!s:>8} | {k_ours!s:>8} | "
              f"{'' if ok else 'differ':>6} | {'ok' if ok else 'OUT'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
