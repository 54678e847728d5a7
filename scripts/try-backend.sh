#!/bin/sh
# Tries a backend from its spec alone, touching nothing of the repository: builds it into
# a folder of its own (scripts/build-backend.sh), traces PROGRAM with it, runs PROGRAM
# again under ltrace, and compares, for every function the backend wraps that PROGRAM
# calls, the tracer's count of calls and of errors with ltrace's calls and return values
# (scripts/ltrace_compare.py; docs/adding-a-backend.md).
# Usage: try-backend.sh [--keep DIR] [--documented FILE] SPEC PROGRAM [ARGS...]
#   --keep DIR: build the backend in DIR/backend and keep it there with the trace and
#   the tallies in DIR (default: a temporary folder, removed at the end); trace again
#   with `tracer --backend-path DIR/backend -b BACKEND PROGRAM`.
#   --documented FILE: what the library's documentation calls an error, per function
#   the program calls (scripts/ltrace_compare.py says how to write it): the spec's
#   status rules are then checked against it too, not only the tracer against them.
#   BUILD (environment): the build folder with bin/apigen and bin/tracer (default:
#   build/ of this tree). PROGRAM runs twice: it must do the same both times.
set -eu
keep="" documented=""
while :; do
  case ${1:-} in
    --keep) keep=$2; shift 2 ;;
    --documented) documented=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--keep DIR] SPEC PROGRAM [ARGS...]" >&2; exit 2; }
spec=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${BUILD:-$root/build}" && pwd)
apigen=$build/bin/apigen
command -v ltrace >/dev/null || { echo "$0: error: Cannot compare: ltrace is not installed" >&2; exit 1; }
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  dir=$(cd "$keep" && pwd)
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
backend=$("$apigen" --spec "$spec" --print backend)
library=$("$apigen" --spec "$spec" --print library)
# A program that does not load the library's shared object (linked statically) makes no
# call the tracer can see: say so before building anything.
program=$(command -v "$1" || true)
if [ -n "$program" ] && ldd "$program" >/dev/null 2>&1 &&
   ! ldd "$program" | grep -q "^[[:space:]]*$library "; then
  echo "$0: warning: $1 does not link $library (ldd $program): if it holds the library's code (a static link), the tracer sees none of its calls" >&2
fi
TRACER_BACKEND_OPT=${TRACER_BACKEND_OPT:--O0} "$root/scripts/build-backend.sh" "$spec" "$dir/backend" "$build"

"$build/bin/tracer" -q --backend-path "$dir/backend" -b "$backend" -j -o "$dir/tally.json" \
  --trace-output "$dir/trace" "$@" >"$dir/traced.out"
ltrace -e '*@MAIN' -o "$dir/ltrace.txt" "$@" >"$dir/ltrace.out"
rc=0
/usr/bin/python3 "$root/scripts/ltrace_compare.py" ${documented:+--documented "$documented"} \
  "$dir/backend/model.yaml" "$dir/ltrace.txt" \
  "$dir/tally.json" "$dir/backend/${backend}_exports.map" "$library" || rc=$?
[ -z "$keep" ] ||
  echo "kept in $dir: trace again with $build/bin/tracer --backend-path $dir/backend -b $backend PROGRAM"
exit $rc
