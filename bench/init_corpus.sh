#!/bin/sh
# Issue 51's figures: ten libraries nobody tuned the tracer for
# (tests/corpus/init/libraries.txt), each traced from the spec `apigen --init` writes,
# unedited. Per library: the functions the spec wraps, the status rules it inferred
# against what the documentation says (tests/corpus/init/documented/, bench/init_rules.py,
# over every status -4200..4200), and the calls and errors of the program the init corpus
# test runs, the tracer's against ltrace's (tests/corpus/init_test.sh).
# Usage: init_corpus.sh BUILD > table.md
set -eu
[ $# -eq 1 ] || { echo "usage: $0 BUILD" >&2; exit 2; }
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
init=$root/tests/corpus/init
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| library | header | wrapped | rules right by the docs | functions called | calls (tracer = ltrace) | errors: tracer, by the spec's rules, by the docs | a rule to edit |"
echo "|---|---|---|---|---|---|---|---|"
no_edit=0 sum_model=0 sum_docs=0 sum_wrapped=0 sum_rules=0 sum_documented=0 sum_called=0 sum_same=0 sum_calls=0 sum_errors=0
for name in $(sed -n 's/^\([a-z0-9_]*\): .*/\1/p' "$init/libraries.txt"); do
  headers=$(sed -n "s/^$name: \(.*\) | .*/\1/p" "$init/libraries.txt")
  # shellcheck disable=SC2086
  "$build/bin/apigen" --init $headers -o "$tmp/$name.yaml"
  "$build/bin/apigen" --spec "$tmp/$name.yaml" --stdout >"$tmp/$name.model.yaml"
  library=$("$build/bin/apigen" --spec "$tmp/$name.yaml" --print library)
  /usr/bin/python3 "$root/bench/init_rules.py" "$tmp/$name.model.yaml" \
    "$init/documented/$name.yaml" "$library" >"$tmp/$name.rules"
  rules=$(sed -n 's/^rules: //p' "$tmp/$name.rules")
  sed -n 's/^differs /  differs: /p' "$tmp/$name.rules" >&2
  sh "$root/tests/corpus/init_test.sh" "$build" "$name" >"$tmp/$name.out" 2>&1 || true
  # Wrapped: the functions of the export map of the backend the test built.
  wrapped=$(/usr/bin/python3 -c '
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
print(sum(1 for f in m["functions"] if not f.get("defined") and not f.get("variadic")))' \
    "$tmp/$name.model.yaml")
  stats=$(awk '
    function first(re,   w) { if (!match($0, re)) return 0; split(substr($0, RSTART, RLENGTH), w, " "); return w[1] }
    /^(ok  |DIFF) / {
      n++; same += ($1 == "ok")
      match($0, /ltrace [0-9]+ calls/); split(substr($0, RSTART, RLENGTH), w, " "); calls += w[2]
      match($0, /tracer [0-9]+ calls, [0-9]+ errors/); split(substr($0, RSTART, RLENGTH), w, " "); te += w[4]
      me += first("[0-9]+ errors by the model")
      de += first("[0-9]+ by the documentation")
    }
    END { printf "%d %d %d %d %d %d", n, same, calls, te, me, de }' "$tmp/$name.out")
  # shellcheck disable=SC2086
  set -- $stats
  edit=$(sed -n 's/^differs \([A-Za-z0-9_]*\):.*/\1/p' "$tmp/$name.rules" | tr '\n' ' ')
  [ -n "$edit" ] || { edit=none; no_edit=$((no_edit + 1)); }
  echo "| $name | $headers | $wrapped | $rules | $1 ($2 the same) | $3 | $4, $5, $6 | $edit |"
  sum_wrapped=$((sum_wrapped + wrapped))
  sum_rules=$((sum_rules + ${rules%/*})) sum_documented=$((sum_documented + ${rules#*/}))
  sum_called=$((sum_called + $1)) sum_same=$((sum_same + $2)) sum_calls=$((sum_calls + $3))
  sum_errors=$((sum_errors + $4)) sum_model=$((sum_model + $5)) sum_docs=$((sum_docs + $6))
done
echo "| all | | $sum_wrapped | $sum_rules/$sum_documented | $sum_called ($sum_same the same) | $sum_calls | $sum_errors, $sum_model, $sum_docs | none in $no_edit of 10 |"
