#!/bin/sh
# The tally as CSV (--csv FILE) says what the JSON tally says: each app traced with
# `-j --csv`, every row of the JSON's host, device and region tables is one CSV line with
# the same figures (bytes of transfers from its traffic table), and nothing else is; the
# replay writes the same CSV; a CSV that cannot be written fails the run (status 4) with
# the tables still printed.
# Usage: csv_test.sh TRACER APP...
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 TRACER APP..." >&2; exit 2; }
tracer=$(abspath "$1")
shift
e2e_setup
need_tracer "$tracer"
header='backend,table,name,kind,calls,errors,time_ns,min_ns,max_ns,bytes'
# The CSV lines the JSON tally implies, one per table row.
expected_lines() {
  jq -r '.backends[] | .name as $b | (.traffic // []) as $traffic |
    (.host[] | [$b, "host", .name, (.meaning // ""), .calls, .errors, .time_ns, .min_ns,
                .max_ns, (if .message then .bytes else "" end)]),
    (.device[] | .name as $n | [$b, "device", .name, .kind, .calls, .errors, .time_ns,
                .min_ns, .max_ns,
                (if .kind == "transfer" then ([$traffic[] | select(.name == $n) | .bytes]
                                               | first // 0) else 0 end)]),
    ((.regions // [])[] | [$b, "region", .name, "", .calls, "", .time_ns, .min_ns, .max_ns,
                           ""])
    | map(tostring) | join(",")' "$1"
}
rows=0
for app in "$@"; do
  app=$(abspath "$app")
  need_app "$app"
  label=$(basename "$app")
  run_traced "$label" -j -o "$tmp/$label.json" --csv "$tmp/$label.csv" -- "$app"
  [ "$rc" -eq 77 ] && skip "no runtime for $label"
  expect_rc 0 "$label"
  [ "$(head -n 1 "$tmp/$label.csv")" = "$header" ] ||
    fail "$label: the CSV's header is $(head -n 1 "$tmp/$label.csv")"
  tail -n +2 "$tmp/$label.csv" | sort >"$tmp/$label.got"
  expected_lines "$tmp/$label.json" | sort >"$tmp/$label.want"
  [ -s "$tmp/$label.want" ] || fail "$label: the JSON tally has no rows"
  if ! diff "$tmp/$label.want" "$tmp/$label.got" >"$tmp/$label.diff"; then
    fail "$label: the CSV and the JSON tally differ (< JSON, > CSV):
$(cat "$tmp/$label.diff")"
  fi
  grep -q "tally as CSV: $tmp/$label.csv" "$tmp/$label.err" ||
    fail "$label: the tracer did not say where the CSV went: $(cat "$tmp/$label.err")"
  rc=0
  "$tracer" -q -r "$tmp/$label.trace" -o /dev/null --csv "$tmp/$label.replay.csv" || rc=$?
  expect_rc 0 "$label replay"
  cmp -s "$tmp/$label.csv" "$tmp/$label.replay.csv" ||
    fail "$label: the replay's CSV differs from the run's"
  rows=$((rows + $(wc -l <"$tmp/$label.got")))
done
# A CSV that cannot be written: status 4, the cause on stderr, the tables still there.
rc=0
"$tracer" -r "$tmp/$label.trace" --csv "$tmp/no-such-dir/x.csv" >"$tmp/bad.out" \
  2>"$tmp/bad.err" || rc=$?
[ "$rc" -eq 4 ] || fail "an unwritable CSV exited $rc, expected 4"
grep -q "error: Cannot write the CSV tally: file=$tmp/no-such-dir/x.csv: " "$tmp/bad.err" ||
  fail "no cause for the unwritable CSV: $(cat "$tmp/bad.err")"
grep -q '^BACKEND_' "$tmp/bad.out" || fail "the tables were not printed: $(cat "$tmp/bad.out")"
echo "PASS: $e2e_name: $rows rows, each as in the JSON tally, the same on replay"
