#!/bin/sh
# The text tally (no -j) of the threads app, checked against docs/analysis-output.md and
# the app's own count:
#  - the header line is exactly `BACKEND_OPENCL | 1 Hostnames | 1 Processes | T Threads |`
#    where T is the number of threads that made OpenCL calls (the app's manifest says;
#    main + 4 workers), followed by a blank line and the column header row
#    `Name | Time | Time(%) | Calls | Average | Min | Max | Error |` (any padding);
#  - the host table has one row per function the app called, with its Calls and Error,
#    and a Total row with the sums;
#  - "Device profiling (OPENCL)" has a row per kernel with the app's launch count, and
#    "Memory traffic (OPENCL)" a row per transfer function with the app's command count.
# Usage: text_test.sh TRACER THREADS [ITERATIONS]
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 TRACER THREADS [ITERATIONS]" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
shift 2
e2e_setup
need_app "$app"

run_plain plain "$app" "$@"
expect_rc 0 plain
need_tracer "$tracer"
run_traced traced -o "$tmp/tally.txt" -- "$app" "$@"
expect_rc 0 traced
[ -s "$tmp/tally.txt" ] || fail "tracer wrote no tally to $tmp/tally.txt"
same_stdout plain traced
m=$tmp/traced.json

show_tally() {
  echo "  tally:" >&2
  sed 's/^/    /' "$tmp/tally.txt" >&2
}

threads=$(jq .threads "$m")
header="BACKEND_OPENCL | 1 Hostnames | 1 Processes | $threads Threads |"
if ! grep -qxF "$header" "$tmp/tally.txt"; then
  echo "FAIL: $e2e_name: no line \"$header\" ($threads threads made OpenCL calls)" >&2
  show_tally
  exit 1
fi

# The rows of the table under the line that starts with TITLE: "name calls error", one
# per row, then "Total calls error". Fails (exit 3) when the table layout is not the
# documented one: a blank line after the title, then the column header row.
table() {
  awk -v title="$1" -v columns="$2" '
    function trim(s) { gsub(/^ +| +$/, "", s); return s }
    state == 0 && index($0, title) == 1 { state = 1; next }
    state == 1 { if ($0 != "") exit 3; state = 2; next }
    state == 2 { if ($0 !~ columns) exit 3; state = 3; next }
    state == 3 {
      n = split($0, f, "|")
      if (n < 9) exit 3
      print trim(f[1]), trim(f[4]), trim(f[8])
      if (trim(f[1]) == "Total") { state = 4; exit }
    }
    END { if (state != 4) exit 3 }' "$tmp/tally.txt"
}
host_columns='^Name +\| +Time +\| +Time\(%\) +\| +Calls +\| +Average +\| +Min +\| +Max +\| +Error +\|$'
traffic_columns='^Name +\| +Bytes +\| +Bytes\(%\) +\| +Calls +\| +Average +\| +Min +\| +Max +\| +Bandwidth +\|$'

# check_table TITLE COLUMNS FIELDS JQ WHAT: the table's rows ("name calls error", cut to
# FIELDS) equal what JQ prints from the manifest.
check_table() {
  if ! table "$1" "$2" >"$tmp/rows"; then
    echo "FAIL: $e2e_name: no table \"$1\" laid out as docs/analysis-output.md shows" >&2
    show_tally
    exit 1
  fi
  jq -r "$4" "$m" | sort >"$tmp/want"
  cut -d' ' -f"$3" "$tmp/rows" | sort >"$tmp/got"
  if ! cmp -s "$tmp/want" "$tmp/got"; then
    echo "FAIL: $e2e_name: $5 (- the app's count, + the tally):" >&2
    diff -u "$tmp/want" "$tmp/got" | tail -n +3 >&2 || true
    show_tally
    exit 1
  fi
}

# shellcheck disable=SC2016 # jq programs
check_table "$header" "$host_columns" 1-3 '
  . as $m
  | (.calls | to_entries[] | "\(.key) \(.value) \($m.failed[.key] // 0)"),
    "Total \([.calls[]] | add) \(.errors)"' \
  "host table rows: name calls error"
check_table "Device profiling (OPENCL) |" "$host_columns" 1-3 '
  (.kernels + .transfers | to_entries[] | select(.value > 0) | "\(.key) \(.value) 0"),
  "Total \([.kernels[], .transfers[]] | add) 0"' \
  "device table rows: name calls error"
check_table "Memory traffic (OPENCL)" "$traffic_columns" 1-2 '
  (.transfers | to_entries[] | select(.value > 0) | "\(.key) \(.value)"),
  "Total \([.transfers[]] | add)"' \
  "memory traffic rows: name calls"
echo "PASS: $e2e_name: $header; $(jq '[.calls[]] | add' "$m") calls in $(jq '.calls | length' "$m") functions"
