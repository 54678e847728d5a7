"""Checks an OTF2 archive the tracer wrote (--otf2) against the tally of the same trace
(-j), reading it with OTF2's own Python bindings (Debian's python3-otf2; run with
/usr/bin/python3, whose packages they are).

Usage: otf2_check.py ARCHIVE_DIR TALLY_JSON [--ranks N] [--app NAME] [--metrics FILE]

Checks, each against the tally, never against fixed numbers:
  - every location's events are in time order, enters and leaves nest and all close;
  - per region, the time between its enters and leaves is the tally's time: within one
    clock read a call for API functions (the tally takes the least one measured in the
    whole read off each call, the reader the least measured so far), 1 ns a command for
    device commands (the rounding of a clock conversion); named regions at most the
    tally's (a range that ends inside the call that closes it ends where that call
    begins, to nest);
  - the enters of each API function's region (on thread locations) are the tally's calls
    of that function (a counted call, of a counted function or a poll that found nothing,
    has none: the calls of API functions without an enter add up to the tally's
    counted_calls, and their regions' times are at most the tally's), those of each kernel, copy or command (on queue locations) its
    device rows' commands, those of each named region (paradigm user) its regions';
    and no region has enters the tally does not count;
  - MPI records per function, by the tally's message kind of that function: a send's
    calls each have one MpiSend or MpiIsend and their lengths add up to its bytes; a
    receive's one MpiRecv or MpiIrecvRequest; a blocking collective's one
    MpiCollectiveBegin and End whose sizes add up to its bytes; a send that also receives
    (MPI_Sendrecv) one MpiRecv a call; each MpiIsendComplete
    and MpiIrecv completes a request its location started; every record inside a call;
    the MpiIrecv records of a receive's requests add up to its bytes at most (the tally
    counts what each call posted; a completion with a status writes what came);
  - each device command's enter names its submitting call: an enter of an API function
    of its backend on that location at that very time;
  - device commands have regions of their own, named apart from every API function's
    (a kernel by its name, `kernel: ROW` when that is one of its backend's functions, a
    copy `copy: ROW`, another command `command: ROW`, ROW the tally's device row): a copy's role data transfer, a kernel's function, each of the
    paradigm of its backend's API regions;
  - with --ranks N: N process location groups `rank 0`..`rank N-1`, and MPI_COMM_WORLD
    with N members when there are MPI records;
  - the clock: 1 ns ticks, every event within the clock properties' range;
  - with --metrics FILE (lines `DEVICE<TAB>COUNTER<TAB>UNIT<TAB>TIME VALUE...`, the
    readings of tracer --sample as another output has them): each device's metric
    location holds, per counter, one metric event per reading, at its time (FILE's times
    may count from another origin: one offset for all), of its value,
    through a metric instance of that device's system tree node whose class has one
    member of that name and unit; and no other metric events.
Prints `ok: ...` and exits 0, or each difference and exits 1."""

import argparse
import json
import sys
from collections import Counter, defaultdict

import otf2
from otf2.enums import LocationGroupType, LocationType, Paradigm, RegionRole


