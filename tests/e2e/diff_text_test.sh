#!/bin/sh
# `tracer diff`'s text fits a terminal and `tracer diff --help` tells the truth
# (docs/steps.md#two-runs-compared), on JSON results the test writes itself: A is a result
# of the fuzz corpus (an OpenCL run with steps), B the same with what the test changes on
# purpose: the kernel spin made 3 times longer, a kernel with a long C++ name added, a
# host call of a long name added, the bytes read back doubled.
# Usage: diff_text_test.sh TRACER RESULT_JSON
#
# Checks:
#  - every line of the text but the two naming the runs fits 100 columns, as the
#    tally's tables; a name longer than the name column is cut ("..."), a C++ kernel
#    name shortened first (its namespaces kept, its template arguments "<...>"); -j
#    has the names whole;
#  - the rows: spin's change is B's time less A's, the call added is "only in B" with
#    its count, the transfer's bytes are said under its row, both as the test wrote;
#  - the steps of both runs, each on a line of its own;
#  - `tracer diff --help` (and -h): exit 0, on stdout, within 80 columns; each option it
#    shows is accepted by tracer diff, and an option it does not show is refused in one
#    line that points to it; `tracer --help` points to it.
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER RESULT_JSON" >&2; exit 2; }
tracer=$(abspath "$1")
a=$(abspath "$2")
e2e_setup
need_tracer "$tracer"

long_call=clGetExtensionFunctionAddressForPlatform
cxx_kernel='void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)'
jq --arg call "$long_call" --arg kernel "$cxx_kernel" '
  (.backends[] | select(.name == "opencl")) |= (
    .host += [{name: $call, calls: 3, errors: 0, time_ns: 3000, min_ns: 1000, max_ns: 1000}]
    | .device = [.device[] | if .name == "spin" then .time_ns *= 3 else . end
                  | if .kind == "transfer" then .bytes *= 2 else . end]
    | .device += [(.device[] | select(.name == "spin")) + {name: $kernel}]
    | .traffic = [.traffic[] | .bytes *= 2])' "$a" >"$tmp/b.json" || fail "jq could not write B"

"$tracer" diff "$a" "$tmp/b.json" >"$tmp/ab.txt" 2>"$tmp/ab.err" || {
  rc=$?
  grep -q libjansson "$tmp/ab.err" && skip "no libjansson: $(cat "$tmp/ab.err")"
  fail "tracer diff A B exit $rc: $(cat "$tmp/ab.err")"
}
"$tracer" diff "$a" "$tmp/b.json" -j >"$tmp/ab.json" 2>"$tmp/ab.err" ||
  fail "tracer diff -j A B failed: $(cat "$tmp/ab.err")"

wide=$(tail -n +3 "$tmp/ab.txt" | awk 'length($0) > 100 { print length($0) ": " $0 }')
[ -z "$wide" ] || fail "lines wider than 100 columns:
$wide"

# A row of the text by the start of its name cell: the name or its first 22 characters.
row() { grep -F -- "$1" "$tmp/ab.txt" | head -n 1; }
cut_call="$(printf %.22s "$long_call")..."
line=$(row "$cut_call |")
[ -n "$line" ] || fail "no row $cut_call for $long_call: $(cat "$tmp/ab.txt")"
case $line in *"| only in B") ;; *) fail "$long_call is not only in B: $line" ;; esac
[ "$(echo "$line" | awk -F'|' '{gsub(/ /, "", $7); print $7}')" = 3 ] ||
  fail "$long_call: B count is not the 3 calls B made: $line"
jq -e --arg call "$long_call" '[.rows[] | select(.name == $call)][0] | .only == "b" and .b_count == 3' \
  "$tmp/ab.json" >/dev/null || fail "-j does not have $long_call whole, only in B"

