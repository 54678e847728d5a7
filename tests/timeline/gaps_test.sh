#!/bin/sh
# The gap report of `tracer ./gaps` against what the app measured from its own commands'
# profiling timestamps (tests/apps/gaps.c): the longest idle gap is the host's sleep
# between two kernels, spent in no traced call; the time the copy overlapped the kernel,
# and the device's busy time, are the app's. The report prints 3-4 significant digits,
# so the figures must agree to 1% (or 20 us, for rounding and clock conversion).
# Also `tracer -l` on the same run: the gap shows in the timeline (no device slice in it)
# and the copy's slice overlaps the kernel's on another queue track.
# Usage: gaps_test.sh TRACER GAPS_APP PFTRACE_DUMP
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 TRACER GAPS_APP PFTRACE_DUMP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
dump=$(abspath "$3")
e2e_setup
need_app "$app"
need_tracer "$tracer"

run_traced traced -o "$tmp/report.txt" -l "$tmp/t.pftrace" -- "$app"
[ "$rc" -eq 77 ] && skip "no OpenCL runtime"
expect_rc 0 traced
app_says=$(cat "$tmp/traced.out")
value() { printf '%s\n' "$app_says" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
gap=$(value gap_ns)
overlap=$(value overlap_ns)
busy=$(value busy_ns)
[ -n "$gap" ] && [ -n "$overlap" ] && [ -n "$busy" ] || fail "the app printed: $app_says"

# A time as units_time() prints it, in ns.
ns() {
  printf '%s\n' "$1" | awk '{
    v = $0; u = v; sub(/[a-z]+$/, "", v); sub(/^[0-9.]+/, "", u)
    m = (u == "ns") ? 1 : (u == "us") ? 1e3 : (u == "ms") ? 1e6 : (u == "s") ? 1e9 : -1
    if (m < 0) exit 1
    printf "%.0f\n", v * m }'
}
near() { # near WHAT GOT WANT
  awk -v got="$2" -v want="$3" -v what="$1" 'BEGIN {
    d = got - want; if (d < 0) d = -d
    tol = want / 100; if (tol < 20000) tol = 20000
    if (d > tol) { printf "%s: the report says %d ns, the app measured %d ns\n", what, got, want; exit 1 } }'
}
report=$tmp/report.txt
grep -q '^Device use (OPENCL)' "$report" || fail "no device use section in the report: $(cat "$report")"
gap_line=$(sed -n '/^Longest idle gaps/,$p' "$report" | grep '^ 1 |') || fail "no gap listed"
got_gap=$(ns "$(printf '%s\n' "$gap_line" | awk -F'|' '{gsub(/ /, "", $3); print $3}')")
printf '%s\n' "$gap_line" | grep -q 'no traced call' ||
  fail "during the sleep the host was in no traced call; the report says: $gap_line"
got_overlap=$(ns "$(sed -n 's/^Copies overlapping kernels: \([^ ]*\) .*/\1/p' "$report")")
got_busy=$(ns "$(sed -n 's/^all queues *| *\([^ ]*\) .*/\1/p' "$report")")
problems=$( (near "longest gap" "$got_gap" "$gap"; near "copy/kernel overlap" "$got_overlap" "$overlap"
  near "device busy time" "$got_busy" "$busy") 2>&1 || true)
[ -z "$problems" ] || fail "$problems
$(sed -n '/^Device use/,$p' "$report")"
[ "$(grep -c '^queue 0x' "$report")" -eq 2 ] || fail "the report does not list the app's 2 queues"

