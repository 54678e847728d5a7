#!/bin/sh
# Coverage-guided fuzzing of every reader of untrusted input (`make fuzz`).
#
# Builds each target of tests/fuzz/ with clang-19 and libFuzzer (address and undefined
# sanitizers) straight from the sources, outside the CMake build, then runs each one for
# SECONDS from its seed corpus tests/fuzz/corpus/TARGET/. New inputs go to a working
# corpus in a temporary folder, never into the repository; crashes, leaks and hangs go to
# an artifacts folder there, which is kept (and named) when anything was found.
#
# Usage: build_and_run.sh [SECONDS]        (default 60 per target)
# Environment: FUZZ_TARGETS="spec template ..." runs only those; FUZZ_CC picks the
# compiler (default clang-19); FUZZ_FLAGS adds libFuzzer flags (e.g. -jobs, -dict).
# Needs clang-19 and libclang-rt-19-dev (libFuzzer's runtime), libyaml-dev,
# libclang-19-dev: scripts/setup.sh installs them.
# Exit status: 0 when no target found anything, 1 when one did, 2 when a build failed.
set -u

seconds=${1:-60}
# libFuzzer reads -max_total_time=0 as "no limit": SECONDS must be at least 1.
case $seconds in '' | *[!0-9]* | 0) echo "usage: $0 [SECONDS >= 1]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
fuzz="$root/tests/fuzz"
cc=${FUZZ_CC:-clang-19}
targets=${FUZZ_TARGETS:-"spec model_check template ctf_metadata ctf_stream ctf_analysis result_file"}
llvm=/usr/lib/llvm-19

command -v "$cc" >/dev/null 2>&1 ||
  { echo "fuzz: error: Cannot find $cc: run scripts/setup.sh" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tracer-fuzz.XXXXXX") || exit 2
export TMPDIR="$work" # the targets' scratch folders land here too
# Reports name functions and lines when a symbolizer is at hand (any LLVM version).
for s in llvm-symbolizer-19 llvm-symbolizer; do
  if command -v "$s" >/dev/null 2>&1; then
    ASAN_SYMBOLIZER_PATH=$(command -v "$s")
    export ASAN_SYMBOLIZER_PATH
    break
  fi
done

# Sources per target, listed explicitly: the same files the CMake targets compile.
generator_common="common/diag.c generator/util.c generator/yamldoc.c"
ctf=$(echo cli/ctf/ctf_*.c)
analysis="cli/model/backends.c cli/model/event_map.c cli/reports/tally/id_set.c
          cli/reports/tally/tally.c cli/reports/text/trace_text.c cli/reports/units.c
          cli/reports/tally/regions.c cli/reports/text/line_order.c cli/reports/tally/actors.c
          generated/opencl/opencl_events.c $work/backend_registry.c"
# The registry cli/model/CMakeLists.txt makes, for the one backend traced today.
cat >"$work/backend_registry.c" <<'EOF'
/* Made by tests/fuzz/build_and_run.sh: the backends the fuzzed analyses know. */
#include <stddef.h>

#include "backends.h"

extern const struct tracer_backend_desc tracer_backend_opencl;

const struct tracer_backend_desc *const tracer_backends_builtin[] = {
    &tracer_backend_opencl,
    NULL,
};
EOF

sources_of() {
  case $1 in
  spec) echo "$generator_common generator/spec.c generator/spec_device.c generator/spec_sample.c generator/spec_messages.c generator/spec_glue.c" ;;
  model_check)
    echo "$generator_common generator/spec.c generator/spec_device.c generator/spec_sample.c generator/spec_messages.c generator/spec_glue.c generator/model_check.c"
    echo "generator/translation_unit.c generator/clang_type.c" ;;
  template) echo "common/diag.c generator/util.c generator/tree.c generator/template.c" ;;
  ctf_metadata) echo "$ctf" ;;
  ctf_stream) echo "$ctf tests/fuzz/ctf_walk.c" ;;
  ctf_analysis) echo "$ctf $analysis" ;;
  result_file)
    echo "$ctf $analysis cli/model/run_record.c common/diag.c"
    echo "cli/job/job_result.c cli/job/result_file.c cli/job/comm_peers.c"
    echo "cli/reports/collectives/collectives.c cli/reports/collectives/collectives_ties.c"
    echo "cli/reports/collectives/collectives_print.c cli/reports/collectives/stragglers.c" ;;
  *) return 1 ;;
  esac
}

