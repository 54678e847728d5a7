#!/usr/bin/env python3
"""Checks the "samples" member of `tracer -j` against the readings the timeline holds.

Usage: samples_json_check.py REPORT.json [--rank R] [BACKEND MEMORY.txt POWER.txt]...
                              [--not-sampled B]...
Each MEMORY/POWER file holds a device's readings in time order as "TS VALUE" (what
sample_test.sh took from the timeline). For each device (BACKEND, index 0): the least,
mean and most of memory_used (B) and power (W) and their number of readings, the peak of
the memory used and when (from the sampler's first reading: the readings' span, as the
timeline's clock is another), and the energy (trapezoids of the power) are worked out
from those readings and compared with the report. --not-sampled B: the report says B
could not be sampled (else it says nothing is missing). --rank R: a job's report, every
device read by rank R (else no device has a rank). Prints what differs; exit 1.
"""
import json
import sys


def readings(path):
    with open(path) as f:
        return [(int(ts), float(v)) for ts, v in (line.split() for line in f if line.strip())]


def near(got, want, tolerance):
    return abs(got - want) <= tolerance


def check_counter(device, name, unit, values, problems):
    counters = [c for c in device["counters"] if c["name"] == name]
    if len(counters) != 1:
        problems.append(f"{device['backend']}: {len(counters)} counters named {name}")
        return None
    c = counters[0]
    xs = [v for _, v in values]
    want = {"unit": unit, "readings": len(xs), "least": min(xs), "most": max(xs),
            "mean": sum(xs) / len(xs)}
    for key, value in want.items():
        ok = near(c[key], value, 1e-9 * max(1.0, abs(value))) if key == "mean" else c[key] == value
        if not ok:
            problems.append(f"{device['backend']} {name}: {key} {c[key]!r}, the timeline gives {value!r}")
    return c


def main(argv):
    report = json.load(open(argv[1]))
    samples = report.get("samples")
    if samples is None:
        print("no \"samples\" member in the JSON")
        return 1
    args, missing, rank = argv[2:], [], None
    if args[:1] == ["--rank"]:
        rank = int(args[1])
        args = args[2:]
    while "--not-sampled" in args:
        i = args.index("--not-sampled")
        missing.append(args[i + 1])
        del args[i:i + 2]
    problems = []
    devices = {d["backend"]: d for d in samples["devices"]}
    backends = args[0::3]
    if sorted(devices) != sorted(backends):
        problems.append(f"devices of {sorted(devices)}, expected {sorted(backends)}")
    for backend, memory_path, power_path in zip(args[0::3], args[1::3], args[2::3]):
        device = devices.get(backend)
        if not device:
            continue
        memory, power = readings(memory_path), readings(power_path)
        if device.get("rank") != rank:
            problems.append(f"{backend}: rank {device.get('rank')}, expected {rank}")
        if device["index"] != 0 or not device["name"]:
            problems.append(f"{backend}: index {device['index']}, name {device['name']!r}")
        check_counter(device, "memory_used", "B", memory, problems)
        check_counter(device, "power", "W", power, problems)
        peaks = device["peak_memory"]
        want_peak = max(v for _, v in memory)
        span = (memory[-1][0] - memory[0][0]) / 1e9
        if len(peaks) != 1 or peaks[0]["counter"] != "memory_used" or \
                peaks[0]["bytes"] != want_peak or not near(peaks[0]["at_s"], span, 0.0015):
            problems.append(f"{backend}: peak memory {peaks}, the timeline gives {want_peak:.0f} B "
                            f"at {span:.4f} s")
        joules = sum((a[1] + b[1]) / 2 * (b[0] - a[0]) / 1e9 for a, b in zip(power, power[1:]))
        energy = device["energy"]
        if len(energy) != 1 or energy[0]["counter"] != "power" or \
                not near(energy[0]["joules"], joules, 0.002 + joules / 1000):
            problems.append(f"{backend}: energy {energy}, the timeline's power gives {joules:.4f} J")
    reasons = samples["not_sampled"]
    if rank is not None:
        if any(not r.startswith(f"rank {rank}: ") for r in reasons):
            problems.append(f"not sampled: {reasons}, not all of rank {rank}")
        reasons = [r.split(": ", 1)[1] for r in reasons]
    got_missing = sorted(r.split(":")[0] for r in reasons)
    if got_missing != sorted(missing) or any(len(r.split(": ", 1)) != 2 for r in reasons):
        problems.append(f"not sampled: {reasons}, expected reasons for {sorted(missing)}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
