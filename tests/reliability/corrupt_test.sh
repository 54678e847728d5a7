#!/bin/sh
# A damaged trace: `tracer -r` says what is wrong and where, still prints the tally of
# what it could read, never crashes, and never loses part of the trace without a word.
# Usage: corrupt_test.sh SCENARIO TRACER FLOOD_APP
#
# The trace: one thread making 20000 clGetPlatformIDs calls (apps/flood.c), recorded with
# --blocking into 16 KiB sub-buffers, so that its stream file holds many packets and no
# event is lost; the tally of the intact trace must equal the app's count. Then a copy is
# damaged. A stream that cannot be read (exit 4, the file and byte offset named, the
# tally of what is readable with 0 < calls <= the intact trace's):
#   truncate  the largest stream file cut in the middle (not at a packet boundary); the
#             packets after the cut, which its index lists, are named missing too
#   garbage   256 bytes of a fixed garbage pattern written over the middle of that file;
#             -l writes the timeline and says what it left out
#   metadata  the metadata file cut in half (inside a packet)
# Packets missing while every file reads well (exit 5, TRACER_EXIT_INCOMPLETE): the
# missing packets as the test reads them in LTTng's index (ctf_index.py, not the
# tracer's reader) are each reported, the JSON says "partial" and lists them, the text
# starts with PARTIAL, the tally counts the rest, and its estimate of the events lost is
# within a quarter of the calls the tally lost:
#   empty     the largest stream file emptied
#   deleted   that file deleted (its index left)
#   boundary  that file cut exactly where its middle packet starts
#   gap       its middle packet taken out of the file and the index, as if the consumer
#             never wrote it: a gap in the sequence numbers (exit 5; exit 0, still said,
#             when the run record says the consumer lost a packet; exit 5 again found from
#             the packets themselves when the index is gone too)
# A damaged run record (tracer-run.txt) while the trace is whole:
#   record    a count of -1, an exit code that is not a number, a line that is not
#             `key: value` and a wall time of 1 ns: each bad line named (file:line), the
#             report as the trace says (no discarded events, no share above 100%), exit 0
# Every read must not die of a signal and print no sanitizer report (ASan/UBSan build).
set -u
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 SCENARIO TRACER FLOOD_APP" >&2; exit 2; }
scenario=$1
tracer=$(abspath "$2")
app=$(abspath "$3")
rel_setup
need_exe tracer "$tracer"
need_exe "flood app" "$app"
# A sanitizer build of the tracer reports into its stderr, and must not die quietly.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"

rc=0
REL_COUNT="$tmp/count" "$tracer" --blocking --buffer-size 16k --buffer-count 4 \
  --trace-output "$tmp/trace" -j -o "$tmp/full.json" -- "$app" 1 20000 \
  >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 77 ] || grep -q "SKIP: no OpenCL" "$tmp/err"; then
  skip "no OpenCL runtime: $(cat "$tmp/err")"
fi
[ "$rc" -eq 0 ] || die "recording the trace failed ($rc): $(cat "$tmp/err")"
check_eq "intact trace: discarded events" 0 "$(jq '.discarded_events' "$tmp/full.json")"
check_counts "intact trace" "$tmp/count" "$tmp/full.json"
full=$(jq '[.backends[] | .host[] | .calls] | add' "$tmp/full.json")

cp -a "$tmp/trace" "$tmp/bad"
dir=$(dirname "$(find "$tmp/bad" -name metadata | head -n 1)")
[ -d "$dir" ] || die "no metadata file in the trace"
stream=$(ls -S "$dir"/tracer_* | head -n 1)
size=$(stat -c %s "$stream")
say "stream $(basename "$stream"): $size bytes"
index="$dir/index/$(basename "$stream").idx"
[ -f "$index" ] || die "no index for $(basename "$stream") ($index)"
idx() { python3 "$(dirname "$0")/ctf_index.py" "$@"; }
idx entries "$index" >"$tmp/entries" || die "cannot read $index"
packets=$(wc -l <"$tmp/entries")
say "its index lists $packets packets"
[ "$packets" -ge 4 ] || die "too few packets ($packets) to damage the middle one"
middle=$((packets / 2))
# expect_missing FIRST: the index's packets from FIRST (0-based) on, as
# "offset bytes" lines into $tmp/want, and their count and bytes.
expect_missing() {
  awk -v k="$1" 'NR > k { print $1, $2 }' "$tmp/entries" >"$tmp/want"
  want_packets=$(wc -l <"$tmp/want")
  want_bytes=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/want")
}
status=4 # what the reads of the damaged copy must exit with
case $scenario in
truncate)
  cut=$((size / 2 + 100))
  truncate -s "$cut" "$stream"
  say "cut $(basename "$stream") to $cut bytes"
  where=$(basename "$stream")
  ;;
