"""Checks the OTF2 archive of a job of tests/mpi/otf2_comms_app.c (tracer --otf2) against
what the app is known to do on N ranks, and against the tally of the same trace (-j),
reading it with OTF2's own Python bindings (Debian's python3-otf2; run with
/usr/bin/python3).

Usage: otf2_comms_check.py ARCHIVE_DIR TALLY_JSON --ranks N [--pattern-ranks M]

The app splits the world in halves, [0, N/2) and [N/2, N), each ordered by descending
world rank. Checks:
  - the communicators other than the world are exactly the two halves: members (world
    ranks, in the order of their ranks in it) and parent MPI_COMM_WORLD, and one
    MPI_COMM_SELF a rank whose one member is that rank; the windows are
    one over the world and one over each half, flagged with create/destroy events;
  - per rank, the MPI and RMA records inside each function, with their communicator or
    window (by members), peer or root (as a rank of it), tag and bytes, equal the app's
    pattern, as multisets (MPI_Waitany's order is the library's): the Allreduce and the
    message on the half, each MPI_Sendrecv's one MpiSend and one MpiRecv, the receives
    from MPI_ANY_SOURCE with the sender and the bytes that came (fewer than their count
    allows: MPI_Recv's MpiRecv, and the MpiIrecv inside the MPI_Wait, MPI_Waitall and
    MPI_Waitany with statuses that complete an MPI_Irecv; the requests rounds' bytes are
    those that came where the completion gives statuses, the count where it ignores
    them), the MPI_Allreduce on the rank's MPI_COMM_SELF, the requests'
    starts and completions inside MPI_Waitall, MPI_Waitany and MPI_Testsome, RMA puts and
    gets with their completions, fences, locks, the flush and the windows' creation and
    destruction;
  - every MpiIsend has one MpiIsendComplete and every MpiIrecvRequest one MpiIrecv of the
    same request, later, on its location; each RMA operation one completion of its
    matching id;
  - per function, the enters equal the tally's calls, but for MPI_Testsome: a poll that
    found nothing (outcount 0; the app makes one a rank at least) is counted, not
    recorded, so it has no enter; its calls without one are the tally's counted_calls.
--pattern-ranks M checks against the pattern of M ranks instead (to see the check fail).
Prints `ok: ...` and exits 0, or each difference and exits 1."""

import argparse
import json
import sys
from collections import Counter, defaultdict

import otf2

WORLD = "world"


def self_of(rank):
    """The key of a rank's MPI_COMM_SELF (apart from a half of one rank, on 2 ranks)."""
    return ("self", rank)


def members_of(group, rank_of_location):
    """A COMM_GROUP's members as world ranks (the bindings hand out their locations)."""
    return tuple(m if isinstance(m, int) else rank_of_location.get(m._ref, -1)
                 for m in group.members)


