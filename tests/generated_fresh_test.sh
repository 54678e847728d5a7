#!/bin/sh
# generated/ must be exactly what apigen makes from api-specs/ and the installed headers,
# and making it twice must give the same bytes.
# Usage: generated_fresh_test.sh APIGEN SOURCE_DIR
set -eu
apigen=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
checked=0
for spec in "$src"/api-specs/*.yaml; do
  b=$(basename "$spec" .yaml)
  "$apigen" --quiet --spec "$spec" --output "$tmp/a/$b"
  "$apigen" --quiet --spec "$spec" --output "$tmp/b/$b"
  if ! cmp -s "$tmp/a/$b/model.yaml" "$tmp/b/$b/model.yaml"; then
    echo "FAIL: $b: two runs of apigen gave different models" >&2
    status=1
  fi
  if ! cmp -s "$tmp/a/$b/model.yaml" "$src/generated/$b/model.yaml"; then
    echo "FAIL: generated/$b/model.yaml is stale; run 'make models' and commit:" >&2
    diff -u "$src/generated/$b/model.yaml" "$tmp/a/$b/model.yaml" | head -20 >&2 || true
    status=1
  fi
  checked=$((checked + 1))
done
# Every committed model must have a spec.
for dir in "$src"/generated/*/; do
  b=$(basename "$dir")
  if [ -f "$dir/model.yaml" ] && [ ! -f "$src/api-specs/$b.yaml" ]; then
    echo "FAIL: generated/$b has no api-specs/$b.yaml" >&2
    status=1
  fi
done
[ "$checked" -gt 0 ] || { echo "FAIL: no spec found in $src/api-specs" >&2; exit 1; }
[ "$status" -eq 0 ] && echo "generated/ is fresh: $checked models byte-identical to a regeneration"
exit $status
