#!/bin/sh
# Every device command timed by CUPTI under the call that made it (docs/cuda.md): the CUDA
# driver program (tests/apps/cuda_app.c: launches, copies of every kind, a memset) on the
# null driver with the stand-in CUPTI (tests/backends/cupti_standin.c, which writes an
# external correlation record only for an API whose own records the tracer turned on, as
# CUPTI does). In the folded stacks, no command sits right under the process (`ROOT;-;`):
# each copy and memset, as each kernel, is under its call; and their times add up to the
# tally's (flame_check.py).
# Usage: cupti_origins_test.sh TRACER CUDA_APP
set -eu
# shellcheck source=../e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: $0 TRACER CUDA_APP" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
e2e_setup
need_tracer "$tracer"
need_app "$app"
run_traced cupti --flame "$tmp/stacks.folded" -j -o "$tmp/tally.json" -- "$app"
expect_rc 0 cupti
grep -q 'CUPTI' "$tmp/cupti.err" && fail "CUPTI was not used: $(cat "$tmp/cupti.err")"
/usr/bin/python3 "$here/../exports/flame_check.py" "$tmp/stacks.folded" "$tmp/stacks.host.folded" \
  "$tmp/tally.json" >"$tmp/check" 2>&1 || {
  echo "FAIL: $e2e_name: the folded stacks differ from the tally:" >&2
  sed 's/^/  /' "$tmp/check" >&2
  exit 1
}
orphans=$(grep -c '^[^;]*;-;' "$tmp/stacks.folded" || true)
[ "$orphans" -eq 0 ] || fail "$orphans device lines right under the process: $(grep '^[^;]*;-;' "$tmp/stacks.folded")"
for call in cuMemcpyHtoD_v2 cuMemcpyHtoDAsync_v2 cuMemcpy cuMemsetD32_v2 cuMemcpyDtoD_v2 \
  cuMemcpyDtoH_v2 cuLaunchKernel; do
  grep -q ";$call;-;" "$tmp/stacks.folded" || fail "no device work under $call: $(cat "$tmp/stacks.folded")"
done
echo "ok: $e2e_name: every command under its call"