# The verdict that opens the report: the device's busy share of the app's wall time is
# the app's busy time over it; the host calls' share the tally's less the calls the spec
# says set up (start-up) or wait for the device (api-specs/opencl.yaml: trace.calls with
# setup or waits_for, read here); and the bound follows the rules
# (docs/analysis-output.md#the-verdict) from those shares of the run after start-up.
wall=$(sed -n 's/^wall_ns: //p' "$tmp/traced.trace/tracer-run.txt")
"$tracer" -r "$tmp/traced.trace" -j -o "$tmp/report.json" 2>/dev/null || fail "no JSON tally"
spec="$(dirname "$0")/../../api-specs/opencl.yaml"
setup=$(sed -n 's/^ *"*\([A-Za-z_]*\)"*: {.*setup: true.*/\1/p' "$spec" | jq -R . | jq -s .)
waits=$(sed -n 's/^ *"*\([A-Za-z_]*\)"*: {.*waits_for: device.*/\1/p' "$spec" | jq -R . | jq -s .)
[ "$(echo "$waits" | jq length)" -gt 0 ] || fail "no waits_for in $spec"
shares=$(jq -r --argjson setup "$setup" --argjson waits "$waits" '
  [.backends[] | select(.name == "opencl") | .host[]] as $h
  | [([$h[] | select(.name as $n | ($setup + $waits) | index($n) | not) | .time_ns] | add // 0),
     ([$h[] | select(.name as $n | $setup | index($n)) | .time_ns] | add // 0),
     ([$h[] | select(.name as $n | $waits | index($n)) | .time_ns] | add // 0)] | @tsv' "$tmp/report.json")
host=$(echo "$shares" | cut -f1)
startup=$(echo "$shares" | cut -f2)
waited=$(echo "$shares" | cut -f3)
where=$(sed -n 1p "$report")
verdict=$(sed -n 2p "$report")
awk -v line="$where" -v busy="$busy" -v host="$host" -v wall="$wall" 'BEGIN {
  want_busy = 100 * busy / wall; want_host = 100 * host / wall
  if (!match(line, /busy [0-9.]+%/)) { print "no busy share: " line; exit 1 }
  got_busy = substr(line, RSTART + 5, RLENGTH - 6)
  if (!match(line, /OPENCL host calls [0-9.]+%/)) { print "no host share: " line; exit 1 }
  got_host = substr(line, RSTART + 18, RLENGTH - 19)
  if (got_busy - want_busy > 0.2 || want_busy - got_busy > 0.2) {
    printf "device busy %s%%, the app measured %.2f%%\n", got_busy, want_busy; exit 1 }
  if (got_host - want_host > 0.1 || want_host - got_host > 0.1) {
    printf "host calls %s%%, the tally says %.2f%%\n", got_host, want_host; exit 1 } }' \
  >"$tmp/where.txt" || fail "the verdict's shares: $(cat "$tmp/where.txt")"
want_verdict=$(awk -v busy="$busy" -v host="$host" -v wall="$wall" -v startup="$startup" \
  -v waited="$waited" 'BEGIN {
  run = wall - startup; d = busy / run; h = host / run; w = waited / run
  if (w > d) d = w
  if (d >= 0.5 && d >= h) print (w > busy / run ? "device-bound: the host waits" : "device-bound")
  else if (h >= 0.25) print "host-API-bound: OPENCL"
  else print "none of the traced APIs" }')
case $verdict in
"Verdict: $want_verdict"*) ;;
*) fail "the verdict should be $want_verdict: $verdict (line: $where)" ;;
esac

# The same in the timeline: no device slice inside the gap; the copy overlaps a kernel.
"$dump" -r "$tmp/t.pftrace" >"$tmp/dump.txt" || fail "the timeline does not decode"
sed -n 's/^track \([0-9]*\) .* kind=n .* name=queue .*/\1/p' "$tmp/dump.txt" >"$tmp/queues.txt"
awk 'NR == FNR { queue[$1] = 1; next }
  $1 == "slice" && ($2 in queue) { print $3, $4, $2, ($0 ~ /name=copy/ ? "copy" : "kernel") }' \
  "$tmp/queues.txt" "$tmp/dump.txt" | sort -n >"$tmp/device.txt"
[ -s "$tmp/device.txt" ] || fail "no device slices in the timeline"
# The longest span with no device slice, and whether the copy overlaps a kernel elsewhere.
awk '{ if (NR > 1 && $1 > end && $1 - end > gap) gap = $1 - end; if ($2 > end) end = $2
       s[NR] = $1; e[NR] = $2; q[NR] = $3; k[NR] = $4 }
  END { for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++)
          if (k[i] == "copy" && k[j] == "kernel" && q[i] != q[j] && s[i] < e[j] && e[i] > s[j]) o = 1
        print gap + 0, o + 0 }' "$tmp/device.txt" >"$tmp/seen.txt"
read -r timeline_gap timeline_overlap <"$tmp/seen.txt"
near "longest gap in the timeline" "$timeline_gap" "$gap" >"$tmp/near.txt" || fail "$(cat "$tmp/near.txt")"
if [ "$overlap" -gt 0 ] && [ "$timeline_overlap" -ne 1 ]; then
  fail "the copy slice overlaps no kernel slice on another queue in the timeline"
fi
echo "PASS: $e2e_name: gap ${got_gap} ns (app ${gap}), overlap ${got_overlap} ns (app ${overlap}), busy ${got_busy} ns (app ${busy})"
