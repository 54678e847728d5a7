#!/bin/sh
# NCCL traced on its null library (tests/backends/nccl_null_behaviour.c) and the null CUDA
# driver, as 2 ranks of a job started with torchrun's variables, each under the tracer
# (docs/null-library.md, docs/analysis-output.md). tests/apps/nccl_app.c writes every
# operation it made with its parameters; from them this test works out, by nccl-tests'
# definitions written out below, what the job's one report must say:
#  - every call counted: NCCL's and the driver's, the app's own in the tables, those NCCL
#    made inside its calls set apart (inside_other, docs/trace-format.md);
#  - each function's bytes (count x the datatype's size);
#  - the collectives table: one row per operation, reduction, communicator size and
#    size S, with its calls, bytes, bus factor, algorithm and bus bandwidths, and the
#    time of the kernels each operation launched (NCCL's kernels, all of them, and
#    not the app's own), a group's kernel shared by the sizes of its operations;
#  - the table in the text report, after NCCL's tables, and for one rank's trace alone;
#  - each collective under the app's line that made it (its stack, -t's `at` line);
#  - the message matrix in the job's ranks, for the communicator of 4 ranks too (of which
#    the job's ranks hold ranks 1 and 3), sends to its other ranks left out and counted;
#  - the stragglers: every collective of both communicators, each with the rank that
#    arrived last and its lag within what the app's own clock readings around its calls
#    allow; rank 1 arrives 200 ms late at one AllReduce (APP_SLOW_RANK).
# TIMING (events, the default, or cupti) is how the tracer times the device work: cupti
# takes the stand-in CUPTI (cupti_standin.c), whose kernel records name no call but carry
# CUPTI's correlation id; then every kernel's device command must also name the launch
# that submitted it (the tracer's external correlation ids), as under events.
# Usage: nccl_test.sh TRACER APP [TIMING]
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
e2e_dir=$(cd "$(dirname "$0")/../e2e" && pwd) # compare.jq lives there
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 TRACER APP [events|cupti]" >&2; exit 2; }
timing=${3:-events}
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$app"
export NCCL_NULL_CALL_US=100
case $timing in
events) export TRACER_CUDA_TIMING=events ;;
cupti) unset TRACER_CUDA_TIMING ;;
*) echo "$0: timing $timing: events or cupti" >&2; exit 2 ;;
esac
size=2

# ---- the job: 2 ranks, as torchrun starts them ----
RANK=0 WORLD_SIZE=$size run_plain plain "$app"
expect_rc 0 plain
pids=""
for rank in 0 1; do
  RANK=$rank WORLD_SIZE=$size LOCAL_RANK=$rank LOCAL_WORLD_SIZE=$size GROUP_RANK=0 \
    TORCHELASTIC_RUN_ID="nccl-$$" APP_MANIFEST="$tmp/app.$rank" APP_SLOW_RANK=1 \
    "$tracer" -j -o "$tmp/job.json" --trace-output "$tmp/job" "$app" \
    >"$tmp/rank$rank.out" 2>"$tmp/rank$rank.err" &
  pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=$?; done
[ "$rc" -eq 0 ] || fail "a rank exited $rc: $(cat "$tmp/rank0.err" "$tmp/rank1.err")"
cmp -s "$tmp/plain.out" "$tmp/rank0.out" || fail "rank 0's output differs traced"
same_manifest "$tmp/plain.json" "$tmp/app.0"
grep -q "job of $size ranks (torchrun)" "$tmp/rank0.err" ||
  fail "rank 0 did not report one job of $size ranks: $(cat "$tmp/rank0.err")"
! grep -q "counted from their events" "$tmp/rank0.err" ||
  fail "the ranks' results were not read: $(cat "$tmp/rank0.err")"
jq -e --argjson n $size '.job.ranks == [range($n)]' "$tmp/job.json" >/dev/null ||
  fail "the report is not the job's: $(jq -c '.job.ranks' "$tmp/job.json")"

