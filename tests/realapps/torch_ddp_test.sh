#!/bin/sh
# A PyTorch data-parallel job (torch_ddp.py: DistributedDataParallel over gloo, Debian's
# python3-torch, CPU) of 2 ranks started as torchrun starts them, each rank under the
# tracer (`torchrun --no-python tracer -l python3 torch_ddp.py`). Debian's torchrun stops
# at start under its Python 3.11 (torch.distributed.elastic, untraced too), so the test
# sets torchrun's variables itself. The ranks are one job:
#  - rank 0 alone prints one report for the job of 2 ranks (torchrun), with one process
#    per rank, and the regions each rank opened (ITT, through itt_regions.c), as the
#    ranks counted them;
#  - one timeline for the job: one process track per rank, named "rank N (HOST)", with
#    that rank's region slices;
#  - one OTF2 archive for the job (--otf2), read by otf2-print, with one process location
#    group per rank and the tally's enters per region (tests/exports/otf2_check.py), and
#    one pair of folded stacks (--flame) rooted at the ranks, adding up to the tally
#    (tests/exports/flame_check.py);
#  - the job's steps (--steps): in its JSON report, each rank's table of its Step.N
#    regions and the slowest rank of each step; `tracer diff` of the report against the
#    job's folder: no change, both with the job's steps.
# Usage: torch_ddp_test.sh TRACER ITT_REGIONS PFTRACE_DUMP
set -eu
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 TRACER ITT_REGIONS PFTRACE_DUMP" >&2; exit 2; }
tracer=$(abspath "$1")
export ITT_REGIONS
ITT_REGIONS=$(abspath "$2")
dump=$(abspath "$3")
python=/usr/bin/python3 # Debian's: the python3 on PATH may be another
need_program "$python" python3
"$python" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null ||
  skip "no torch with gloo in $python (Debian's python3-torch)"
e2e_setup
need_tracer "$tracer"
[ -f "$ITT_REGIONS" ] || fail "no ITT helper library at $ITT_REGIONS"

steps=4
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
pids=""
for rank in 0 1; do
  RANK=$rank WORLD_SIZE=2 LOCAL_RANK=$rank LOCAL_WORLD_SIZE=2 GROUP_RANK=0 ROLE_RANK=$rank \
    TORCHELASTIC_RUN_ID="ddp-$$" MASTER_ADDR=127.0.0.1 MASTER_PORT=$port OMP_NUM_THREADS=1 \
    APP_MANIFEST="$tmp/app" \
    "$tracer" -j --steps -o "$tmp/job.json" -l "$tmp/job.pftrace" --trace-output "$tmp/job" \
    --otf2 "$tmp/job.otf2" --flame "$tmp/job.folded" \
    "$python" "$e2e_dir/../realapps/torch_ddp.py" $steps >"$tmp/rank$rank.out" 2>"$tmp/rank$rank.err" &
  pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=$?; done
[ "$rc" -eq 0 ] || fail "a rank exited $rc: $(cat "$tmp/rank0.err" "$tmp/rank1.err")"
for r in 0 1; do [ -s "$tmp/app.$r" ] || fail "rank $r wrote no count: $(cat "$tmp/rank$r.err")"; done

grep -q "job of 2 ranks (torchrun)" "$tmp/rank0.err" ||
  fail "rank 0 did not report one job of 2 ranks: $(cat "$tmp/rank0.err")"
! grep -q "job of" "$tmp/rank1.err" || fail "rank 1 printed a report too: $(cat "$tmp/rank1.err")"
[ -s "$tmp/job.json" ] || fail "no report for the job: $(cat "$tmp/rank0.err")"
jq -e '.job.ranks == [0, 1]' "$tmp/job.json" >/dev/null ||
  fail "the report is not the job's ranks 0 and 1: $(jq -c '.job | del(.matrix, .message_sizes)' "$tmp/job.json")"
check_rank_regions "$tmp/job.json" "$tmp/app.0" "$tmp/app.1"
# One timeline: a process track per rank, named for it, holding that rank's regions.
check_rank_tracks "$tmp/job.pftrace" "$dump" 2 "$tmp"/app.*
# One OTF2 archive and one pair of folded stacks for the job.
otf2-print "$tmp/job.otf2/traces.otf2" >/dev/null 2>"$tmp/print.err" ||
  fail "otf2-print cannot read the job's archive: $(cat "$tmp/print.err")"
"$python" "$e2e_dir/../exports/otf2_check.py" "$tmp/job.otf2" "$tmp/job.json" --ranks 2 \
  >"$tmp/otf2.txt" 2>&1 || fail "the job's OTF2 archive: $(cat "$tmp/otf2.txt")"
"$python" "$e2e_dir/../exports/flame_check.py" "$tmp/job.folded" "$tmp/job.host.folded" \
  "$tmp/job.json" --ranks 2 >"$tmp/flame.txt" 2>&1 ||
  fail "the job's folded stacks: $(cat "$tmp/flame.txt")"
# Steps and windows (docs/steps.md): each rank's steps are its Step.N regions, and the
# job's report over the steps after the first reduces each rank's trace through them.
"$tracer" -r "$tmp/job/rank-0" --steps -j -o "$tmp/steps.json" 2>"$tmp/steps.err" ||
  fail "tracer -r rank-0 --steps failed: $(cat "$tmp/steps.err")"