def pattern(n):
    """Per world rank, the Counter of (function, record, fields...) the app makes."""
    h = n // 2
    halves = [tuple(range(h - 1, -1, -1)), tuple(range(n - 1, h - 1, -1))]
    want = {}
    for r in range(n):
        half = halves[0] if r < h else halves[1]
        hrank, hsize = half.index(r), len(half)
        c = Counter()
        c[("MPI_Allreduce", "MpiCollectiveBegin")] += 1
        c[("MPI_Allreduce", "MpiCollectiveEnd", "ALLREDUCE", half, None, 8, 8)] += 1
        if hsize > 1 and hrank == 0:
            c[("MPI_Send", "MpiSend", half, 1, 7, 12)] += 1
        elif hsize > 1 and hrank == 1:
            c[("MPI_Recv", "MpiRecv", half, 0, 7, 12)] += 1
        nxt, prv = (r + 1) % n, (r + n - 1) % n
        c[("MPI_Sendrecv", "MpiSend", WORLD, nxt, 1, 16)] += 1
        c[("MPI_Sendrecv", "MpiRecv", WORLD, prv, 1, 16)] += 1
        c[("MPI_Sendrecv_replace", "MpiSend", WORLD, nxt, 2, 8)] += 1
        c[("MPI_Sendrecv_replace", "MpiRecv", WORLD, prv, 2, 8)] += 1
        partner = (r + h) % n
        # From MPI_ANY_SOURCE: the sender and the bytes its status says, not the count's.
        c[("MPI_Send", "MpiSend", WORLD, nxt, 20, 8)] += 1
        c[("MPI_Recv", "MpiRecv", WORLD, prv, 20, 8)] += 1
        c[("MPI_Irecv", "MpiIrecvRequest")] += 1
        c[("MPI_Send", "MpiSend", WORLD, partner, 30, 24)] += 1
        c[("MPI_Wait", "MpiIrecv", WORLD, partner, 30, 24)] += 1
        # ... and through arrays with statuses: MPI_Waitall's beside an Isend, MPI_Waitany's.
        c[("MPI_Irecv", "MpiIrecvRequest")] += 2
        c[("MPI_Isend", "MpiIsend", WORLD, partner, 40, 16)] += 1
        c[("MPI_Waitall", "MpiIrecv", WORLD, partner, 40, 16)] += 1
        c[("MPI_Waitall", "MpiIsendComplete")] += 1
        c[("MPI_Send", "MpiSend", WORLD, partner, 41, 8)] += 1
        c[("MPI_Waitany", "MpiIrecv", WORLD, partner, 41, 8)] += 1
        c[("MPI_Allreduce", "MpiCollectiveBegin")] += 1
        c[("MPI_Allreduce", "MpiCollectiveEnd", "ALLREDUCE", self_of(r), None, 8, 8)] += 1
        for rnd, completer in enumerate(["MPI_Waitall", "MPI_Waitany", "MPI_Testsome"]):
            c[("MPI_Irecv", "MpiIrecvRequest")] += 1
            c[("MPI_Isend", "MpiIsend", WORLD, partner, 10 + rnd, 40)] += 1
            # 5 doubles into room for 8: what came where the call gives statuses
            # (Waitall, Testsome); the count where it ignores them (Waitany).
            got = 64 if completer == "MPI_Waitany" else 40
            c[(completer, "MpiIrecv", WORLD, partner, 10 + rnd, got)] += 1
            c[(completer, "MpiIsendComplete")] += 1
        c[("MPI_Barrier", "MpiCollectiveBegin")] += 1  # after the poll that finds nothing
        c[("MPI_Barrier", "MpiCollectiveEnd", "BARRIER", WORLD, None, 0, 0)] += 1
        win = ("window", tuple(range(n)))
        c[("MPI_Win_allocate", "RmaWinCreate", win)] += 1
        c[("MPI_Win_fence", "RmaCollectiveBegin")] += 3
        c[("MPI_Win_fence", "RmaCollectiveEnd", "BARRIER", 3, win, None)] += 3
        c[("MPI_Put", "RmaPut", win, nxt, 16)] += 1
        c[("MPI_Put", "RmaOpCompleteBlocking", win)] += 1
        c[("MPI_Get", "RmaGet", win, prv, 8)] += 1
        c[("MPI_Get", "RmaOpCompleteBlocking", win)] += 1
        c[("MPI_Win_lock", "RmaRequestLock", win, 0, "EXCLUSIVE")] += 1
        c[("MPI_Accumulate", "RmaPut", win, 0, 12)] += 1
        c[("MPI_Accumulate", "RmaOpCompleteBlocking", win)] += 1
        c[("MPI_Win_unlock", "RmaReleaseLock", win, 0)] += 1
        c[("MPI_Win_free", "RmaWinDestroy", win)] += 2
        hwin = ("window", half)
        c[("MPI_Win_create", "RmaWinCreate", hwin)] += 1
        c[("MPI_Win_lock_all", "RmaRequestLock", hwin, None, "SHARED")] += 1
        c[("MPI_Put", "RmaPut", hwin, 0, 4)] += 1
        c[("MPI_Put", "RmaOpCompleteBlocking", hwin)] += 1
        c[("MPI_Win_flush", "RmaSync", hwin, 0, "MEMORY")] += 1
        c[("MPI_Win_unlock_all", "RmaReleaseLock", hwin, None)] += 1
        c[("MPI_Barrier", "MpiCollectiveBegin")] += 1
        c[("MPI_Barrier", "MpiCollectiveEnd", "BARRIER", half, None, 0, 0)] += 1
        c[("MPI_Win_lock", "RmaRequestLock", hwin, hsize - 1, "SHARED")] += 1
        c[("MPI_Get", "RmaGet", hwin, hsize - 1, 4)] += 1
        c[("MPI_Get", "RmaOpCompleteBlocking", hwin)] += 1
        c[("MPI_Win_unlock", "RmaReleaseLock", hwin, hsize - 1)] += 1
        # The second MPI_Win_free is the half window's.
        c[("MPI_Win_free", "RmaWinDestroy", win)] -= 1
        c[("MPI_Win_free", "RmaWinDestroy", hwin)] += 1
        want[r] = +c
    return want, halves