# ---- every call counted ----
merge_manifests "$tmp/app.json" "$tmp/app.0" "$tmp/app.1"
jq -s '.[0] + {calls: (.[0].calls | with_entries(select(.key | startswith("nccl")))),
               bytes: {}, transfers: {}, kernels: {}}' "$tmp/app.json" >"$tmp/nccl.expected"
# The driver: the app's own calls (the ones NCCL made inside its calls are NCCL's, set
# apart: below), and the kernels of both.
jq -s 'def addmaps: reduce .[] as $m ({}; reduce ($m | to_entries[]) as $e (.; .[$e.key] += $e.value));
       .[0] + {calls: (.[0].calls | with_entries(select(.key | startswith("cu")))),
               kernels: ([.[0].kernels] + [.[1:][] | .kernels] | addmaps)}' \
  "$tmp/app.json" "$tmp/app.0.nccl" "$tmp/app.1.nccl" >"$tmp/cuda.expected"
# CUPTI's records name no API: a copy is `memcpy(KIND)` (runtime/cupti/cupti_records.c).
if [ "$timing" = cupti ]; then
  jq 'def cupti: with_entries(.key |= sub("^cuMemcpy[A-Za-z0-9_]*\\("; "memcpy("));
      . + {bytes: (.bytes | cupti), transfers: (.transfers | cupti)}' "$tmp/cuda.expected" \
    >"$tmp/cuda.cupti" && mv "$tmp/cuda.cupti" "$tmp/cuda.expected"
