#!/bin/sh
# MPI from Python through mpi4py (Debian's python3-mpi4py on Open MPI; python3 links no
# MPI library, mpi4py loads it on import) on 2 ranks of mpirun: mpi4py_app.py's
# collectives, blocking and non-blocking messages of known sizes.
#  - every MPI function's calls equal the counting library's count (call_count.c), and
#    the calls and bytes the app counted itself;
#  - message traffic tells the truth: the total is the bytes sent and given to
#    collectives, each message once; receives and completions show their bytes but stay
#    out of it; a bandwidth only for the blocking calls (MPI_Send, MPI_Recv, the
#    collectives), '-' for MPI_Isend, MPI_Irecv, MPI_Wait and MPI_Waitall.
# Usage: mpi4py_test.sh TRACER COUNTER
set -eu
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: $0 TRACER COUNTER" >&2; exit 2; }
tracer=$(abspath "$1")
counter=$(abspath "$2")
python=/usr/bin/python3 # Debian's: the python3 on PATH may be another
need_program "$python" python3
need_program mpirun.openmpi openmpi-bin
"$python" -c 'import mpi4py' 2>/dev/null || skip "no mpi4py in $python (Debian's python3-mpi4py)"
e2e_setup
need_tracer "$tracer"

export APP_MANIFEST="$tmp/app"
run_counted mpi4py 2 --blocking -- "$python" "$e2e_dir/../realapps/mpi4py_app.py" 25
check_counted mpi4py openmpi
grep -q "mpi: $python links none of the mpi libraries; OMPI_COMM_WORLD_RANK is set by the launcher of libmpi.so.40: traced as openmpi" \
  "$tmp/mpi4py.err" 2>/dev/null || true # -q: nothing said; the report shows the backend

# The calls and bytes the app made itself, as it counted them.
for r in 0 1; do [ -s "$tmp/app.$r" ] || fail "rank $r wrote no count"; done
jq -s '{calls: (map(.calls | to_entries) | add | group_by(.key)
                | map({(.[0].key): (map(.value) | add)}) | add),
        bytes: (map(.bytes | to_entries) | add | group_by(.key)
                | map({(.[0].key): (map(.value) | add)}) | add)}' "$tmp/app.0" "$tmp/app.1" \
  >"$tmp/expected.json"
jq --slurpfile e "$tmp/expected.json" '.backends[] | select(.name == "openmpi") | .host
    | map(select(.name as $n | $e[0].calls | has($n)))
    | {calls: (map({(.name): .calls}) | add), bytes: (map(select(.bytes > 0) | {(.name): .bytes}) | add)}' \
  "$tmp/mpi4py.json" >"$tmp/actual.json"
jq -e --slurpfile e "$tmp/expected.json" '. == $e[0]' "$tmp/actual.json" >/dev/null ||
  fail "the report differs from the app's own count:
expected $(jq -c . "$tmp/expected.json")
got      $(jq -c . "$tmp/actual.json")"

# Each message once: the JSON's in_total sums to the app's sends and collectives.
want=$(jq '[.bytes | to_entries[] | select(.key == "MPI_Send" or .key == "MPI_Isend"
             or .key == "MPI_Allreduce" or .key == "MPI_Bcast") | .value] | add' "$tmp/expected.json")
got=$(jq '[.backends[] | select(.name == "openmpi") | .host[] | select(.in_total) | .bytes] | add' \
  "$tmp/mpi4py.json")
[ "$want" = "$got" ] || fail "the messages' total is $got bytes, the app sent $want"
jq -e '[.backends[] | select(.name == "openmpi") | .host[]
        | select(.name == "MPI_Recv" or .name == "MPI_Irecv" or .name == "MPI_Wait" or .name == "MPI_Waitall")
        | .in_total] | length == 4 and all(. == false)' "$tmp/mpi4py.json" >/dev/null ||
  fail "receives or completions are counted in the total: $(jq -c '[.backends[].host[] | select(.message) | [.name, .in_total]]' "$tmp/mpi4py.json")"
# The text table: the Total row's bytes, and a bandwidth only where it means something.
awk '/^Message traffic \(MPI\)/ { on = 1; next } on && /^Total:/ { exit } on' "$tmp/mpi4py.txt" \
  >"$tmp/traffic.txt"
bandwidth() { awk -F'|' -v f="$1" '{ n = $1; gsub(/ /, "", n) } n == f { b = $7; gsub(/ /, "", b); print b }' "$tmp/traffic.txt"; }
for f in MPI_Isend MPI_Irecv MPI_Wait MPI_Waitall Total; do
  [ "$(bandwidth $f)" = "-" ] || fail "$f shows a bandwidth ($(bandwidth $f)), its call does not move the bytes:
$(cat "$tmp/traffic.txt")"
done
for f in MPI_Send MPI_Recv MPI_Allreduce MPI_Bcast; do
  case $(bandwidth $f) in
  *B/s) ;;
  *) fail "$f shows no bandwidth: $(cat "$tmp/traffic.txt")" ;;
  esac
done
echo "mpi4py: $(jq -c .calls "$tmp/expected.json") as the app counted; messages once: $got bytes"
