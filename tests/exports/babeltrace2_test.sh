#!/bin/sh
# babeltrace2 with the tracer's plugin (filter.tracer.decode) prints every call of a
# trace with its parameters by name and type, as `tracer -t` does.
# Usage: babeltrace2_test.sh TRACER PLUGIN_DIR [-n RANKS LAUNCHER] [-o "TRACER OPTIONS"] APP [ARGS...]
#
# Checks, on the trace of the app (or of each rank of an MPI job):
#  - babeltrace2 alone shows the calls as opaque `record` arrays, or minimal mode's batches
#    (what the plugin is for);
#  - `babeltrace2 --plugin-path=PLUGIN_DIR TRACE -c filter.tracer.decode` shows none, and
#    babeltrace2_check.py finds each call of `tracer -r TRACE -t` there with every field
#    equal, by name (and, tampered with, finds the difference); so does a program reading
#    the trace through the plugin with babeltrace2's Python bindings (bt2);
#  - the plugin changes nothing else: as many events (but for batches), the runtime's
#    printed the same.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -ge 3 ] || { echo "usage: $0 TRACER PLUGIN_DIR [-n RANKS LAUNCHER] [-o OPTIONS] APP" >&2; exit 2; }
tracer=$(abspath "$1")
plugin_dir=$(abspath "$2")
shift 2
# shellcheck source=run_app.sh
. "$here/run_app.sh"
app_options "$@"
shift "$app_options_used"
app=$(abspath "$1")
shift
e2e_setup
need_app "$app"
need_tracer "$tracer"
command -v babeltrace2 >/dev/null 2>&1 || fail "babeltrace2 not found (scripts/setup.sh installs it)"
/usr/bin/python3 -c 'import bt2' 2>/dev/null ||
  fail "Debian's python3 cannot import bt2 (scripts/setup.sh installs python3-bt2)"
ls "$plugin_dir"/*.so >/dev/null 2>&1 || fail "no plugin in $plugin_dir (is tracer_babeltrace2 built?)"

run_app -q -- "$app" "$@"

# The traces: one, or one per rank (rank-N folders of the job's folder, docs/multi-rank.md).
if [ "$ranks" -gt 0 ]; then
  traces=$(find "$tmp/traced.trace" -mindepth 1 -maxdepth 1 -type d -name 'rank-*' | sort)
  [ "$(printf '%s\n' "$traces" | grep -c .)" -eq "$ranks" ] ||
    fail "expected $ranks rank traces in the job folder, found: $traces"
else
  traces=$tmp/traced.trace
fi

summary=""
n=0
for trace in $traces; do
  n=$((n + 1))
  babeltrace2 "$trace" >"$tmp/raw.$n.txt" 2>"$tmp/raw.$n.err" ||
    fail "babeltrace2 cannot read $trace: $(head -5 "$tmp/raw.$n.err")"
  grep -q 'record = \[\|calls = \[' "$tmp/raw.$n.txt" ||
    fail "babeltrace2 alone shows no call record or batch in $trace"
  babeltrace2 --plugin-path="$plugin_dir" "$trace" -c filter.tracer.decode \
    >"$tmp/decoded.$n.txt" 2>"$tmp/decoded.$n.err" ||
    fail "babeltrace2 with filter.tracer.decode failed on $trace: $(head -20 "$tmp/decoded.$n.err")"
  "$tracer" -q -r "$trace" -t -o "$tmp/text.$n.txt" 2>"$tmp/text.$n.err" ||
    fail "tracer -r -t failed on $trace: $(cat "$tmp/text.$n.err")"
  /usr/bin/python3 "$here/babeltrace2_check.py" "$tmp/text.$n.txt" "$tmp/decoded.$n.txt" \
    >"$tmp/check.$n.txt" 2>&1 || {
    echo "FAIL: $e2e_name: babeltrace2's decoded calls differ from tracer -t's ($trace):" >&2
    sed 's/^/  /' "$tmp/check.$n.txt" >&2
    exit 1
  }
  # The same through babeltrace2's Python bindings, as a program would read it.
  /usr/bin/python3 "$here/babeltrace2_check.py" --bt2 "$plugin_dir" "$trace" "$tmp/text.$n.txt" \
    >"$tmp/bt2.$n.txt" 2>&1 || {
    echo "FAIL: $e2e_name: the Python bindings' decoded calls differ from tracer -t's ($trace):" >&2
    sed 's/^/  /' "$tmp/bt2.$n.txt" >&2
    exit 1
  }
  if /usr/bin/python3 "$here/babeltrace2_check.py" --tamper "$tmp/text.$n.txt" \
    "$tmp/decoded.$n.txt" >/dev/null 2>&1; then
    fail "a changed value of tracer -t still passes the check"
  fi
  # The runtime's events are as babeltrace2 prints them without the plugin.
  grep ' lttng_ust_tracer:' "$tmp/raw.$n.txt" >"$tmp/raw-runtime.$n.txt" || true
  grep ' lttng_ust_tracer:' "$tmp/decoded.$n.txt" >"$tmp/decoded-runtime.$n.txt" || true
  cmp -s "$tmp/raw-runtime.$n.txt" "$tmp/decoded-runtime.$n.txt" ||
    fail "the runtime's events print otherwise through the plugin: $(diff "$tmp/raw-runtime.$n.txt" "$tmp/decoded-runtime.$n.txt" | head -5)"
  # One event for one, but for minimal mode's batches: one per call.
  grep -q ' lttng_ust_[a-z0-9_]*:call: ' "$tmp/raw.$n.txt" ||
    [ "$(wc -l <"$tmp/raw.$n.txt")" -eq "$(wc -l <"$tmp/decoded.$n.txt")" ] ||
    fail "babeltrace2 prints $(wc -l <"$tmp/raw.$n.txt") events, $(wc -l <"$tmp/decoded.$n.txt") through the plugin"
  summary="$summary${summary:+; }$(cat "$tmp/check.$n.txt")"
done
echo "PASS: $e2e_name: $(basename "$app")${launcher:+ ($ranks ranks, $launcher)}: $summary"
