#!/bin/sh
# `tracer --sample` against the generated null libraries of NVML and Level Zero (Sysman),
# each given a behaviour by tests/backends/<b>_null_behaviour.c that this test steers
# through the environment: memory used that rises by a step at each reading, and power
# that steps from 100 W to 250 W after a number of readings. The sampler reads them
# beside a plain app (sleep); then
#  - the timeline has, under a track per device named as its library names it, a counter
#    track per counter, and its values are the behaviour's: memory i x step at the i-th
#    reading, power 100 W then 250 W from the reading the test chose; NVML's memory as
#    nvidia-smi shows it (the versioned nvmlDeviceGetMemoryInfo_v2, its struct's version
#    set): the null NVML's first nvmlDeviceGetMemoryInfo adds the memory the driver
#    reserves (615 MiB), as the real one does;
#  - the report's least, mean and most of each, the peak memory used and when, and the
#    energy are those of the values the timeline holds, worked out here;
#  - with -j, the JSON's "samples" member has those figures too, unrounded, worked out
#    from the same values (samples_json_check.py), and a library that could not be used
#    (the null NVML told to fail its initialisation) is named in its "not_sampled";
#  - with --otf2, each device's metric location holds a metric event per reading of each
#    counter, at its time, of its value: those the timeline holds (otf2_check.py);
#  - a period that is not a number of ms from 1 to 3600000 is a usage error;
#  - a 2-rank job under LAUNCHER (MPICH) of MPI_APP (tests/mpi/mpi_app.c, rank 1 made
#    slower so that the job lasts): only rank 0 (the node's first local rank) samples; the
#    job's report, text and -j, has its devices as "rank 0", with the figures of the
#    values on the job's timeline, from the ranks' result files (cli/job/result_file.c).
# Usage: sample_test.sh TRACER PFTRACE_DUMP NULL_NVML_DIR NULL_ZE_DIR LAUNCHER MPI_APP
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -eq 6 ] || {
  echo "usage: $0 TRACER PFTRACE_DUMP NULL_NVML_DIR NULL_ZE_DIR LAUNCHER MPI_APP" >&2
  exit 2
}
tracer=$(abspath "$1")
dump=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
[ -e "$3/libnvidia-ml.so.1" ] || fail "no null NVML in $3 (is target null_nvml built?)"
[ -e "$4/libze_loader.so.1" ] || fail "no null Level Zero loader in $4 (is null_ze built?)"
LD_LIBRARY_PATH=$3:$4${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
NVML_NULL_POWER_STEP=4 NVML_NULL_MEMORY_STEP=3145728
ZE_NULL_POWER_STEP=6 ZE_NULL_MEMORY_STEP=2097152
export NVML_NULL_POWER_STEP NVML_NULL_MEMORY_STEP ZE_NULL_POWER_STEP ZE_NULL_MEMORY_STEP

# A period that is no number of ms is a usage error (2), before anything runs.
for bad in 0 -5 10x 3600001; do
  run_traced bad --sample=$bad -b opencl -- true
  if [ "$rc" -ne 2 ] || ! grep -q "sample takes a period in ms" "$tmp/bad.err"; then
    fail "--sample=$bad: exit $rc, expected 2 with a message: $(cat "$tmp/bad.err")"
  fi
  [ ! -e "$tmp/bad.trace" ] || fail "--sample=$bad: a trace was made"
done

run_traced sampled --sample=20 -b opencl -o "$tmp/report.txt" -l "$tmp/t.pftrace" \
  --otf2 "$tmp/otf2" -- sleep 0.6
expect_rc 0 sampled
report=$tmp/report.txt
grep -q '^Device counters (tracer --sample): 2 devices$' "$report" ||
  fail "the report has no device counters for 2 devices: $(cat "$report")"
"$dump" -r "$tmp/t.pftrace" >"$tmp/dump.txt" || fail "the timeline does not decode"

# values DEVICE COUNTER: the counter's values on the timeline, in time order, as "TS VALUE".
values() {
  track_of_device=$(sed -n "s/^track \([0-9]*\) .* name=$1\$/\1/p" "$tmp/dump.txt")
  [ -n "$track_of_device" ] || fail "no track named '$1' in the timeline"
  track_of_counter=$(sed -n "s/^track \([0-9]*\) parent=$track_of_device .* name=$2\$/\1/p" \
    "$tmp/dump.txt")
  [ -n "$track_of_counter" ] || fail "no counter track '$2' under the track of '$1'"
  awk -v t="$track_of_counter" '$1 == "counter" && $2 == t { print $3, $4 }' "$tmp/dump.txt" |
    sort -n
}

# bytes N: N bytes as the report writes them (cli/reports/units.c).
bytes() {
  awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", n, " "); u = 1; v = b
    while (v >= 1024 && u < 5) { v /= 1024; u++ }
    if (u == 1) printf "%dB\n", b; else printf "%.2f%s\n", v, n[u] }'
}

