#!/bin/sh
# Multi-node timelines (docs/timeline.md): the ranks of a job on two nodes whose
# processes have the same pid stay apart in the job's timeline. The job is put together
# from one real trace (tracer on the OpenCL vadd app): its folder as rank 0 and, with
# the hostname of its CTF metadata changed to another of the same length, as rank 1, so
# that both ranks' processes have the same pid and the same times. Each rank's timeline
# is written and the two joined as rank 0 does with -l (rank_timeline_driver). Checks,
# on the file decoded by protoc with the project's timeline.proto:
#  - two host tracks, one per node; each rank's process track (same pid) under its own;
#  - every packet of a node's tracks (descriptors and events) carries the node's
#    machine_id (Perfetto's TracePacket.machine_id), the two nodes' differ, so that
#    Perfetto keeps the two processes apart;
#  - clocks aligned as for one node: the two ranks' events have the same times.
# Usage: timeline_nodes_test.sh TRACER APP DRIVER
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
. "$here/../e2e/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 TRACER APP DRIVER" >&2; exit 2; }
tracer=$(abspath "$1")
app=$(abspath "$2")
driver=$(abspath "$3")
proto="$here/../../cli/exports/perfetto/timeline.proto"
e2e_setup
need_app "$app"
need_tracer "$tracer"
command -v protoc >/dev/null 2>&1 || fail "protoc not found (scripts/setup.sh installs protobuf-compiler)"

run_traced one -o /dev/null -- "$app"
[ "$rc" -eq 77 ] && skip "no OpenCL runtime"
expect_rc 0 one
mkdir -p "$tmp/job"
cp -R "$tmp/one.trace" "$tmp/job/rank-0"
cp -R "$tmp/one.trace" "$tmp/job/rank-1"

# The second node: the metadata's hostname, replaced by a name of the same length (the
# metadata's packets keep their sizes).
metadata=$(find "$tmp/job/rank-1" -name metadata | head -1)
[ -n "$metadata" ] || fail "no CTF metadata in the trace"
host=$(LC_ALL=C grep -a -o 'hostname = "[^"]*"' "$metadata" | head -1 | sed 's/hostname = "\(.*\)"/\1/')
[ -n "$host" ] || fail "no hostname in the trace's metadata"
other=$(printf '%s' "$host" | tr 'a-zA-Z0-9' 'b-zaB-ZA1-90')
[ "$other" != "$host" ] || other=$(printf '%s' "$host" | tr -c 'x' 'x')
LC_ALL=C sed -i "s/hostname = \"$host\"/hostname = \"$other\"/" "$metadata"
for f in $(find "$tmp/job/rank-1" -name metadata); do
  LC_ALL=C sed -i "s/hostname = \"$host\"/hostname = \"$other\"/" "$f"
done

"$driver" "$tmp/job" "$tmp/job.pftrace" 2>"$tmp/driver.err" || fail "cannot write the job's timeline: $(cat "$tmp/driver.err")"
protoc --decode=perfetto.protos.Trace -I "$(dirname "$proto")" "$proto" <"$tmp/job.pftrace" \
  >"$tmp/protoc.txt" 2>"$tmp/protoc.err" || fail "protoc cannot decode the timeline: $(cat "$tmp/protoc.err")"

# Each packet as one line: "machine kind uuid parent pid timestamp name".
awk '/^packet \{/ { m = 0; kind = ""; uuid = ""; parent = "-"; pid = "-"; ts = "-"; name = "-"; next }
     /^  machine_id:/ { m = $2 }
     /^  timestamp:/ { ts = $2 }
     /^  track_descriptor \{/ { kind = "track" }
     /^  track_event \{/ { kind = "event" }
     /^    uuid:/ { uuid = $2 }
     /^    track_uuid:/ { uuid = $2 }
     /^    parent_uuid:/ { parent = $2 }
     /^      pid:/ { pid = $2 }
     kind == "track" && /^    name:/ { sub(/^    name: /, ""); name = $0 }
     /^\}/ { if (kind != "") print m, kind, uuid, parent, pid, ts, name }' "$tmp/protoc.txt" >"$tmp/packets.txt"

hosts=$(awk '$2 == "track" && $4 == "-"' "$tmp/packets.txt" | sort -u)
[ "$(printf '%s\n' "$hosts" | grep -c .)" -eq 2 ] || fail "$(printf '%s\n' "$hosts" | grep -c .) host tracks, 2 expected: $hosts"
machine_of_host() { printf '%s\n' "$hosts" | awk -v want="\"$1\"" '$7 == want { print $1 }'; }
m1=$(machine_of_host "$host")
m2=$(machine_of_host "$other")
[ -n "$m1" ] && [ -n "$m2" ] && [ "$m1" != 0 ] && [ "$m2" != 0 ] && [ "$m1" != "$m2" ] ||
  fail "the nodes' machine_ids are \"$m1\" ($host) and \"$m2\" ($other): two distinct non-zero ones expected"

# Processes: the same pid on both nodes, each under its node's host track, with its machine.
processes=$(awk '$2 == "track" && $5 != "-" && $7 == "\"rank"' "$tmp/packets.txt" | sort -u)
pids=$(printf '%s\n' "$processes" | awk '{ print $5 }' | sort -u)
[ "$(printf '%s\n' "$processes" | grep -c .)" -ge 2 ] && [ "$(printf '%s\n' "$pids" | grep -c .)" -eq 1 ] ||
  fail "two rank processes of one pid expected: $processes"
for m in "$m1" "$m2"; do
  [ "$(printf '%s\n' "$processes" | awk -v m="$m" '$1 == m' | grep -c .)" -ge 1 ] ||
    fail "no rank process track on machine $m: $processes"
done

# Every packet of a track carries the machine of the track's host: follow parents up.
awk '$2 == "track" { parent[$3] = $4; machine[$3] = $1 }
     END { for (u in parent) { r = u; while (parent[r] != "-" && (parent[r] in parent)) r = parent[r]
                               if (machine[u] != machine[r]) { print "track " u " on machine " machine[u] ", its host on " machine[r]; bad = 1 } }
           exit bad }' "$tmp/packets.txt" >"$tmp/bad.txt" || fail "$(cat "$tmp/bad.txt")"
awk '$2 == "track" { machine[$3] = $1 } $2 == "event" && !($3 in machine) { next }
     $2 == "event" && machine[$3] != $1 { print "an event on track " $3 " says machine " $1 ", its track " machine[$3]; bad = 1; exit 1 }
     END { exit bad }' "$tmp/packets.txt" >"$tmp/bad.txt" || fail "$(cat "$tmp/bad.txt")"

# Clocks as for one node: both ranks' events at the same times (the same trace).
awk -v a="$m1" -v b="$m2" '$2 == "event" && $1 == a { ta[$6]++ } $2 == "event" && $1 == b { tb[$6]++ }
     END { n = 0; for (t in ta) { n++; if (ta[t] != tb[t]) { print "time " t ": " ta[t] " against " tb[t]; exit 1 } }
           if (n == 0) { print "no event"; exit 1 } }' "$tmp/packets.txt" >"$tmp/bad.txt" ||
  fail "the two nodes' events differ in time: $(cat "$tmp/bad.txt")"
echo "PASS: $e2e_name"
