#!/bin/sh
# `tracer ./run.sh`, where run.sh is a /bin/sh script that runs the vadd app (the usual
# way jobs are started): the tally counts vadd's calls exactly as if vadd had been run
# directly (see tally_test.sh for what is compared). The shell starts vadd however it
# likes (Debian's dash uses vfork, so no fork handler runs in the child).
# Usage: wrapper_test.sh TRACER VADD
set -eu
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER VADD" >&2; exit 2; }
tracer=$(abspath "$1")
vadd=$(abspath "$2")
e2e_setup
need_app "$vadd"
script=$tmp/run.sh
printf '#!/bin/sh\n# a job script\n"%s" "$@"\necho "run.sh: done"\n' "$vadd" >"$script"
chmod +x "$script"

run_plain plain "$script" 2048
expect_rc 0 plain
need_tracer "$tracer"

run_traced traced -j -o "$tmp/tally.json" -- "$script" 2048
expect_rc 0 traced
same_stdout plain traced
same_manifest "$tmp/plain.json" "$tmp/traced.json"
compare_tally "$tmp/tally.json" "$tmp/traced.json"
echo "PASS: $e2e_name: /bin/sh script running vadd: $(jq '[.calls[]] | add' "$tmp/traced.json") calls"
