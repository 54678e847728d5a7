#!/bin/sh
# generated/ must be exactly what apigen makes from api-specs/, templates/ and the
# installed headers (models and tracer sources alike), and making it twice must give
# the same bytes (the committed output is one run, this test's the second).
# Usage: generated_fresh_test.sh APIGEN SOURCE_DIR
set -eu
apigen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
checked=0
skipped=0
for spec in api-specs/*.yaml; do
  b=$(basename "$spec" .yaml)
  # Relative paths, as `make models` uses them: the model records the spec's path. A
  # backend whose headers this machine lacks (the CUDA toolkit on a plain Debian: the
  # build leaves it out too) cannot be regenerated here: said, not failed.
  if ! "$apigen" --quiet --spec "$spec" --output "$tmp/a/$b" --templates templates \
    2>"$tmp/err"; then
    if grep -q "Cannot find header" "$tmp/err"; then
      echo "skipped: $b: $(head -1 "$tmp/err")"
      skipped=$((skipped + 1))
      continue
    fi
    cat "$tmp/err" >&2
    status=1
    continue
  fi
  # Equal to the committed output, made by an earlier run: fresh, and the same bytes twice.
  # Otherwise a second run tells a stale generated/ from an apigen that is not deterministic.
  if ! diff -r "generated/$b" "$tmp/a/$b" >"$tmp/diff" 2>&1; then
    "$apigen" --quiet --spec "$spec" --output "$tmp/b/$b" --templates templates
    if ! diff -r "$tmp/a/$b" "$tmp/b/$b" >/dev/null; then
      echo "FAIL: $b: two runs of apigen gave different output" >&2
    else
      echo "FAIL: generated/$b is stale; run 'make models' and commit:" >&2
      head -20 "$tmp/diff" >&2
    fi
    status=1
  fi
  checked=$((checked + 1))
done
for dir in generated/*/; do
  b=$(basename "$dir")
  if [ ! -f "api-specs/$b.yaml" ]; then
    echo "FAIL: generated/$b has no api-specs/$b.yaml" >&2
    status=1
  fi
done
[ $((checked + skipped)) -gt 0 ] || { echo "FAIL: no spec found in api-specs/" >&2; exit 1; }
[ "$status" -eq 0 ] && echo "generated/ is fresh: $checked backends byte-identical to a regeneration, $skipped skipped"
exit $status
