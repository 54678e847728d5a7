#!/bin/sh
# Builds a backend from its spec alone, outside the CMake build, into one folder that the
# tracer finds through TRACER_BACKEND_PATH (docs/adding-a-backend.md):
#   model.yaml and the generated sources (apigen), the model's exactness check (run),
#   libtracer_<b>.so (the interposer, built with -Wall -Wextra -Werror) and
#   libtracer_<b>_events.so (the event descriptions the tracer reads, data only).
# Usage: build-backend.sh [--check] SPEC OUTDIR [BUILD]
#   --check: generate and check the model, and compile the sources with every warning an
#   error, without building the libraries (a fifth of the time: for a spec's CI check).
#   BUILD: the build folder holding bin/apigen and lib/libtracer_runtime.so (default:
#   build/ of this tree). The spec needs a `trace` section and no hooks file.
set -eu
check_only=false
[ "${1:-}" = --check ] && { check_only=true; shift; }
[ $# -ge 2 ] || { echo "usage: $0 [--check] SPEC OUTDIR [BUILD]" >&2; exit 2; }
spec=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${3:-$root/build}" && pwd)
apigen=$build/bin/apigen
cc=${CC:-cc}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# apigen reads the spec (YAML, whatever its quoting, comments or flow style).
backend=$("$apigen" --spec "$spec" --print backend)
[ "$("$apigen" --spec "$spec" --print trace)" = true ] ||
  { echo "$0: error: Cannot build backend=$backend: its spec has no trace section" >&2; exit 1; }

# 1. The model and the tracer sources.
summary=$("$apigen" --spec "$spec" --templates "$root/templates" --output "$out" 2>&1) ||
  { echo "$summary" >&2; exit 1; }
summary=$(echo "$summary" | sed -n "s|^apigen: $backend: \([^>]*\) -> .*|\1|p")

# 2. The model is exact: the compiler checks every declaration against the headers.
cflags=$("$apigen" --spec "$spec" --print-cflags)
"$apigen" --spec "$spec" --output "$out" --check-source "$out/model-check.c"
# -w: installed headers may warn about themselves; the checks are static assertions.
# shellcheck disable=SC2086
$cc -w $cflags "$out/model-check.c" -o "$out/model-check"
"$out/model-check" >"$out/model-check.txt"
grep -q 'checked: exact$' "$out/model-check.txt" ||
  { cat "$out/model-check.txt" >&2; exit 1; }

# 3. The interposer and the event descriptions, as generated/CMakeLists.txt builds them
#    (TRACER_BACKEND_OPT replaces its -O2 -g: the corpus tests build with -O0, 3x faster).
flags="${TRACER_BACKEND_OPT:--O2 -g} -DNDEBUG -fPIC -Wall -Wextra -Werror -D_GNU_SOURCE"
if $check_only; then
  for source in "${backend}_interposer.c" "${backend}_tracepoints.c" "${backend}_events.c"; do
    $cc -fsyntax-only $flags $cflags -I"$out" -I"$root/runtime" -I"$root/runtime/stacks" "$out/$source"
  done
  echo "$backend: $summary; $(cat "$out/model-check.txt"); sources compile without a warning"
  exit 0
fi
# shellcheck disable=SC2086
$cc $flags $cflags -I"$out" -I"$root/runtime" -I"$root/runtime/stacks" -shared -o "$out/libtracer_$backend.so.tmp" \
  "$out/${backend}_interposer.c" "$out/${backend}_tracepoints.c" \
  -Wl,--version-script="$out/${backend}_exports.map" \
  -L"$build/lib" -Wl,-rpath,"$build/lib" -ltracer_runtime -llttng-ust -ldl
# shellcheck disable=SC2086
$cc $flags -I"$root/runtime" -I"$root/runtime/stacks" -shared -o "$out/libtracer_${backend}_events.so.tmp" \
  "$out/${backend}_events.c"
mv "$out/libtracer_$backend.so.tmp" "$out/libtracer_$backend.so"
mv "$out/libtracer_${backend}_events.so.tmp" "$out/libtracer_${backend}_events.so"
echo "$backend: $summary; $(cat "$out/model-check.txt")"