garbage)
  at=$((size / 2 + 100))
  i=0
  while [ $i -lt 64 ]; do
    printf '\336\255\276\357'
    i=$((i + 1))
  done | dd of="$stream" bs=1 seek="$at" conv=notrunc status=none
  say "wrote 256 bytes of garbage at offset $at of $(basename "$stream")"
  where=$(basename "$stream")
  ;;
metadata)
  # LTTng writes metadata in 4 KiB packets that often end where a declaration ends: a cut
  # at a packet boundary can leave valid, shorter metadata. 1000 bytes past the middle
  # is always inside a packet.
  msize=$(stat -c %s "$dir/metadata")
  cut=$((msize / 2 + 1000))
  truncate -s "$cut" "$dir/metadata"
  say "cut metadata from $msize to $cut bytes"
  where=metadata
  ;;
empty)
  : >"$stream"
  expect_missing 0
  ;;
deleted)
  rm "$stream"
  expect_missing 0
  ;;
boundary)
  at=$(awk -v k="$middle" 'NR == k + 1 { print $1 }' "$tmp/entries")
  truncate -s "$at" "$stream"
  say "cut $(basename "$stream") at byte $at, where packet $middle starts"
  expect_missing "$middle"
  ;;
gap)
  seq=$(awk -v k="$middle" 'NR == k + 1 { print $4 }' "$tmp/entries")
  idx drop "$index" "$stream" "$middle" || die "cannot take packet $middle out"
  say "took packet $middle (sequence number $seq) out of $(basename "$stream") and its index"
  ;;
record)
  record="$tmp/bad/tracer-run.txt"
  [ -f "$record" ] || die "no run record in the trace"
  sed -i -e 's/^discarded_events: .*/discarded_events: -1/' -e 's/^exit_code: .*/exit_code: zero/' \
    -e 's/^wall_ns: .*/wall_ns: 1/' -e '$a this line is not a key and a value' "$record"
  status=0
  ;;
*) die "unknown scenario $scenario" ;;
esac
case $scenario in empty | deleted | boundary | gap) status=5 ;; esac

# read_bad LABEL TRACER-OPTIONS...: tracer -r on the damaged copy; it must exit $status,
# not die, not trip a sanitizer.
read_bad() {
  label=$1
  shift
  rc=0
  # Leaks on the error paths count too (an ASan build; ignored otherwise).
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=1" \
    "$tracer" -r "$tmp/bad" "$@" >"$tmp/$label.out" 2>"$tmp/$label.err" || rc=$?
  check_eq "$label: exit status" "$status" "$rc"
  [ "$rc" -ge 128 ] && fail "$label: the tracer died of signal $((rc - 128))"
  if grep -qE 'Sanitizer|runtime error:' "$tmp/$label.err"; then
    fail "$label: sanitizer report:"
    sed 's/^/    /' "$tmp/$label.err" | head -30
  fi
}

# names_damage LABEL: stderr names the damaged file and where in it.
names_damage() {
  msg=$(grep 'error' "$tmp/$1.err" | head -n 3)
  say "$1: stderr: $msg"
  case $where in
  metadata) pattern="metadata(:[0-9]+:|.*offset=[0-9]+)" ;;
  *) pattern="$where.*offset=[0-9]+" ;;
  esac
  if printf '%s\n' "$msg" | grep -qE "$pattern"; then
    ok "$1: the error names $where and where in it"
  else
    fail "$1: the error does not name $where and a line or byte offset (wanted /$pattern/)"
  fi
}

# tally_of JSON: the calls a JSON tally counts.
tally_of() { jq '[.backends[]? | .host[] | .calls] | add // 0' "$1"; }

