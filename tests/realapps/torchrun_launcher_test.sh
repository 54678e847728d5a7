#!/bin/sh
# `tracer torchrun ... train.py`: the launcher under the tracer, its children the ranks.
# torch_ddp.py (DDP over gloo, Debian's python3-torch) on 2 ranks started by fake_torchrun
# (torchrun's variables, as torchrun sets them; Debian's torchrun stops at start), all in
# one trace:
#  - one report whose regions are the ranks' own count (ITT, through itt_regions.c), which
#    says it is a job of 2 ranks (torchrun) and names each rank's process (JSON
#    rank_processes), the launcher not among them;
#  - -e: each rank's calls apart (actors with ranks 0 and 1), the launcher's without one;
#  - --ranks: each call's time per rank over ranks 0 and 1, with the stragglers;
#  - one timeline: a process track per rank named "rank N (HOST)", holding that rank's
#    regions.
# Usage: torchrun_launcher_test.sh TRACER ITT_REGIONS PFTRACE_DUMP
set -eu
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 TRACER ITT_REGIONS PFTRACE_DUMP" >&2; exit 2; }
tracer=$(abspath "$1")
export ITT_REGIONS
ITT_REGIONS=$(abspath "$2")
dump=$(abspath "$3")
launcher="$(cd "$(dirname "$0")" && pwd)/fake_torchrun"
python=/usr/bin/python3 # Debian's: the python3 on PATH may be another
need_program "$python" python3
"$python" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null ||
  skip "no torch with gloo in $python (Debian's python3-torch)"
e2e_setup
need_tracer "$tracer"
[ -f "$ITT_REGIONS" ] || fail "no ITT helper library at $ITT_REGIONS"

rc=0
APP_MANIFEST="$tmp/app" "$tracer" -e -j -o "$tmp/job.json" -l "$tmp/job.pftrace" \
  --trace-output "$tmp/trace" "$launcher" "$python" "$e2e_dir/../realapps/torch_ddp.py" 3 \
  >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || fail "the traced launcher exited $rc: $(cat "$tmp/err")"
for r in 0 1; do [ -s "$tmp/app.$r" ] || fail "rank $r wrote no count: $(cat "$tmp/err")"; done

# The ranks' processes, the launcher not among them.
jq -e '[.rank_processes[] | .rank] | sort == [0, 1]' "$tmp/job.json" >/dev/null ||
  fail "rank_processes is not ranks 0 and 1: $(jq -c '.rank_processes' "$tmp/job.json")"
jq -e '[.rank_processes[] | select(.launcher != "torchrun" or .size != 2)] == []' \
  "$tmp/job.json" >/dev/null || fail "ranks not from torchrun of size 2: $(jq -c '.rank_processes' "$tmp/job.json")"
# --ranks on the same trace: each ITT call's time per rank, over the 2 ranks only (the
# launcher is no rank), naming ranks 0 and 1 at the ends.
"$tracer" -r "$tmp/trace" --ranks >"$tmp/ranks" 2>&1 || fail "tracer -r --ranks failed: $(cat "$tmp/ranks")"
grep -q '^Per-rank time (ITT) | 2 ranks |' "$tmp/ranks" ||
  fail "--ranks: no per-rank table of 2 ranks: $(cat "$tmp/ranks")"
awk -F' *[|] *' '/^Per-rank time/ { on = 1 } on && ($1 == "All calls" || $1 ~ /^__itt_/) {
    if ($7 != 2 || ($5 != 0 && $5 != 1) || ($6 != 0 && $6 != 1)) bad = bad "\n" $0; rows++ }
  END { if (!rows) print "no rows"; else if (bad != "") print "rows not over ranks 0 and 1:" bad }' \
  "$tmp/ranks" >"$tmp/ranks.bad"
[ ! -s "$tmp/ranks.bad" ] || fail "--ranks: $(cat "$tmp/ranks.bad")"

# Regions: the ranks' own count.
check_rank_regions "$tmp/job.json" "$tmp/app.0" "$tmp/app.1"
# Per rank (-e): each rank's actors have its rank and its regions' calls are its own;
# the launcher's (python running fake_torchrun, traced too) have none.
jq -e '[.backends[].actors[]? | .rank // empty] | unique == [0, 1]' "$tmp/job.json" >/dev/null ||
  fail "-e: the actors' ranks are not 0 and 1: $(jq -c '[.backends[].actors[]? | {rank, pid}] | unique' "$tmp/job.json")"
pids=$(jq -r '[.rank_processes[] | .pid] | map(tostring) | join(" ")' "$tmp/job.json")
jq -e --arg pids "$pids" '($pids | split(" ") | map(tonumber)) as $p
  | [.backends[].actors[]? | select(.rank == null and (.pid as $x | $p | index($x)))] == []' \
  "$tmp/job.json" >/dev/null || fail "-e: a rank's process has actors without its rank"
# The text report of the same trace says it is a job of 2 ranks.
"$tracer" -r "$tmp/trace" >"$tmp/text" 2>&1 || fail "tracer -r failed: $(cat "$tmp/text")"
grep -q "The trace holds 2 ranks of a job (torchrun, world size 2)" "$tmp/text" ||
  fail "the report does not say it is a job of 2 ranks: $(head -20 "$tmp/text")"

# One timeline: a process track per rank, named for it, holding its regions (the launcher
# makes no traced call here, so it has no track).
check_rank_tracks "$tmp/job.pftrace" "$dump" 2 "$tmp"/app.*
echo "PASS: torchrun_launcher: 2 ranks under one traced launcher; regions $(jq -c . "$tmp/actual.json")"