fi
E2E_BACKEND=nccl compare_tally "$tmp/job.json" "$tmp/nccl.expected"
E2E_BACKEND=cuda compare_tally "$tmp/job.json" "$tmp/cuda.expected"
# The driver calls NCCL made inside its calls, as it counted them, set apart.
inside_differs=$(jq -n --slurpfile t "$tmp/job.json" --slurpfile a "$tmp/app.0.nccl" \
  --slurpfile b "$tmp/app.1.nccl" '
  ([$t[0].backends[] | select(.name == "cuda") | .inside_other[] | {(.name): .calls}] | add // {}) as $got
  | (reduce ($a[0].calls, $b[0].calls | to_entries[]) as $e ({}; .[$e.key] += $e.value)) as $want
  | ($want + $got | keys[]) as $k | select($got[$k] != $want[$k])
  | "\($k): \($got[$k] // 0) set apart, NCCL made \($want[$k] // 0)"')
[ -z "$inside_differs" ] || fail "the driver calls NCCL made, set apart: $inside_differs"

# ---- what the app did, and what nccl-tests make of it ----
jq -s '[to_entries[] | .key as $rank | .value[] | . + {rank: $rank}]' \
  "$tmp/app.0.ops" "$tmp/app.1.ops" >"$tmp/ops.json"
# nccl-tests' definitions (doc/PERFORMANCE.md): S = count x type size, of the whole buffer
# (times n) for AllGather, ReduceScatter, AlltoAll, Gather and Scatter; busbw = algbw x
# 2(n-1)/n for AllReduce, (n-1)/n for those, 1 for Broadcast, Reduce, Send and Recv.
cat >"$tmp/nccl_tests.jq" <<'EOF'
def whole($name): ["ncclAllGather", "ncclReduceScatter", "ncclAlltoAll", "ncclGather",
                   "ncclScatter"] | index($name) != null;
def bus_factor($name; $n):
  if $name == "ncclAllReduce" then 2 * ($n - 1) / $n
  elif whole($name) then ($n - 1) / $n
  else 1 end;
def expected_rows:
  map(. + {size: (.count * .type_size * (if whole(.name) then .ranks else 1 end))})
  | group_by([.name, .op, .ranks, .size])
  | map({name: .[0].name, op: .[0].op, ranks: .[0].ranks, size: .[0].size, calls: length,
         factor: bus_factor(.[0].name; .[0].ranks)})
  # Few calls: under a quarter of the calls of the same operation's busiest size.
  | group_by([.name, .op, .ranks])
  | map((map(.calls) | max) as $most | map(. + {few: (.calls * 4 < $most)})[]);
def close($a; $b): (($a - $b) | fabs) <= 1e-6 * ([($a | fabs), ($b | fabs), 1] | max);
# Each expected row against the report's: one line per difference.
def compare_rows($rows):
  expected_rows as $want
  | (if ($rows | length) != ($want | length)
     then "\($rows | length) rows, expected \($want | length)" else empty end),
    ($want[] as $w
     | [$rows[] | select(.name == $w.name and .op == $w.op and .ranks == $w.ranks
                         and .size == $w.size)] as $got
     | if ($got | length) != 1 then "\($w | tostring): \($got | length) rows"
       else $got[0] as $g
       | ((if $g.calls != $w.calls then "calls \($g.calls), expected \($w.calls)" else empty end),
          (if $g.bytes != $w.size * $w.calls then "bytes \($g.bytes), expected \($w.size * $w.calls)" else empty end),
          (if close($g.bus_factor; $w.factor) | not then "bus factor \($g.bus_factor), expected \($w.factor)" else empty end),
          (if $g.few_calls != $w.few then "few_calls \($g.few_calls), expected \($w.few)" else empty end),
          (if $g.kernels != $w.calls then "kernels \($g.kernels), one per call expected: \($w.calls)" else empty end),
          (if $g.device_ns <= 0 or $g.bandwidth_time != "device" then "no device time" else empty end),
          (if close($g.algbw_bytes_per_second; $g.bytes * 1e9 / $g.device_ns) | not
           then "algbw \($g.algbw_bytes_per_second), expected bytes / device time \($g.bytes * 1e9 / $g.device_ns)" else empty end),
          (if close($g.busbw_bytes_per_second; $g.algbw_bytes_per_second * $w.factor) | not
           then "busbw \($g.busbw_bytes_per_second), expected algbw x \($w.factor)" else empty end))
         | "\($w.name) \($w.op) n=\($w.ranks) S=\($w.size): \(.)"
       end);
EOF
problems=$(jq -r --slurpfile job "$tmp/job.json" -L "$tmp" \
  'include "nccl_tests"; compare_rows($job[0].collectives)' "$tmp/ops.json") ||
  fail "cannot check the collectives table"
[ -z "$problems" ] || fail "the job's collectives table:
$problems
$(jq -c '.collectives[]' "$tmp/job.json")"

# Each function's bytes: count x type size, as the app called it.
problems=$(jq -r --slurpfile job "$tmp/job.json" '
  (group_by(.name) | map({(.[0].name): (map(.count * .type_size) | add)}) | add) as $want
  | ($job[0].backends[] | select(.name == "nccl") | .host | map({(.name): .bytes}) | add) as $got
  | $want | to_entries[] | select($got[.key] != .value)
  | "\(.key): \($got[.key]) bytes, the app moved \(.value)"' "$tmp/ops.json")
[ -z "$problems" ] || fail "NCCL's bytes: $problems"

# ---- the kernels, tied to the operations that launched them ----
# All of NCCL's kernel time and none of the app's own kernel: the rows' device time adds
# up to the time of the kernels NCCL launched.
jq -s '[.[].kernels | keys[]] | unique' "$tmp/app.0.nccl" "$tmp/app.1.nccl" >"$tmp/nccl_kernels.json"
jq -e --slurpfile names "$tmp/nccl_kernels.json" '
  ([.collectives[].device_ns] | add) as $tied
  | ([.backends[] | select(.name == "cuda") | .device[]
      | select(.name as $n | $names[0] | index($n)) | .time_ns] | add) as $nccl
  | $tied == $nccl and $nccl > 0' "$tmp/job.json" >/dev/null ||
  fail "the collectives' device time is not that of NCCL's kernels: $(jq -c \
    '{tied: ([.collectives[].device_ns] | add), kernels: [.backends[] | select(.name == "cuda") | .device[] | {name, time_ns}]}' "$tmp/job.json")"
# Under CUPTI: the kernels were timed by the stand-in (7 us each, within 10 ns: both ends
# are put on the trace clock by one sampling of the clocks), and each kernel's
# device command names its launch (call_tid, call_start), one launch per kernel: the ties
# above then went by those names alone (a named launch that is not found ties nothing),
# so every NCCL kernel counted on its row was tied by CUPTI's correlation id.
if [ "$timing" = cupti ]; then
  jq -e '[.backends[] | select(.name == "cuda") | .device[] | select(.kind == "kernel" or .kind == null)
          | .min_ns >= 6990 and .max_ns <= 7010] | length > 0 and all' "$tmp/job.json" >/dev/null ||
    fail "the kernels were not timed by the stand-in CUPTI (7 us each): $(jq -c \
      '[.backends[] | select(.name == "cuda") | .device[]]' "$tmp/job.json")"
  for rank in 0 1; do
    babeltrace2 "$tmp/job/rank-$rank" 2>/dev/null |
      awk '/lttng_ust_tracer:device_command:/ && /kind = 0,/' >"$tmp/kernels.$rank"
    commands=$(wc -l <"$tmp/kernels.$rank")
    named=$(sed -n 's/.*call_tid = \([0-9-]*\), call_start = \([0-9]*\).*/\1 \2/p' \
      "$tmp/kernels.$rank" | awk '$1 > 0 && $2 > 0' | sort -u | wc -l)
    [ "$commands" -gt 0 ] && [ "$named" -eq "$commands" ] ||
      fail "rank $rank: $named of $commands kernel commands name their launch (one each)
$(head -3 "$tmp/kernels.$rank")"
    # The stand-in hands its records over on threads of its own, as CUPTI does: the
    # device table's threads are those that launched the kernels, among the CUDA calls'.
    "$tracer" -r "$tmp/job/rank-$rank" -o "$tmp/rank$rank.tally.txt" 2>/dev/null
    host_threads=$(sed -n 's/^BACKEND_CUDA |.*| \([0-9]*\) Threads |$/\1/p' "$tmp/rank$rank.tally.txt")
    device_threads=$(sed -n 's/^Device profiling (CUDA) |.*| \([0-9]*\) Threads |$/\1/p' "$tmp/rank$rank.tally.txt" | sort -n | tail -1)
    [ -n "$host_threads" ] && [ -n "$device_threads" ] && [ "$device_threads" -ge 1 ] &&
      [ "$device_threads" -le "$host_threads" ] ||
      fail "rank $rank: the device table counts ${device_threads:-no} threads, the CUDA calls ${host_threads:-no}: $(grep -e '^BACKEND_CUDA' -e '^Device profiling (CUDA)' "$tmp/rank$rank.tally.txt")"
  done
fi
# A group's one kernel, shared by size: equal halves for a send and a receive of the same
# size (the last operation taking the odd ns), 1:3 for broadcasts of 1000 and 3000 bytes.
groups_of() { jq --arg f "$1" --argjson s "$2" \
  '[.[] | select(.name == $f and .count * .type_size == $s and .group > 0) | [.rank, .group]] | unique | length' \
  "$tmp/ops.json"; }
pairs=$(groups_of ncclSend 8192)
trios=$(groups_of ncclBroadcast 1000)
jq -e --argjson pairs "$pairs" --argjson trios "$trios" --argjson n $size '
  def dev($f; $s): [.collectives[] | select(.name == $f and .size == $s and .ranks == $n) | .device_ns] | add;
  (dev("ncclRecv"; 8192) - dev("ncclSend"; 8192)) as $halves
  | (dev("ncclBroadcast"; 3000) - 3 * dev("ncclBroadcast"; 1000)) as $thirds
  | $pairs > 0 and $trios > 0 and $halves >= 0 and $halves <= $pairs
    and $thirds >= 0 and $thirds <= 3 * $trios' "$tmp/job.json" >/dev/null ||
  fail "a group's kernel is not shared by the sizes of its operations: $(jq -c \
    '[.collectives[] | select(.name == "ncclSend" or .name == "ncclRecv" or .name == "ncclBroadcast") | {name, size, ranks, device_ns}]' "$tmp/job.json")"

# ---- each collective under the app's line that made it (docs/flame.md) ----
# A collective submits device work: its call carries a stack, which -t names by the app's
# source line; that line of tests/apps/nccl_app.c calls that function.
"$tracer" -r "$tmp/job/rank-0" -t >"$tmp/rank0.calls" 2>/dev/null || fail "tracer -r rank-0 -t failed"
src="$(dirname "$0")/../apps/nccl_app.c"
for fn in ncclAllReduce ncclBroadcast; do
  want=$(jq ".calls.$fn // 0" "$tmp/app.0")
  grep -A1 "lttng_ust_nccl:${fn}_entry:" "$tmp/rank0.calls" |
    sed -n 's/^    at main (.*nccl_app\.c:\([0-9]*\))$/\1/p' >"$tmp/$fn.lines"
  got=$(wc -l <"$tmp/$fn.lines")
  [ "$want" -gt 0 ] && [ "$got" -eq "$want" ] ||
    fail "rank 0: $got $fn calls under a line of nccl_app.c's main in -t, the app made $want"
  for n in $(sort -u "$tmp/$fn.lines"); do
    sed -n "${n}p" "$src" | grep -q "$fn" || fail "-t puts $fn at nccl_app.c:$n: $(sed -n "${n}p" "$src")"
  done
done

# ---- the message matrix ----
# In the job's ranks: a peer is a rank of the call's communicator, held by the job's rank
# whose calls on it name it as their own (comm_rank). Sends to a rank that no traced
# process holds are left out, and counted.
problems=$(jq -r --slurpfile job "$tmp/job.json" '
  (map({key: "\(.comm) \(.comm_rank)", value: .rank}) | from_entries) as $holder
  | [.[] | select(.name == "ncclSend")
     | {from: .rank, to: $holder["\(.comm) \(.peer)"], bytes: (.count * .type_size)}]
  | (map(select(.to != null)) | group_by([.from, .to])
     | map({from: .[0].from, to: .[0].to, bytes: (map(.bytes) | add), messages: length})) as $want
  | (map(select(.to == null)) | {bytes: (map(.bytes) | add), messages: length}) as $untraced
  | $job[0].job as $got
  | (if $got.matrix == $want then empty else "got \($got.matrix | tostring), expected \($want | tostring)" end),
    (if $untraced.messages > 0 and $got.matrix_untraced == $untraced then empty
     else "untraced peers: \($got.matrix_untraced | tostring), expected \($untraced | tostring)" end)' \
  "$tmp/ops.json")
[ -z "$problems" ] || fail "the message matrix: $problems"

# ---- the stragglers ----
# A collective is the seq-th collective call of the ranks on one communicator. Each rank
# arrived (its call started) between the app's readings before and after the call; the
# clocks of two traces may differ by the conversion of each (1 ms allowed).
problems=$(jq -r --slurpfile job "$tmp/job.json" '
  def p2p: .name == "ncclSend" or .name == "ncclRecv";
  def slack: 1000000;
  [group_by(.rank)[] | group_by(.comm)[] | map(select(p2p | not))
   | to_entries[] | .value + {seq: .key}]
  | group_by([.comm, .seq])
  | map({comm: .[0].comm, seq: .[0].seq, ranks: .[0].ranks, name: .[0].name,
         lo: (([.[].before] | max) - ([.[].after] | min)),
         hi: (([.[].after] | max) - ([.[].before] | min)),
         sure: (max_by(.before) as $l | if all(.[]; .rank == $l.rank or .after + slack < $l.before)
                then $l.rank else null end)}) as $want
  | ($job[0].stragglers // [] | map(select(.backend == "nccl")) | .[0]) as $got
  | if $got == null then "no stragglers in the report"
    else
      (if $got.collectives != ($want | length) then "\($got.collectives) collectives, expected \($want | length)" else empty end),
      (if ([$got.ranks[].last] | add) != ($want | length) then "the ranks arrived last at \([$got.ranks[].last] | add) collectives, expected \($want | length)" else empty end),
      (if $got.communicators != 2 then "\($got.communicators) communicators, expected 2" else empty end),
      (if ($got.top | length) != ([$want | length, 20] | min) then "\($got.top | length) collectives listed, expected the 20 of the longest lags" else empty end),
      (if [$got.top[].lag_ns] != ([$got.top[].lag_ns] | sort | reverse) then "the list is not by lag, longest first" else empty end),
      ($got.top[] as $g
       | ([$want[] | select(.ranks == $g.ranks and .seq == $g.seq)] | first) as $e
       | if $e == null then "unexpected collective \($g | tostring)"
         elif $g.seq != $e.seq or $g.name != $e.name or $g.arrivals != 2 then "\($g | tostring), expected \($e | tostring)"
         elif $g.lag_ns < $e.lo - slack or $g.lag_ns > $e.hi + slack then "\($g.name) #\($g.seq) of \($e.comm): lag \($g.lag_ns), the app allows [\($e.lo), \($e.hi)]"
         elif $e.sure != null and $g.last_rank != $e.sure then "\($g.name) #\($g.seq) of \($e.comm): last rank \($g.last_rank), expected \($e.sure)"
         else empty end)
    end' "$tmp/ops.json")
[ -z "$problems" ] || fail "the stragglers: $problems
$(jq -c '.stragglers' "$tmp/job.json")"
# The late AllReduce is certain when the ranks started together: the app slept 200 ms
# before it on rank 1 alone. (The null NCCL does not make ranks wait for each other: on
# a loaded machine one rank may start hundreds of ms after the other, and then the sleep
# proves nothing; the checks above hold either way, against the app's own clocks.)
if jq -e '([.[] | select(.rank == 0)][0].before - [.[] | select(.rank == 1)][0].before)
          | fabs < 50000000' "$tmp/ops.json" >/dev/null; then
  jq -e '[.[] | select(.comm == "world" and .name == "ncclAllReduce" and .rank == 1)][1].before
         - [.[] | select(.comm == "world" and .name == "ncclAllReduce" and .rank == 0)][1].after
         > 1000000' "$tmp/ops.json" >/dev/null ||
    fail "rank 1 did not arrive late at the second AllReduce: $(jq -c '.[] | select(.name == "ncclAllReduce")' "$tmp/ops.json")"
fi

# ---- the text report: the table after NCCL's tables ----
rc=0
"$tracer" -r "$tmp/job" >"$tmp/job.txt" 2>"$tmp/replay.err" || rc=$?
expect_rc 0 replay
awk '/^BACKEND_NCCL /{nccl = NR} /^BACKEND_/ && !/^BACKEND_NCCL /{if (nccl) other = NR}
     /^Collectives \(NCCL\)$/{table = NR}
     END {exit !(nccl && table > nccl && (!other || other > table))}' "$tmp/job.txt" ||
  fail "no collectives table after NCCL's tables: $(cat "$tmp/job.txt")"
# Its rows: name, operation, ranks and calls of each expected row.
awk -F ' *[|] *' '/^Collectives \(NCCL\)$/{on = 1; next} on && /^Size:/{exit}
     on && NF > 5 && $1 != "Name" {print $1 "|" $2 "|" $3 "|" $5}' "$tmp/job.txt" |
  sort >"$tmp/text_rows"
jq -r -L "$tmp" 'include "nccl_tests"; expected_rows[]
  | "\(.name)|\(.op // "-")|\(.ranks)|\(.calls)\(if .few then "~" else "" end)"' "$tmp/ops.json" |
  sort >"$tmp/want_rows"
cmp -s "$tmp/text_rows" "$tmp/want_rows" || fail "the text table's rows:
$(diff "$tmp/want_rows" "$tmp/text_rows")"

# The stragglers after the table: each rank's row says at how many it arrived last.
awk -F ' *[|] *' '/^Stragglers \(NCCL\)/{on = 1; next} on && /^Last at:/{exit}
     on && $1 ~ /^ *[0-9]+$/ {gsub(/ /, "", $1); print $1 "|" $2}' "$tmp/job.txt" |
  sort >"$tmp/straggler_rows"
jq -r '.stragglers[] | select(.backend == "nccl") | .ranks[] | "\(.rank)|\(.last)"' \
  "$tmp/job.json" | sort >"$tmp/want_straggler_rows"
[ -s "$tmp/want_straggler_rows" ] && cmp -s "$tmp/straggler_rows" "$tmp/want_straggler_rows" ||
  fail "the text's stragglers:
$(diff "$tmp/want_straggler_rows" "$tmp/straggler_rows")
$(cat "$tmp/job.txt")"

# Every GPU its own device in the job's report (each rank on the GPU of its LOCAL_RANK):
# the device table of GPU r, named with the host, and the HTA rows of rank r hold what
# rank r's own report holds for its GPU.
device_rows() { # FILE HEADER_PREFIX: Name|Calls of that device table
  awk -F ' *[|] *' -v h="$2" 'index($0, h) == 1 {on = 1; next} on && NF < 3 && rows {exit}
       on && NF >= 3 && $1 != "Name" && $1 != "Total" {print $1 "|" $4; rows++}' "$1" | sort
}
host=$(hostname)
for r in 0 1; do
  "$tracer" -r "$tmp/job/rank-$r" >"$tmp/rank$r.txt" 2>/dev/null
  device_rows "$tmp/rank$r.txt" "Device profiling (CUDA) | GPU $r: " >"$tmp/rank$r.devices"
  device_rows "$tmp/job.txt" "Device profiling (CUDA) | GPU $r: Null GPU $r on $host |" \
    >"$tmp/job$r.devices"
  [ -s "$tmp/rank$r.devices" ] && cmp -s "$tmp/rank$r.devices" "$tmp/job$r.devices" ||
    fail "the job's device table of GPU $r (on $host) is not rank $r's:
$(diff "$tmp/rank$r.devices" "$tmp/job$r.devices")
$(grep '^Device profiling' "$tmp/job.txt")"
  # And HTA's rows of that GPU, breakdown and launch delay, as rank r's own report has
  # them. (The launch delays also catch a read that takes the clock read's cost off some
  # call ends only: rank r's report reads its streams on several threads, the job's
  # reduction on the rank's own; the run record's least clock read makes them agree.)
  grep "^rank $r GPU $r " "$tmp/rank$r.txt" >"$tmp/rank$r.hta"
  grep "^rank $r GPU $r " "$tmp/job.txt" >"$tmp/job$r.hta"
  [ "$(wc -l <"$tmp/rank$r.hta")" -eq 2 ] && cmp -s "$tmp/rank$r.hta" "$tmp/job$r.hta" ||
    fail "the job's HTA rows of rank $r are not its own report's:
$(cat "$tmp/rank$r.hta")
---
$(cat "$tmp/job$r.hta")"
done

# ---- one rank's trace alone: the same table, of its operations ----
rc=0
"$tracer" -r "$tmp/job/rank-1" -j -o "$tmp/rank1.json" >/dev/null 2>"$tmp/rank1_replay.err" || rc=$?
expect_rc 0 rank1_replay
problems=$(jq -r --slurpfile run "$tmp/rank1.json" -L "$tmp" \
  'include "nccl_tests"; map(select(.rank == 1)) | compare_rows($run[0].collectives)' \
  "$tmp/ops.json")
[ -z "$problems" ] || fail "rank 1's own collectives table: $problems"

echo "PASS: $e2e_name: $(jq '.collectives | length' "$tmp/job.json") collective rows, $(jq 'length' "$tmp/ops.json") operations, matrix $(jq -c '.job.matrix' "$tmp/job.json")"