# missing_reported LABEL KIND: the JSON, text and stderr of reads that must report the
# packets in $tmp/want (KIND not-in-file) or a gap of one packet (not-written).
missing_reported() {
  label=$1
  kind=$2
  json="$tmp/$label.json.out"
  if ! jq -e . "$json" >/dev/null 2>&1; then
    fail "$label: no JSON tally on stdout: $(head -c 300 "$json")"
    return
  fi
  got=$(tally_of "$json")
  if [ "$got" -lt "$full" ] && { [ "$got" -gt 0 ] || [ "$scenario" = empty ] || [ "$scenario" = deleted ]; }; then
    ok "$label: the tally counts what the files hold: $got calls (intact: $full)"
  else
    fail "$label: the tally counts $got calls; expected fewer than the intact $full"
  fi
  check_eq "$label: JSON partial.reason" '"missing-packets"' "$(jq -c '.partial.reason' "$json")"
  if [ "$kind" = not-in-file ]; then
    check_eq "$label: JSON missing packets" "$want_packets" "$(jq '.missing_packets.packets' "$json")"
    check_eq "$label: JSON missing bytes (the index's sizes)" "$want_bytes" \
      "$(jq '.missing_packets.bytes' "$json")"
    jq -r '.missing_packets.list[] | "\(.offset) \(.bytes)"' "$json" >"$tmp/$label.offsets"
    if cmp -s "$tmp/want" "$tmp/$label.offsets"; then
      ok "$label: every missing packet listed at its offset and size, as the index has them"
    else
      fail "$label: the packets listed differ from the index's:"
      diff "$tmp/want" "$tmp/$label.offsets" | head -10 | sed 's/^/    /'
    fi
  else
    check_eq "$label: JSON missing packets (never written)" 1 \
      "$(jq '.missing_packets.not_written' "$json")"
    check_eq "$label: JSON the gap's sequence number" "$seq" \
      "$(jq '.missing_packets.list[0].sequence_number' "$json")"
  fi
  # The estimate of the events lost, from the trace's own events per byte: the calls of
  # one thread all have the same size, so it is close to what the tally lost.
  about=$(jq '.missing_packets.events_about' "$json")
  lost=$((full - got))
  if [ "$(jq '.missing_packets.unestimated' "$json")" != 0 ]; then
    # The rest of the trace is too small to stand for what is gone: no estimate.
    check_eq "$label: no estimate from a trace of $got events"       "$(jq '.missing_packets.packets' "$json") 0"       "$(jq -r '"\(.missing_packets.unestimated) \(.missing_packets.events_about)"' "$json")"
  elif [ $((4 * about)) -ge $((3 * lost)) ] && [ $((4 * about)) -le $((5 * lost)) ]; then
    ok "$label: about $about events missing, the tally lost $lost calls"
  else
    fail "$label: the estimate ($about events) is not within a quarter of the $lost calls lost"
  fi
  if head -n 1 "$tmp/$label.text.out" | grep -q '^PARTIAL: the trace misses'; then
    ok "$label: the text tables start with $(head -n 1 "$tmp/$label.text.out" | cut -c1-90)..."
  else
    fail "$label: the text tables do not start with PARTIAL: $(head -n 1 "$tmp/$label.text.out")"
  fi
  for r in json text calls; do
    if grep -q "$(basename "$stream")" "$tmp/$label.$r.err"; then
      ok "$label ($r): stderr names the stream: $(grep "$(basename "$stream")" "$tmp/$label.$r.err" | head -n 1)"
    else
      fail "$label ($r): stderr does not name $(basename "$stream"): $(head -c 300 "$tmp/$label.$r.err")"
    fi
  done
}

# read_all LABEL: the three reads (JSON, text, -t) into $tmp/LABEL.{json,text,calls}.*
read_all() {
  read_bad "$1.json" -j
  read_bad "$1.text"
  read_bad "$1.calls" -t
}