jq -e --argjson n $steps '([.steps[] | select(.count == $n)] | length == 1)
    and ((.steps[0].steps | map(.name)) == [range($n) | "Step.\(.)"])' "$tmp/steps.json" >/dev/null ||
  fail "rank 0's steps are not its $steps Step.N regions: $(jq -c '[.steps[]? | {what, count}]' "$tmp/steps.json")"
"$tracer" -r "$tmp/job" --skip-steps 1 -j -o "$tmp/window.json" 2>"$tmp/window.err" ||
  fail "tracer -r JOB --skip-steps 1 failed: $(cat "$tmp/window.err")"
jq -e --argjson n $steps '
    ([.backends[] | select(.name == "itt") | .regions[]] | map({key: .name, value: .calls}) | from_entries) as $r
    | $r.Forward == 2 * ($n - 1) and $r["Step.0"] == null and $r["Step.1"] == 2
      and (.job.window | test("after the first 1"))' "$tmp/window.json" >/dev/null ||
  fail "the job's window (steps after the first) does not hold each rank's last $((steps - 1)) steps: $(jq -c '[.backends[] | select(.name == "itt") | .regions[] | {name, calls}]' "$tmp/window.json")"
# The job's folded stacks through the window: each rank's part holds its last steps only.
"$tracer" -r "$tmp/job" --skip-steps 1 --flame "$tmp/window.folded" -o /dev/null 2>"$tmp/wflame.err" ||
  fail "tracer -r JOB --skip-steps 1 --flame failed: $(cat "$tmp/wflame.err")"
! grep -q 'Step\.0[;]' "$tmp/window.host.folded" || fail "the window's folded stacks hold Step.0"
grep -q 'Step\.1[;]' "$tmp/window.host.folded" ||
  fail "the window's folded stacks lack Step.1: $(head -n 3 "$tmp/window.host.folded")"
# Two jobs compared (here the job with itself: nothing changed, exit 0).
"$tracer" diff "$tmp/job" "$tmp/job" -j >"$tmp/diff.json" 2>"$tmp/diff.err" ||
  fail "tracer diff JOB JOB failed: $(cat "$tmp/diff.err")"
jq -e --argjson n $steps '.rows == [] and .whole_ns == 0 and .a_steps.count == $n' "$tmp/diff.json" >/dev/null ||
  fail "a job compared with itself shows changes, or not its $steps steps: $(head -c 600 "$tmp/diff.json")"
# The job's steps in its JSON report (--steps, rank 0's): each rank's table of its steps,
# and per step the slowest rank's time, the most of the ranks' Nth steps.
jq -e --argjson n $steps '
    ([.steps[] | select(.count == $n and (.steps | map(.name)) == [range($n) | "Step.\(.)"]) | .rank] | sort) == [0, 1]
    and (.slowest_ranks | length) == $n
    and ([range($n) as $k | .slowest_ranks[$k] as $s
          | ([.steps[] | select(.rank == $s.rank) | .steps[$k].ns] | first) == $s.ns
            and $s.ns == ([.steps[] | .steps[$k].ns] | max)] | all)' "$tmp/job.json" >/dev/null ||
  fail "the job's JSON report does not have each rank's $steps steps and the slowest rank of each: $(jq -c '{steps: [.steps[]? | {rank, what, count}], slowest_ranks}' "$tmp/job.json")"
# Its report against its folder: the same job, the same steps.
"$tracer" diff "$tmp/job.json" "$tmp/job" -j >"$tmp/diff_report.json" 2>"$tmp/diff_report.err" ||
  fail "tracer diff job.json JOB failed: $(cat "$tmp/diff_report.err")"
jq -e --argjson n $steps '.rows == [] and .a_steps.count == $n and .a_steps == .b_steps' \
  "$tmp/diff_report.json" >/dev/null ||
  fail "the job's JSON report compared with its folder shows changes: $(head -c 600 "$tmp/diff_report.json")"
# The job's steps: each rank's table, then the slowest rank of each of its steps.
"$tracer" -r "$tmp/job" --steps -o "$tmp/job_steps.txt" 2>"$tmp/job_steps.err" ||
  fail "tracer -r JOB --steps failed: $(cat "$tmp/job_steps.err")"
[ "$(grep -c '^Steps of rank [01] ' "$tmp/job_steps.txt")" -eq 2 ] ||
  fail "the job's steps do not have a table per rank: $(grep '^Steps of' "$tmp/job_steps.txt")"
[ "$(sed -n '/^Slowest rank of each step/,$p' "$tmp/job_steps.txt" | grep -c '^ *[0-9]* | *[01] |')" -eq $steps ] ||
  fail "the job's steps do not name the slowest rank of each of its $steps steps: $(sed -n '/^Slowest rank/,$p' "$tmp/job_steps.txt")"
echo "torch_ddp: 2 ranks, one report and one timeline, one OTF2 archive ($(cat "$tmp/otf2.txt")), one pair of folded stacks; regions $(jq -c . "$tmp/actual.json")"