def device_region(row, functions):
    """The OTF2 region name of a tally device row (cli/model/device_label.h): a kernel by
    its name unless that is one of its backend's functions (functions: those the tally
    has), a copy or another command by what it is."""
    if row["kind"] == "kernel" and row["name"] not in functions:
        return row["name"]
    what = {"kernel": "kernel", "transfer": "copy"}.get(row["kind"], "command")
    return "%s: %s" % (what, row["name"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("archive")
    ap.add_argument("tally")
    ap.add_argument("--ranks", type=int, default=0)
    ap.add_argument("--metrics")
    args = ap.parse_args()
    with open(args.tally) as f:
        tally = json.load(f)
    problems = []
    # Counted calls (counted functions' and polls that found nothing) have no enter: the
    # tally has them in its calls and times, and their number alone (counted_calls).
    counted = tally.get("counted_calls", 0)

    enters = Counter()          # (where, description, name) -> enters
    spent = Counter()           # (where, description, name) -> ns between enter and leave
    mpi = defaultdict(Counter)  # function -> record kind -> count
    mpi_bytes = Counter()       # function -> bytes of its sends, receives, collectives
    recv_bytes = Counter()      # function -> bytes of its MpiRecv records
    irecv_bytes = Counter()     # function -> bytes of the MpiIrecv of the requests it started
    requests = {}               # (location, request) -> the function that started it
    device_submitters = []      # (location ref, time, backend) of each device enter
    roles = {}                  # (where, description, name) -> (role, paradigm)
    call_enters = {}            # (location ref, time) -> (backend description, name)
    stacks = defaultdict(list)
    last = {}
    events = 0
    metrics = defaultdict(list)  # (location, counter, unit) -> [(time, value)]
    with otf2.reader.open(args.archive + "/traces.otf2") as trace:
        defs = trace.definitions
        clock = defs.clock_properties
        if clock.timer_resolution != 1000000000:
            problems.append("timer resolution %d, not 1 ns" % clock.timer_resolution)
        begin, end = clock.global_offset, clock.global_offset + clock.trace_length
        for location, event in trace.events:
            events += 1
            ref = location._ref
            if event.time < last.get(ref, 0):
                problems.append("%s: time goes back at %d" % (location.name, event.time))
            last[ref] = event.time
            if not begin <= event.time <= end:
                problems.append("%s: event at %d outside the clock's range" % (location.name, event.time))
            if isinstance(event, otf2.events.Metric):
                m = event.metric
                members = m.metric_class.members if hasattr(m, "metric_class") else m.members
                scope = getattr(m, "scope", None)
                if len(members) != 1 or len(event.values) != 1 or \
                        getattr(scope, "name", None) != location.name:
                    problems.append("%s: a metric event not of one counter of this device's "
                                    "instance" % location.name)
                    continue
                metrics[(location.name, members[0].name, members[0].unit)].append(
                    (event.time, event.values[0]))
                continue
            stack = stacks[ref]
            where = "queue" if location.type == LocationType.ACCELERATOR_STREAM else "thread"
            if isinstance(event, otf2.events.Enter):
                r = event.region
                enters[(where, r.description, r.name)] += 1
                roles[(where, r.description, r.name)] = (r.region_role, r.paradigm)
                stack.append((r, event.time))
                if where == "thread":
                    call_enters[(ref, event.time)] = (r.description, r.name)
                else:
                    attrs = {a.name: v for a, v in (event.attributes or {}).items()}
                    if "submitting thread" in attrs:
                        device_submitters.append((attrs["submitting thread"]._ref,
                                                  attrs["submitting call start"],
                                                  r.description.split(" ")[0], r.name))
                continue
            if isinstance(event, otf2.events.Leave):
                if not stack or stack[-1][0] is not event.region:
                    problems.append("%s: leave of %s does not close the last enter"
                                    % (location.name, event.region.name))
                else:
                    r, since = stack.pop()
                    spent[(where, r.description, r.name)] += event.time - since
                continue
            function = stack[-1][0].name if stack else None
            kind = type(event).__name__
            if function is None:
                problems.append("%s: %s outside any call" % (location.name, kind))
                continue
            mpi[function][kind] += 1
            if kind in ("MpiSend", "MpiIsend"):
                mpi_bytes[function] += event.msg_length
            if kind == "MpiRecv":  # a receive's, or the receive half of MPI_Sendrecv
                recv_bytes[function] += event.msg_length
            if kind == "MpiCollectiveEnd":
                mpi_bytes[function] += event.size_sent
            if kind in ("MpiIsend", "MpiIrecvRequest", "NonBlockingCollectiveRequest"):
                requests[(ref, event.request_id)] = function
            if kind in ("MpiIsendComplete", "MpiIrecv", "NonBlockingCollectiveComplete"):
                started = requests.pop((ref, event.request_id), None)
                if started is None:
                    problems.append("%s: %s of request %d, which it never started"
                                    % (location.name, kind, event.request_id))
                elif kind == "MpiIrecv":
                    irecv_bytes[started] += event.msg_length
        for ref, stack in stacks.items():
            if stack:
                problems.append("location %d: %d regions never left" % (ref, len(stack)))
        # A rank left out by --traced-ranks has a group of its own, `rank N (not traced)`.
        groups = [g for g in defs.location_groups
                  if g.location_group_type == LocationGroupType.PROCESS]
        comms = list(defs.comms)

    # Enters against the tally.
    expected = Counter()
    expected_ns = Counter()
    slack = {}                  # ns each region's time may differ by (None: may be less)
    clock_read = tally.get("clock_read_ns", 0)
    for b in tally["backends"]:
        # Every call the trace has: the app's, and those made inside other APIs' calls,
        # which the tally sets apart (inside_other) and the archive has under their call.
        rows = [(("thread", b["name"] + " API", row["name"]), row, clock_read + 1)
                for row in b["host"] + b.get("inside_other", [])]
        for row in b.get("device", []):
            what = {"kernel": "kernel", "transfer": "copy"}.get(row["kind"], "command")
            functions = {r["name"] for r in b["host"]}
            rows.append((("queue", "%s device %s" % (b["name"], what),
                          device_region(row, functions)), row, 1))
        for row in b.get("regions", []):
            rows.append((("thread", row.get("backend", b["name"]), row["name"]), row, None))
        for key, row, per_call in rows:
            expected[key] += row["calls"]
            expected_ns[key] += row["time_ns"]
            slack[key] = None if per_call is None else slack.get(key, 0) + per_call * row["calls"]
    uncounted = 0               # calls the tally has and the archive no enter of
    for key in sorted(set(expected) | set(enters)):
        if counted and key[0] == "thread" and slack.get(key) is not None and \
                0 < expected[key] - enters[key]:
            uncounted += expected[key] - enters[key]
            if spent[key] > expected_ns[key] + slack[key]:
                problems.append("%s %s (%s): %d ns between enters and leaves, more than the "
                                "tally's %d with its counted calls"
                                % (key[0], key[2], key[1], spent[key], expected_ns[key]))
            continue
        if expected[key] != enters[key]:
            problems.append("%s %s (%s): %d enters, the tally counts %d"
                            % (key[0], key[2], key[1], enters[key], expected[key]))
        elif (spent[key] > expected_ns[key] + 1 * expected[key] if slack[key] is None
              else abs(spent[key] - expected_ns[key]) > slack[key]):
            problems.append("%s %s (%s): %d ns between enters and leaves, the tally counts %d"
                            % (key[0], key[2], key[1], spent[key], expected_ns[key]))

    if uncounted != counted:
        problems.append("%d calls have no enter, the tally counts %d counted calls"
                        % (uncounted, counted))

    # MPI records against the tally's message kinds and bytes.
    records = 0
    for b in tally["backends"]:
        for row in b["host"]:
            kind, f, calls = row.get("message"), row["name"], row["calls"] - row["errors"]
            got = mpi.get(f, Counter())
            records += sum(got.values())
            if kind == "send":
                n = got["MpiSend"] + got["MpiIsend"]
            elif kind == "recv":
                n = got["MpiRecv"] + got["MpiIrecvRequest"]
            elif kind == "collective" and got["NonBlockingCollectiveRequest"]:
                n = got["NonBlockingCollectiveRequest"]
            elif kind == "collective":
                n = got["MpiCollectiveEnd"]
                if got["MpiCollectiveBegin"] != n:
                    problems.append("%s: %d collective begins, %d ends"
                                    % (f, got["MpiCollectiveBegin"], n))
            else:
                continue
            if n != calls:
                problems.append("%s (%s): %d MPI records, the tally counts %d calls" % (f, kind, n, calls))
            # A send that also receives (MPI_Sendrecv): one MpiRecv a call too.
            if kind == "send" and got["MpiRecv"] and got["MpiRecv"] != calls:
                problems.append("%s (send and receive): %d MpiRecv records, %d calls"
                                % (f, got["MpiRecv"], calls))
            if kind != "collective" or not got["NonBlockingCollectiveRequest"]:
                have = mpi_bytes[f] + (recv_bytes[f] if kind == "recv" else 0)
                completed = irecv_bytes[f] if kind == "recv" else 0
                if not (have + completed == row.get("bytes", 0) or
                        0 < completed and have + completed < row.get("bytes", 0)):
                    problems.append("%s (%s): %d bytes in its records, the tally counts %d"
                                    % (f, kind, have + completed, row.get("bytes", 0)))
    if requests:
        problems.append("%d requests started and never completed: %s"
                        % (len(requests), sorted(set(requests.values()))))

    # Device commands have regions of their own: no API function's name, their role, and
    # their backend's paradigm.
    api = {k[2] for k in enters if k[0] == "thread" and k[1].endswith(" API")}
    paradigm_of = {k[1][:-len(" API")]: roles[k][1] for k in enters
                   if k[0] == "thread" and k[1].endswith(" API")}
    for key in enters:
        if key[0] != "queue":
            continue
        where, description, name = key
        backend, what = description.split(" device ")
        role, paradigm = roles[key]
        if name in api:
            problems.append("device %s (%s) has an API function's name: its time would be "
                            "counted with the calls'" % (name, description))
        want = RegionRole.DATA_TRANSFER if what == "copy" else RegionRole.FUNCTION
        if role != want:
            problems.append("device %s (%s): role %s, not %s" % (name, description, role, want))
        if backend in paradigm_of and paradigm != paradigm_of[backend]:
            problems.append("device %s (%s): paradigm %s, its backend's calls %s"
                            % (name, description, paradigm, paradigm_of[backend]))

    # Device commands name their calls.
    for ref, time, backend, name in device_submitters:
        call = call_enters.get((ref, time))
        if not call or call[0] != backend + " API":
            problems.append("device %s names a call of location %d at %d: %s"
                            % (name, ref, time, call or "no enter there"))

    if args.ranks:
        names = sorted(g.name.replace(" (not traced)", "") for g in groups)
        want = sorted("rank %d" % r for r in range(args.ranks))
        if names != want:
            problems.append("process groups %s, expected %s" % (names, want))
        if records and not any(c.name == "MPI_COMM_WORLD" and len(c.group.members) == args.ranks
                               for c in comms):
            problems.append("no MPI_COMM_WORLD of %d ranks" % args.ranks)

    if args.metrics:
        want = {}
        with open(args.metrics) as f:
            for line in f:
                device, counter, unit, readings = line.rstrip("\n").split("\t")
                pairs = readings.split()
                want[(device, counter, unit)] = [(int(t), float(v))
                                                 for t, v in zip(pairs[0::2], pairs[1::2])]
        # The other output may count time from another origin (the timeline: from the
        # trace's start): one offset, the same for every reading of every counter.
        offset = next((metrics[k][0][0] - want[k][0][0] for k in sorted(want)
                       if metrics.get(k) and want[k]), 0)
        want = {k: [(t + offset, v) for t, v in readings] for k, readings in want.items()}
        for key in sorted(set(want) | set(metrics)):
            if metrics.get(key) != want.get(key):
                got = metrics.get(key, [])
                problems.append("metric %s: %d events, expected %d; first differences: %s"
                                % ("/".join(key), len(got), len(want.get(key, [])),
                                   [(g, w) for g, w in zip(got, want.get(key, [])) if g != w][:3]))
        if not want:
            problems.append("--metrics: no reading to look for")

    if problems:
        for p in problems:
            print(p)
        return 1
    print("ok: %d events, %d enters over %d regions, %d MPI records, %d device commands with "
          "their calls, %d process groups, %d metric series"
          % (events, sum(enters.values()), len(enters), records, len(device_submitters),
             len(groups), len(metrics)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