case $scenario in
truncate | garbage | metadata)
  read_bad json -j
  read_bad text
  read_bad calls -t
  for label in json text calls; do names_damage "$label"; done
  if [ "$scenario" != metadata ]; then
    if jq -e . "$tmp/json.out" >/dev/null 2>&1; then
      got=$(tally_of "$tmp/json.out")
      if [ "$got" -gt 0 ] && [ "$got" -le "$full" ]; then
        ok "the tally of what could be read: $got calls (intact: $full)"
      else
        fail "the tally counts $got calls; expected more than 0 and at most $full"
      fi
      if jq -e '.error | strings' "$tmp/json.out" >/dev/null; then
        ok "the JSON says what went wrong: $(jq -r .error "$tmp/json.out")"
      else
        fail "the JSON tally has no \"error\""
      fi
    else
      fail "no JSON tally on stdout: $(head -c 300 "$tmp/json.out")"
    fi
    if grep -q '^clGetPlatformIDs ' "$tmp/text.out"; then
      ok "the text tally is printed"
    else
      fail "no clGetPlatformIDs row in the text tally"
    fi
  fi
  if [ "$scenario" = truncate ]; then
    # The packets wholly past the cut, which the index lists, are named missing too.
    after=$(awk -v c="$cut" '$1 >= c' "$tmp/entries" | wc -l)
    check_eq "the packets past the cut, listed as missing" "$after" \
      "$(jq '.missing_packets.not_in_file' "$tmp/json.out")"
  fi
  if [ "$scenario" = garbage ]; then
    # -l: the timeline is written from what could be read, and said so.
    read_bad timeline -l "$tmp/timeline.pftrace"
    if grep -q 'Cannot write the timeline' "$tmp/timeline.err"; then
      fail "-l: stderr says it cannot write the timeline: $(grep timeline "$tmp/timeline.err")"
    else
      ok "-l: no 'Cannot write the timeline'"
    fi
    if [ -s "$tmp/timeline.pftrace" ] && grep -q "timeline: $tmp/timeline.pftrace (" "$tmp/timeline.err" &&
      grep -q 'timeline: .*leaves out.*offset=' "$tmp/timeline.err"; then
      ok "-l: says what it wrote and what it left out: $(grep 'timeline:' "$tmp/timeline.err" | tr '\n' ' ' | cut -c1-300)"
    else
      fail "-l: does not say what it wrote and what it left out: $(cat "$tmp/timeline.err")"
    fi
    if [ -x "${PFTRACE_DUMP:-}" ]; then
      if "$PFTRACE_DUMP" "$tmp/timeline.pftrace" >/dev/null 2>&1; then
        ok "-l: the timeline decodes ($PFTRACE_DUMP)"
      else
        fail "-l: the timeline does not decode"
      fi
    fi
  fi
  ;;
empty | deleted | boundary)
  read_all bad
  missing_reported bad not-in-file
  if [ "$scenario" = deleted ]; then
    if grep -q 'the file is gone' "$tmp/bad.text.err"; then ok "stderr says the file is gone"
    else fail "stderr does not say the file is gone"; fi
  fi
  ;;
gap)
  read_all bad
  missing_reported bad not-written
  # The run record says the consumer lost a packet: the recording's loss, said, exit 0.
  sed -i 's/^lost_packets: .*/lost_packets: 1/' "$tmp/bad/tracer-run.txt"
  status=0
  read_bad lost.json -j
  check_eq "lost while recording (run record): JSON missing packets" 1 \
    "$(jq '.missing_packets.not_written' "$tmp/lost.json.out")"
  if grep -q 'never written' "$tmp/lost.json.err"; then ok "lost while recording: still said"
  else fail "lost while recording: not said: $(cat "$tmp/lost.json.err")"; fi
  # Without the index the packets' own sequence numbers show the gap.
  sed -i 's/^lost_packets: .*/lost_packets: 0/' "$tmp/bad/tracer-run.txt"
  rm "$index"
  status=5
  read_all noindex
  missing_reported noindex not-written
  ;;
record)
  read_bad json -j
  read_bad text
  for key in discarded_events exit_code wall_ns; do
    line=$(grep -n "^$key: " "$record" | cut -d: -f1)
    if grep -q "tracer-run.txt:$line: Cannot use $key" "$tmp/text.err"; then
      ok "the bad $key line is named: $(grep "tracer-run.txt:$line:" "$tmp/text.err" | head -n 1)"
    else
      fail "no 'tracer-run.txt:$line: Cannot use $key' on stderr: $(cat "$tmp/text.err")"
    fi
  done
  line=$(grep -n '^this line' "$record" | cut -d: -f1)
  if grep -q "tracer-run.txt:$line: Cannot use the line" "$tmp/text.err"; then
    ok "the line that is not key: value is named"
  else
    fail "no 'tracer-run.txt:$line: Cannot use the line' on stderr"
  fi
  check_eq "JSON discarded events (the packets' count)" 0 "$(jq '.discarded_events' "$tmp/json.out")"
  check_eq "JSON exit code (from the status line)" 0 "$(jq '.app.exit_code' "$tmp/json.out")"
  check_eq "JSON calls" "$full" "$(tally_of "$tmp/json.out")"
  if grep -q 'events were discarded' "$tmp/text.out"; then
    fail "the text says events were discarded: $(grep discarded "$tmp/text.out")"
  else
    ok "the text says no event was discarded"
  fi
  shares=$(grep '^Where the' "$tmp/text.out" | grep -oE '[0-9]+\.[0-9]+%' | tr -d % | sort -n | tail -n 1)
  say "text: $(grep '^Where the' "$tmp/text.out")"
  if [ -n "$shares" ] && awk -v s="$shares" 'BEGIN { exit !(s <= 100) }'; then
    ok "no share of the wall time above 100% (largest $shares%)"
  else
    fail "a share above 100% or none: '$shares'"
  fi
  ;;
esac
rel_finish "$scenario"