flags_of() {
  case $1 in
  spec | template) echo "-Igenerator -Icommon" ;;
  model_check) echo "-Igenerator -Icommon -I$llvm/include" ;;
  ctf_metadata | ctf_stream) echo "-Icli/ctf" ;;
  ctf_analysis | result_file)
    echo "-Icli/ctf -Icli/model -Icli/reader -Icli/reports -Icli/reports/tally"
    echo "-Icli/reports/text -Icli/reports/collectives -Icli/job -Iruntime -Icommon" ;;
  esac
}

libs_of() {
  case $1 in
  spec) echo "-lyaml" ;;
  model_check) echo "-lyaml -L$llvm/lib -lclang -Wl,-rpath,$llvm/lib" ;;
  ctf_analysis | result_file) echo "-lpthread" ;;
  esac
}

cflags="-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
        -DFUZZ_CORPUS_DIR=\"$fuzz/corpus\" -I$fuzz"

mkdir -p "$work/bin"
status=0
echo "fuzz: building with $cc in $work"
for t in $targets; do
  if ! src=$(sources_of "$t"); then
    echo "fuzz: error: Cannot build target: target=$t (unknown)" >&2
    status=2
    continue
  fi
  # shellcheck disable=SC2086 # word lists on purpose
  if ! (cd "$root" && $cc $cflags $(flags_of "$t") -o "$work/bin/fuzz_$t" \
        "tests/fuzz/fuzz_$t.c" tests/fuzz/fuzz_util.c $src $(libs_of "$t")) \
       >"$work/build-$t.log" 2>&1; then
    echo "fuzz: error: Cannot build target: target=$t (log below)" >&2
    cat "$work/build-$t.log" >&2
    status=2
  fi
done
[ $status -eq 0 ] || { rm -rf "$work"; exit $status; }

echo "fuzz: running each target for ${seconds}s"
printf '%-14s %8s %12s %9s %8s %9s\n' target seconds executions exec/s corpus findings
found=0
for t in $targets; do
  mkdir -p "$work/corpus-$t" "$work/artifacts-$t"
  start=$(date +%s)
  # shellcheck disable=SC2086 # FUZZ_FLAGS is a word list
  "$work/bin/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts-$t/" ${FUZZ_FLAGS:-} \
    "$work/corpus-$t" "$fuzz/corpus/$t" >"$work/log-$t" 2>&1
  rc=$?
  elapsed=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log-$t" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log-$t" | tail -1)
  units=$(find "$work/corpus-$t" -type f | wc -l)
  findings=$(find "$work/artifacts-$t" -type f | wc -l)
  if [ "$rc" -ne 0 ] && [ "$findings" -eq 0 ]; then
    findings=1 # died without leaving an artifact: count it, the log says why
  fi
  printf '%-14s %8s %12s %9s %8s %9s\n' "$t" "$elapsed" "${execs:-?}" "${rate:-?}" \
    "$units" "$findings"
  if [ "$findings" -ne 0 ]; then
    found=1
    grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$work/log-$t" | sed 's/^/    /'
    for a in "$work/artifacts-$t"/*; do
      [ -f "$a" ] && echo "    artifact: $a (replay: $work/bin/fuzz_$t $a)"
    done
    echo "    log: $work/log-$t"
  fi
done

if [ $found -ne 0 ]; then
  echo "fuzz: FAILED: findings above; the folder $work is kept"
  exit 1
fi
rm -rf "$work"
echo "fuzz: no findings"
