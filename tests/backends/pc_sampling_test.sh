#!/bin/sh
# `tracer --pc-sampling` (docs/flame.md): the CUDA driver program (tests/apps/cuda_app.c)
# on the null driver with the stand-in CUPTI, whose PC sampling API samples each kernel
# launch at two instructions, counts some samples twice under `_not_issued` twins as
# CUPTI does, keeps the last launch's samples until sampling is disabled, and writes every
# sample it took to $CUPTI_STANDIN_SAMPLES (tests/backends/cupti_standin_pc_sampling.c).
# - The trace's pc_sample events add up, per function, instruction and reason, to the
#   samples the stand-in took: none lost at the end, no twin counted.
# - In the device-time folded stacks, each sampled kernel's lines go on below it,
#   `KERNEL;+0xOFFSET;STALL`, one per instruction and reason it was sampled at; per
#   kernel they add up to the tally's device time, and within each of its stacks they
#   share that time out as the samples do (to the ns the rounding leaves).
# - Without --pc-sampling nothing is sampled; with CUDA events timing, or with the app's
#   own CUPTI client (cupti_client_app), no samples and a notice that says why.
# Usage: pc_sampling_test.sh TRACER CUDA_APP CUPTI_CLIENT_APP
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 TRACER CUDA_APP CUPTI_CLIENT_APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
client=$(abspath "$3")
e2e_setup
need_tracer "$tracer"
need_app "$app"
need_app "$client"
command -v babeltrace2 >/dev/null 2>&1 || fail "babeltrace2 not found (scripts/setup.sh)"
command -v c++filt >/dev/null 2>&1 || fail "c++filt not found (binutils)"

# pc_events TRACE: the trace's pc_sample events as babeltrace2 prints them.
pc_events() {
  babeltrace2 "$1" | grep 'lttng_ust_tracer:pc_sample:' || true
}

export CUPTI_STANDIN_SAMPLES="$tmp/samples.jsonl"
run_traced sampled --pc-sampling --flame "$tmp/stacks.folded" -j -o "$tmp/tally.json" -- "$app"
expect_rc 0 sampled
[ -s "$tmp/samples.jsonl" ] || fail "the stand-in took no samples: $(cat "$tmp/sampled.err")"
pc_events "$tmp/sampled.trace" >"$tmp/events.txt"
# The stand-in names functions as the driver does (mangled), the tracer as its kernels.
sed 's/.*"function": "\([^"]*\)".*/\1/' "$tmp/samples.jsonl" | sort -u >"$tmp/mangled.txt"
c++filt <"$tmp/mangled.txt" >"$tmp/demangled.txt"
python3 - "$tmp/stacks.folded" "$tmp/tally.json" "$tmp/samples.jsonl" "$tmp/events.txt" \
  "$tmp/mangled.txt" "$tmp/demangled.txt" <<'PY' || exit 1
import json, re, sys
from collections import Counter, defaultdict
folded, tally, samples, events, mangled, demangled = sys.argv[1:]
problems = []
names = dict(zip(open(mangled).read().splitlines(), open(demangled).read().splitlines()))
kernels = Counter()
for b in json.load(open(tally))["backends"]:
    for row in b.get("device", []):
        if row["kind"] == "kernel":
            kernels[row["name"]] += row["time_ns"]
taken = defaultdict(Counter)  # kernel -> {(pc frame, stall): samples}
for line in open(samples):
    s = json.loads(line)
    taken[names[s["function"]]][("+0x%x" % s["pc"], s["stall"])] += s["samples"]
# Every sample the stand-in took is in the trace, once, under its own reason.
event = re.compile(r'function = "((?:[^"\\]|\\.)*)", pc_offset = (\w+), stall = "([^"]*)", '
                   r'samples = (\d+)')
traced = defaultdict(Counter)
for line in open(events):
    m = event.search(line)
    if not m:
        problems.append("pc_sample event not understood: %s" % line.strip())
        continue
    traced[m.group(1)][("+0x%x" % int(m.group(2), 0), m.group(3))] += int(m.group(4))