# check BACKEND DEVICE MEMORY_STEP FIRST_HIGH: FIRST_HIGH is the index (from 1) of the
# first power value at 250 W on the timeline.
check() {
  backend=$1 device=$2 step=$3 first_high=$4
  values "$device" "memory_used (B)" >"$tmp/memory.txt"
  values "$device" "power (W)" >"$tmp/power.txt"
  cp "$tmp/memory.txt" "$tmp/$backend.memory.txt"
  cp "$tmp/power.txt" "$tmp/$backend.power.txt"
  n=$(wc -l <"$tmp/memory.txt")
  [ "$n" -ge 8 ] || fail "$device: only $n memory readings in 0.6 s at 20 ms"
  awk -v step="$step" '$2 != NR * step { printf "reading %d: %s, not %d\n", NR, $2, NR * step; exit 1 }' \
    "$tmp/memory.txt" >"$tmp/bad.txt" || fail "$device: memory used on the timeline: $(cat "$tmp/bad.txt")"
  awk -v high="$first_high" '{ want = NR < high ? 100 : 250
      if ($2 != want) { printf "value %d: %s W, not %d\n", NR, $2, want; exit 1 } }
    END { if (NR < high) { printf "only %d power values: no step\n", NR; exit 1 } }' \
    "$tmp/power.txt" >"$tmp/bad.txt" || fail "$device: power on the timeline: $(cat "$tmp/bad.txt")"

  # The report's figures, worked out from the timeline's values.
  section=$(sed -n "/^$prefix$device, /,/^[^ ]/p" "$report")
  [ -n "$section" ] || fail "no section for '$device' in the report: $(cat "$report")"
  want_power=$(awk '{ s += $2; if (NR == 1 || $2 < lo) lo = $2; if ($2 > hi) hi = $2 }
    END { printf "power %.2f W %.2f W %.2f W", lo, s / NR, hi }' "$tmp/power.txt")
  got_power=$(printf '%s\n' "$section" | awk '$1 == "power" { print $1, $2, $3, $4, $5, $6, $7 }')
  [ "$got_power" = "$want_power" ] ||
    fail "$device: the report says '$got_power', the timeline's values give '$want_power'"
  mean=$(awk '{ s += $2 } END { printf "%.0f", s / NR }' "$tmp/memory.txt")
  want_memory="memory_used $(bytes "$step") $(bytes "$mean") $(bytes $((n * step)))"
  got_memory=$(printf '%s\n' "$section" | awk '$1 == "memory_used" { print $1, $2, $3, $4 }')
  [ "$got_memory" = "$want_memory" ] ||
    fail "$device: the report says '$got_memory', the timeline's values give '$want_memory'"
  peak=$(printf '%s\n' "$section" |
    sed -n 's/^  peak memory_used: \([^ ]*\) at \([0-9.]*\) s (from the first reading)$/\1 \2/p')
  [ "${peak% *}" = "$(bytes $((n * step)))" ] || fail "$device: peak memory line: $section"
  # At the last reading: the span of the readings (the first is the sampler's first).
  awk -v at="${peak#* }" 'NR == 1 { first = $1 } { last = $1 }
     END { span = (last - first) / 1e9; d = at - span; if (d < 0) d = -d
           if (d > 0.0015) { printf "peak at %s s: the readings span %.4f s\n", at, span; exit 1 } }' \
    "$tmp/memory.txt" >"$tmp/bad.txt" || fail "$device: $(cat "$tmp/bad.txt")"
  want_energy=$(awk 'NR > 1 { e += ($2 + v) / 2 * ($1 - t) / 1e9 } { t = $1; v = $2 }
    END { printf "%.3f", e }' "$tmp/power.txt")
  got_energy=$(printf '%s\n' "$section" | sed -n 's/^  energy (power integrated over [0-9.]* s): \([0-9.]*\) J$/\1/p')
  awk -v got="$got_energy" -v want="$want_energy" 'BEGIN {
      d = got - want; if (d < 0) d = -d; exit !(got != "" && d <= 0.002 + want / 1000) }' ||
    fail "$device: energy: the report says '$got_energy' J, the timeline's power gives $want_energy J"
  echo "$backend: $n readings, power steps at value $first_high, energy $got_energy J"
}

# NVML: power read as it is, the step at the reading the test chose. Sysman: power is the
# energy counter's rate, so its first value comes from the second reading.
prefix=
check nvml "nvml 0: Null GPU" "$NVML_NULL_MEMORY_STEP" $((NVML_NULL_POWER_STEP + 1)) >"$tmp/nvml.txt"
check ze "ze 0: Null Sysman GPU" "$ZE_NULL_MEMORY_STEP" "$ZE_NULL_POWER_STEP" >"$tmp/ze.txt"

# metrics_of DEVICE: each counter track of DEVICE on the timeline as a line of
# otf2_check.py --metrics: the device, the counter, its unit, its values as "TS VALUE ...".
metrics_of() {
  device_track=$(sed -n "s/^track \([0-9]*\) .* name=$1\$/\1/p" "$tmp/dump.txt")
  sed -n "s/^track \([0-9]*\) parent=$device_track .* name=\([^ ]*\) (\(.*\))\$/\1 \2 \3/p" \
    "$tmp/dump.txt" |
    while read -r track counter unit; do
      printf '%s\t%s\t%s\t%s\n' "$1" "$counter" "$unit" "$(awk -v t="$track" \
        '$1 == "counter" && $2 == t { print $3, $4 }' "$tmp/dump.txt" | sort -n | tr '\n' ' ')"
    done
}