def undefined(v):
    return None if v in (0xFFFFFFFF, None) else v


def flags(v):
    """A bit field as an int (the bindings' enum of it has no name for a combination)."""
    return getattr(v, "value", v)


def enum_name(v):
    return str(v).split(".")[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("archive")
    ap.add_argument("tally")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--pattern-ranks", type=int)
    args = ap.parse_args()
    with open(args.tally) as f:
        tally = json.load(f)
    problems = []
    want, halves = pattern(args.pattern_ranks or args.ranks)

    got = defaultdict(Counter)          # rank -> Counter of records
    enters = Counter()                  # function -> enters on every rank
    open_requests = {}                  # (location, request) -> kind
    rma_open = {}                       # (location, matching id) -> kind
    with otf2.reader.open(args.archive + "/traces.otf2") as trace:
        defs = trace.definitions
        # World ranks: places in MPI's COMM_LOCATIONS group.
        rank_of_location = {}
        for g in defs.groups:
            if "COMM_LOCATIONS" in str(g.group_type):
                rank_of_location = {m._ref: i for i, m in enumerate(g.members)}
        comms = {}
        selves = []
        for c in defs.comms:
            key = WORLD if c.name == "MPI_COMM_WORLD" else members_of(c.group, rank_of_location)
            if c.name == "MPI_COMM_SELF":
                selves.append(key)
                key = self_of(key[0]) if len(key) == 1 else ("self",) + key
            comms[c._ref] = key
            if c.name != "MPI_COMM_WORLD" and (c.parent is None or c.parent.name != "MPI_COMM_WORLD"):
                problems.append("communicator %s: parent %s, not MPI_COMM_WORLD"
                                % (c.name, c.parent and c.parent.name))
        if sorted(selves) != [(r,) for r in range(args.pattern_ranks or args.ranks)]:
            problems.append("MPI_COMM_SELF communicators of members %s, not one a rank of "
                            "that rank alone" % sorted(selves))
        made = sorted(k for k in comms.values() if k != WORLD and k[0] != "self")
        if made != sorted(halves):
            problems.append("communicators %s, the app made %s" % (made, sorted(halves)))
        world = tuple(range(args.ranks))
        wins = {}
        for w in defs.rma_wins:
            key = comms.get(w.comm._ref)
            wins[w._ref] = ("window", world if key == WORLD else key)
            if "CREATE_DESTROY_EVENTS" not in str(w.flags):
                problems.append("window %s not flagged for create and destroy events" % w.name)
        if sorted(wins.values()) != sorted([("window", world)] + [("window", h) for h in halves]):
            problems.append("windows %s" % sorted(wins.values()))
        rank_of_group = {}
        for g in defs.location_groups:
            if g.name.startswith("rank "):
                rank_of_group[g._ref] = int(g.name.split()[1])
        stacks = defaultdict(list)
        for location, ev in trace.events:
            ref = location._ref
            if isinstance(ev, otf2.events.Enter):
                stacks[ref].append(ev.region.name)
                enters[ev.region.name] += 1
                continue
            if isinstance(ev, otf2.events.Leave):
                stacks[ref].pop()
                continue
            kind = type(ev).__name__
            fn = stacks[ref][-1] if stacks[ref] else None
            rank = rank_of_group.get(location.group._ref)
            comm = lambda: comms.get(ev.communicator._ref)
            win = lambda: wins.get(ev.win._ref)
            if kind in ("MpiSend", "MpiIsend"):
                rec = (fn, kind, comm(), ev.receiver, ev.msg_tag, ev.msg_length)
            elif kind in ("MpiRecv", "MpiIrecv"):
                rec = (fn, kind, comm(), ev.sender, ev.msg_tag, ev.msg_length)
            elif kind == "MpiCollectiveEnd":
                rec = (fn, kind, enum_name(ev.collective_op), comm(), undefined(ev.root),
                       ev.size_sent, ev.size_received)
            elif kind in ("RmaPut", "RmaGet"):
                rec = (fn, kind, win(), ev.remote, ev.bytes)
            elif kind in ("RmaOpCompleteBlocking", "RmaOpCompleteNonBlocking", "RmaWinCreate",
                          "RmaWinDestroy"):
                rec = (fn, kind, win())
            elif kind == "RmaCollectiveEnd":
                rec = (fn, kind, enum_name(ev.collective_op), flags(ev.sync_level), win(),
                       undefined(ev.root))
            elif kind == "RmaRequestLock":
                rec = (fn, kind, win(), undefined(ev.remote), enum_name(ev.lock_type))
            elif kind == "RmaReleaseLock":
                rec = (fn, kind, win(), undefined(ev.remote))
            elif kind == "RmaSync":
                rec = (fn, kind, win(), ev.remote, enum_name(ev.sync_type))
            elif kind in ("MpiCollectiveBegin", "RmaCollectiveBegin", "MpiIrecvRequest",
                          "MpiIsendComplete"):
                rec = (fn, kind)
            else:
                problems.append("rank %s: unexpected %s in %s" % (rank, kind, fn))
                continue
            got[rank][rec] += 1
            # Requests and RMA operations: started once, completed once, later.
            if kind in ("MpiIsend", "MpiIrecvRequest"):
                if (ref, ev.request_id) in open_requests:
                    problems.append("rank %s: request %d started twice" % (rank, ev.request_id))
                open_requests[(ref, ev.request_id)] = kind
            elif kind in ("MpiIsendComplete", "MpiIrecv"):
                started = open_requests.pop((ref, ev.request_id), None)
                if started != {"MpiIsendComplete": "MpiIsend", "MpiIrecv": "MpiIrecvRequest"}[kind]:
                    problems.append("rank %s: %s of request %d, started by %s"
                                    % (rank, kind, ev.request_id, started))
            elif kind in ("RmaPut", "RmaGet"):
                rma_open[(ref, ev.matching_id)] = kind
            elif kind.startswith("RmaOpComplete"):
                if rma_open.pop((ref, ev.matching_id), None) is None:
                    problems.append("rank %s: %s of RMA operation %d never started"
                                    % (rank, kind, ev.matching_id))
    if open_requests:
        problems.append("requests never completed: %s" % sorted(open_requests.values()))
    if rma_open:
        problems.append("RMA operations never completed: %d" % len(rma_open))

    for r in sorted(set(want) | set(got)):
        if want.get(r, Counter()) != got.get(r, Counter()):
            missing = want.get(r, Counter()) - got.get(r, Counter())
            extra = got.get(r, Counter()) - want.get(r, Counter())
            problems.append("rank %s: missing %s; unexpected %s"
                            % (r, sorted(missing.items())[:6], sorted(extra.items())[:6]))

    # Calls: each recorded call has an enter; the polls that found nothing (MPI_Testsome's,
    # at least one a rank) are counted, in the tally's calls and counted_calls only.
    calls = Counter()
    for b in tally["backends"]:
        for row in b["host"]:
            calls[row["name"]] += row["calls"]
    polls = calls["MPI_Testsome"] - enters["MPI_Testsome"]
    if polls < args.ranks or polls != tally.get("counted_calls", 0):
        problems.append("MPI_Testsome: %d calls without an enter, the tally counts %d counted "
                        "calls; the app polls in vain at least once a rank"
                        % (polls, tally.get("counted_calls", 0)))
    for fn in sorted(set(f for c in want.values() for (f, *_rest) in c) - {"MPI_Testsome"}):
        if enters[fn] != calls[fn]:
            problems.append("%s: %d enters, the tally counts %d calls" % (fn, enters[fn], calls[fn]))

    if problems:
        for p in problems:
            print(p)
        return 1
    print("ok: %d ranks, %d records, 2 communicators and a MPI_COMM_SELF a rank, 3 windows, "
          "calls as the tally's"
          % (len(got), sum(sum(c.values()) for c in got.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
