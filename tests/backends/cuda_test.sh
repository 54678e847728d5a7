#!/bin/sh
# CUDA traced on the null driver and runtime (docs/null-library.md, docs/cuda.md): the
# JSON tally equals the programs' own counts, for three ways of reaching the driver:
#   cuda_app         linked to libcuda, plus entry points from cuGetProcAddress;
#   cuda_dlopen_app  dlopen + dlsym on the handle, as Triton's launcher does;
#   cudart_app       the runtime, whose driver calls (made through cuGetProcAddress) are
#                    counted at the driver level, apart from the app's own driver calls:
#                    made inside the runtime's calls, they are the runtime's
#                    (`inside_other`, docs/trace-format.md), not in the tables.
# Kernels by demangled name, copies by kind (pinned, pageable) and bytes, device times
# from the device path (not host-side).
# Usage: cuda_test.sh TRACER CUDA_APP DLOPEN_APP CUDART_APP
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
e2e_dir=$(cd "$(dirname "$0")/../e2e" && pwd) # compare.jq lives there
[ $# -eq 4 ] || { echo "usage: $0 TRACER CUDA_APP DLOPEN_APP CUDART_APP" >&2; exit 2; }
tracer=$(abspath "$1")
e2e_setup
need_tracer "$tracer"

# traced_like_plain NAME APP: runs APP untraced and traced; same output, same own count.
traced_like_plain() {
  need_app "$2"
  run_plain "$1_plain" "$2"
  expect_rc 0 "$1_plain"
  run_traced "$1" -j -o "$tmp/$1.tally.json" -- "$2"
  expect_rc 0 "$1"
  same_stdout "$1_plain" "$1"
  same_manifest "$tmp/$1_plain.json" "$tmp/$1.json"
}

device_timed() {
  jq -e '.backends[] | select(.name == "cuda") | .device_times != "host"' "$1" >/dev/null ||
    fail "$1: the cuda device times are said to be host-side"
}

# The driver, linked and through cuGetProcAddress.
traced_like_plain driver "$(abspath "$2")"
E2E_BACKEND=cuda compare_tally "$tmp/driver.tally.json" "$tmp/driver.json"
device_timed "$tmp/driver.tally.json"

# The driver, dlopen'd and resolved with dlsym.
traced_like_plain dlopen "$(abspath "$3")"
E2E_BACKEND=cuda compare_tally "$tmp/dlopen.tally.json" "$tmp/dlopen.json"

# The runtime: its own calls in its table; the one driver call the app made through
# cudaGetDriverEntryPoint in the driver's, with the device work; the driver calls the
# runtime made inside its calls (its count) set apart, in the driver's inside_other.
traced_like_plain runtime "$(abspath "$4")"
jq '.bytes = {} | .transfers = {} | .kernels = {}' "$tmp/runtime.json" >"$tmp/runtime.cudart.json"
jq -n --slurpfile app "$tmp/runtime.json" --slurpfile own "$tmp/runtime.json.driver" '
  $app[0] + {calls: $own[0].calls, threads: $own[0].threads}' >"$tmp/runtime.cuda.json" ||
  fail "cannot build the driver's expected count"
E2E_BACKEND=cudart compare_tally "$tmp/runtime.tally.json" "$tmp/runtime.cudart.json"
E2E_BACKEND=cuda compare_tally "$tmp/runtime.tally.json" "$tmp/runtime.cuda.json"
# inside_other: each driver function's calls as the runtime counted them.
inside_differs() { # TALLY: the functions whose inside_other calls differ from the runtime's count
  jq -n --slurpfile t "$1" --slurpfile inner "$tmp/runtime.json.runtime" '
    ([$t[0].backends[] | select(.name == "cuda") | .inside_other[] | {(.name): .calls}] | add // {}) as $got
    | $inner[0].calls | to_entries[] | select($got[.key] != .value)
    | "\(.key): \($got[.key] // 0) set apart, the runtime made \(.value)"'
}
[ -z "$(inside_differs "$tmp/runtime.tally.json")" ] ||
  fail "the runtime's driver calls, set apart: $(inside_differs "$tmp/runtime.tally.json")"
device_timed "$tmp/runtime.tally.json"

# Counted functions (trace.counted): the app's 3,000 cudaGetDevice calls on three threads
# are in the tally above, exact, from a few lttng_ust_tracer:counted events, none their own.
# With --every-call each is an event, and the tally is the same.
events_named() { babeltrace2 "$1" 2>/dev/null | grep -c " $2: " || true; }
counted=$(events_named "$tmp/runtime.trace" lttng_ust_tracer:counted)
own=$(events_named "$tmp/runtime.trace" lttng_ust_cudart:cudaGetDevice)
[ "$counted" -ge 3 ] && [ "$counted" -le 12 ] && [ "$own" -eq 0 ] ||
  fail "cudaGetDevice: $counted counted events (3 threads: 3 to 12 expected), $own events of its own (0 expected)"
run_traced every --every-call -j -o "$tmp/every.tally.json" -- "$(abspath "$4")"
expect_rc 0 every
E2E_BACKEND=cudart compare_tally "$tmp/every.tally.json" "$tmp/runtime.cudart.json"
E2E_BACKEND=cuda compare_tally "$tmp/every.tally.json" "$tmp/runtime.cuda.json"
[ -z "$(inside_differs "$tmp/every.tally.json")" ] ||
  fail "--every-call: the runtime's driver calls, set apart: $(inside_differs "$tmp/every.tally.json")"
own=$(events_named "$tmp/every.trace" lttng_ust_cudart:cudaGetDevice)
[ "$own" -eq 3000 ] || fail "--every-call: $own cudaGetDevice events, 3000 expected"

# Counted times: cudaPeekAtLastError spins 20 us in the null runtime. Counted, its calls are
# timed on the TSC where it can be (runtime/tracer_counted.c) and converted when written;
# one event each, on the trace clock. The shortest of its 100 calls is 20 us plus the
# tracing's bit either way: a conversion gone wrong (ticks taken for ns) would be 2 to 4x.
for tally in runtime every; do
  peek='.backends[] | select(.name == "cudart") | .host[] | select(.name == "cudaPeekAtLastError")'
  jq -e "$peek | .min_ns >= 19500 and .min_ns <= 30000" "$tmp/$tally.tally.json" >/dev/null ||
    fail "$tally: the shortest cudaPeekAtLastError is not 20 us: $(jq -c "$peek" "$tmp/$tally.tally.json")"
done

summary() { jq -c --arg b "$2" '.backends[] | select(.name == $b) | {calls: ([.host[].calls] | add), inside_other: ([.inside_other[].calls] | add), device: ([.device[]?.calls] | add)}' "$1"; }
echo "PASS: $e2e_name: driver $(summary "$tmp/driver.tally.json" cuda)," \
  "dlopen $(summary "$tmp/dlopen.tally.json" cuda)," \
  "runtime $(summary "$tmp/runtime.tally.json" cudart) over driver $(summary "$tmp/runtime.tally.json" cuda)"