# -j: the "samples" member, from the same trace, against the timeline's values.
json_check() {
  python3 "$here/samples_json_check.py" "$@" >"$tmp/bad.txt" || fail "-j: $(cat "$tmp/bad.txt")"
}
"$tracer" -r "$tmp/sampled.trace" -j -o "$tmp/report.json" 2>"$tmp/json.err" ||
  fail "tracer -r -j failed: $(cat "$tmp/json.err")"
json_check "$tmp/report.json" nvml "$tmp/nvml.memory.txt" "$tmp/nvml.power.txt" \
  ze "$tmp/ze.memory.txt" "$tmp/ze.power.txt"
# --otf2: the metrics are the timeline's readings, every counter of both devices.
/usr/bin/python3 -c 'import otf2' 2>/dev/null ||
  fail "Debian's python3 cannot import otf2 (scripts/setup.sh installs python3-otf2)"
{ metrics_of "nvml 0: Null GPU"; metrics_of "ze 0: Null Sysman GPU"; } >"$tmp/metrics.txt"
[ "$(wc -l <"$tmp/metrics.txt")" -ge 4 ] || fail "too few counters on the timeline: $(cat "$tmp/metrics.txt")"
/usr/bin/python3 "$here/../exports/otf2_check.py" "$tmp/otf2" "$tmp/report.json" \
  --metrics "$tmp/metrics.txt" >"$tmp/otf2.txt" 2>&1 || fail "--otf2: $(cat "$tmp/otf2.txt")"
# NVML that does not initialise: Sysman alone is read, NVML is named with its reason.
NVML_NULL_INIT_FAILS=1 run_traced no_nvml --sample=20 -b opencl -j -o "$tmp/no_nvml.json" \
  -l "$tmp/no_nvml.pftrace" -- sleep 0.3
expect_rc 0 no_nvml
"$dump" -r "$tmp/no_nvml.pftrace" >"$tmp/dump.txt" || fail "the timeline does not decode"
values "ze 0: Null Sysman GPU" "memory_used (B)" >"$tmp/ze.memory.txt"
values "ze 0: Null Sysman GPU" "power (W)" >"$tmp/ze.power.txt"
json_check "$tmp/no_nvml.json" ze "$tmp/ze.memory.txt" "$tmp/ze.power.txt" --not-sampled nvml

# A 2-rank MPICH job: rank 0 samples, rank 1 does not; the job's report has rank 0's
# devices, read from the ranks' result files.
launcher=$5 mpi_app=$6
command -v "$launcher" >/dev/null 2>&1 || skip "no MPI launcher $launcher (scripts/setup.sh installs it)"
[ -x "$mpi_app" ] || fail "no MPI test program $mpi_app (is testapp_mpi_mpich_c built?)"
rc=0
TRACER_JOB_TIMEOUT=60 APP_SLOW_RANK=1 "$launcher" -n 2 "$tracer" --sample=20 -b mpich \
  -o "$tmp/job.txt" -l "$tmp/job.pftrace" --trace-output "$tmp/job.trace" "$mpi_app" \
  >"$tmp/job.out" 2>"$tmp/job.err" || rc=$?
[ "$rc" -eq 0 ] || fail "job: exit status $rc: $(cat "$tmp/job.err")"
ls "$tmp/job.trace"/rank-*/tracer-result.txt >/dev/null 2>&1 ||
  fail "job: no rank result files in $tmp/job.trace"
"$dump" -r "$tmp/job.pftrace" >"$tmp/dump.txt" || fail "the job's timeline does not decode"
report=$tmp/job.txt
[ "$(grep -c '^rank [0-9]*, [a-z]* [0-9]*: ' "$report")" -eq 2 ] ||
  fail "job: not 2 sampled devices in the report: $(cat "$report")"
prefix="rank 0, "
check nvml "nvml 0: Null GPU" "$NVML_NULL_MEMORY_STEP" $((NVML_NULL_POWER_STEP + 1)) >"$tmp/nvml.txt"
check ze "ze 0: Null Sysman GPU" "$ZE_NULL_MEMORY_STEP" "$ZE_NULL_POWER_STEP" >"$tmp/ze.txt"
"$tracer" -r "$tmp/job.trace" -j -o "$tmp/job.json" 2>"$tmp/json.err" ||
  fail "job: tracer -r -j failed: $(cat "$tmp/json.err")"
json_check "$tmp/job.json" --rank 0 nvml "$tmp/nvml.memory.txt" "$tmp/nvml.power.txt" \
  ze "$tmp/ze.memory.txt" "$tmp/ze.power.txt"
echo "PASS: $e2e_name: $(cat "$tmp/nvml.txt"); $(cat "$tmp/ze.txt"); -j as the timeline;" \
  "the 2-rank job's report has rank 0's"
