"""Checks the nesting of each thread's calls in `tracer -t` text (a file or stdin): a call
that starts before an earlier-ending call of its thread ended must contain it. Polls whose
start the tracer estimates (docs/spec-format.md, `polls`) must keep this too: a runtime's
completing poll (cudaEventQuery) around its driver's (cuEventQuery). Prints the calls and
polls it saw and the violations; exits 1 on any."""
import collections
import re
import sys

LINE = re.compile(r'(\d+):(\d+):(\d+)\.(\d+) .* tid: (\d+) - ([^:]+):(\S+)_(entry|exit): (.*)')
opened = {}
done = collections.defaultdict(list)
calls = bad = 0
names = collections.Counter()
for line in (open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin):
    m = LINE.match(line)
    if not m or m.group(6) == 'lttng_ust_tracer':
        continue
    h, mi, s, ns, tid, _, name, kind, rest = m.groups()
    t = ((int(h) * 60 + int(mi)) * 60 + int(s)) * 10**9 + int(ns)
    if kind == 'entry':
        opened[tid, name] = t
        continue
    start = opened.pop((tid, name), None)
    if start is None:
        continue
    calls += 1
    if 'Query' in name:
        names[name] += 1
    for earlier_name, earlier_start, earlier_end in reversed(done[tid][-64:]):
        if earlier_end > start and earlier_start < start:
            bad += 1
            if bad <= 5:
                print(f'tid {tid}: {name} [{start}, {t}] overlaps {earlier_name} '
                      f'[{earlier_start}, {earlier_end}] without containing it')
    done[tid].append((name, start, t))
print(f'{calls} calls; queries: {dict(names)}; {bad} out of nesting')
sys.exit(1 if bad else 0)