cut_kernel="$(printf %.22s 'at::native::vectorized_elementwise_kernel<...>')..."
line=$(row "$cut_kernel |")
[ -n "$line" ] || fail "no row $cut_kernel for the C++ kernel: $(cat "$tmp/ab.txt")"
jq -e --arg k "$cxx_kernel" '[.rows[] | select(.name == $k)][0] | .only == "b"' "$tmp/ab.json" \
  >/dev/null || fail "-j does not have the C++ kernel's whole name, only in B"

spin_a=$(jq '.backends[] | select(.name == "opencl") | .device[] | select(.name == "spin") | .time_ns' "$a")
jq -e --argjson a "$spin_a" '[.rows[] | select(.name == "spin")][0]
    | .a_ns == $a and .b_ns == 3 * $a and .change_ns == 2 * $a' "$tmp/ab.json" >/dev/null ||
  fail "spin: not A $spin_a ns, B 3 times: $(jq -c '[.rows[] | select(.name == "spin")]' "$tmp/ab.json")"
row 'spin  ' | grep -q '| *+[0-9]' || fail "spin's change is not an increase: $(row 'spin  ')"

transfer=$(jq -r '.backends[] | select(.name == "opencl") | .device[] | select(.kind == "transfer") | .name' "$a")
bytes=$(jq '.backends[] | select(.name == "opencl") | .traffic[0].bytes' "$a")
jq -e --arg t "$transfer" --argjson b "$bytes" '[.rows[] | select(.kind == "transfer" and .name == $t)][0]
    | .a_bytes == $b and .b_bytes == 2 * $b' "$tmp/ab.json" >/dev/null ||
  fail "$transfer: bytes not $bytes -> $((2 * bytes)) in -j"
sed -n '/| transfers |/,$p' "$tmp/ab.txt" | grep -A1 "^$transfer " | tail -n 1 |
  grep -q "^ *bytes: A ${bytes}B, B $((2 * bytes))B\$" ||
  fail "no bytes line under $transfer: $(sed -n '/| transfers |/,$p' "$tmp/ab.txt")"

steps=$(jq '[.steps[] | select(.steps | length > 0)][0].steps | length' "$a")
grep -q "^Steps of A: $steps x " "$tmp/ab.txt" || fail "no line for A's $steps steps"
grep -q "^Steps of B: $steps x " "$tmp/ab.txt" || fail "no line for B's $steps steps"

# --help.
"$tracer" diff --help >"$tmp/help" 2>"$tmp/help.err" || fail "tracer diff --help failed"
[ ! -s "$tmp/help.err" ] || fail "tracer diff --help wrote on stderr: $(cat "$tmp/help.err")"
grep -q '^Usage: tracer diff ' "$tmp/help" || fail "tracer diff --help has no usage line"
"$tracer" diff -h | cmp -s - "$tmp/help" || fail "tracer diff -h differs from --help"
wide=$(awk 'length($0) > 80' "$tmp/help")
[ -z "$wide" ] || fail "tracer diff --help is wider than 80 columns: $wide"
options=$(grep -o -- '^ *-[a-z], --[a-z-]*' "$tmp/help" | tr -d ' ,' | sed 's/--/ --/')
[ -n "$options" ] || fail "tracer diff --help shows no option"
for pair in $options; do
  case $pair in -h | --help) continue ;; -o | --output) extra="$tmp/out.txt" ;; *) extra= ;; esac
  rc=0
  # shellcheck disable=SC2086
  "$tracer" diff $pair $extra "$a" "$tmp/b.json" >"$tmp/opt.out" 2>"$tmp/opt.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "tracer diff $pair (shown by --help): exit $rc: $(cat "$tmp/opt.err")"
done
rc=0
"$tracer" diff --no-such-option "$a" "$tmp/b.json" >/dev/null 2>"$tmp/bad.err" || rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] && grep -q 'tracer diff --help' "$tmp/bad.err" ||
  fail "an unknown option: exit $rc, $(cat "$tmp/bad.err")"
"$tracer" --help | tr '\n' ' ' | grep -q 'tracer diff *--help' ||
  fail "tracer --help does not point to tracer diff --help"
echo "PASS: $e2e_name"