if traced != taken:
    problems.append("the trace's samples %s, the stand-in took %s" %
                    (dict(traced), dict(taken)))
# The folded stacks: each sampled kernel's time shared out below it as its samples are.
per_stack = defaultdict(dict)  # (stack, kernel) -> {(pc, stall): ns}
got = Counter()
for line in open(folded):
    stack, _, weight = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if "-" not in frames:
        problems.append("a device line without '-': %s" % stack)
        continue
    dash = frames.index("-")
    below = frames[dash + 1:]
    got[below[0]] += int(weight)
    if below[0] not in taken:
        if len(below) != 1:
            problems.append("frames below an unsampled command: %s" % stack)
        continue
    if len(below) != 3:
        problems.append("a sampled kernel's line without its samples below it: %s" % stack)
        continue
    per_stack[(";".join(frames[:dash]), below[0])][(below[1], below[2])] = int(weight)
for k in kernels:
    if got[k] != kernels[k]:
        problems.append("%s: %d ns in the stacks, the tally counts %d" % (k, got[k], kernels[k]))
for k in taken:
    if k not in kernels:
        problems.append("%s: sampled, but not in the tally's kernels %s" % (k, list(kernels)))
for (stack, kernel), parts in per_stack.items():
    want = taken[kernel]
    if set(parts) - set(want):
        problems.append("%s: frames %s the stand-in never sampled" % (kernel, set(parts) - set(want)))
    whole, all_samples = sum(parts.values()), sum(want.values())
    for key, n in want.items():
        exact = whole * n / all_samples
        if abs(parts.get(key, 0) - exact) >= 1:
            problems.append("%s %s: %d ns, its samples make %.1f" % (kernel, key, parts.get(key, 0), exact))
if len({k for _, k in per_stack}) != len(taken):
    problems.append("sampled kernels %s, split in the stacks %s" %
                    (sorted(taken), sorted({k for _, k in per_stack})))
for p in problems:
    print("FAIL: pc_sampling: " + p)
if not problems:
    print("ok: %d kernels, %d samples in the trace as taken; %d stacks split by them" %
          (len(taken), sum(sum(c.values()) for c in taken.values()), len(per_stack)))
sys.exit(1 if problems else 0)
PY

# Without --pc-sampling: nothing sampled.
rm -f "$tmp/samples.jsonl"
run_traced plain --flame "$tmp/plain.folded" -- "$app"
expect_rc 0 plain
[ ! -e "$tmp/samples.jsonl" ] || fail "sampled without --pc-sampling: $(cat "$tmp/samples.jsonl")"
[ -z "$(pc_events "$tmp/plain.trace")" ] || fail "pc_sample events without --pc-sampling"
! grep -q ';+0x' "$tmp/plain.folded" || fail "PC frames without --pc-sampling: $(grep ';+0x' "$tmp/plain.folded")"

# CUDA events time the device work: no CUPTI, no samples, and a notice that says so.
export TRACER_CUDA_TIMING=events
run_traced events --pc-sampling -- "$app"
unset TRACER_CUDA_TIMING
expect_rc 0 events
[ ! -e "$tmp/samples.jsonl" ] || fail "sampled with CUDA events timing"
grep -q 'pc-sampling: no PC samples.*TRACER_CUDA_TIMING' "$tmp/events.out" ||
  fail "with CUDA events timing, no notice that --pc-sampling takes none: $(cat "$tmp/events.out")"

# The app's own CUPTI client: the tracer leaves CUPTI, sampling included, to it.
run_traced client --pc-sampling -- "$client"
expect_rc 0 client
grep -q 'pc-sampling stopped: the app runs its own CUPTI client\|pc-sampling: no PC samples.*own CUPTI client' \
  "$tmp/client.out" ||
  fail "with the app's CUPTI client, no notice that PC sampling stepped back: $(cat "$tmp/client.out")"
echo "ok: $e2e_name"
