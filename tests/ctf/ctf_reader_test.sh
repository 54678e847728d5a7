#!/bin/sh
# The project's CTF reader (through ctf_dump) against babeltrace2, on traces recorded
# here by the real LTTng with the ctf_test provider:
#   main    per-UID buffers, every field kind, contexts vpid/vtid/procname, a burst from
#           two threads (packets roll over), slow ticks 1 ms apart across a multiple of
#           2^32 ns (the 32-bit compact event-header timestamps wrap there)
#   lossy   4 KiB sub-buffers: discarded events, counted like babeltrace2 and lttng do
#   pid     per-PID buffers, two processes: two sub-traces merged from the session folder
# and copies of main: plain-text metadata, a metadata syntax error, an empty stream
# file, and a stream file cut in the middle (located error, earlier events still read).
#
# Usage: ctf_reader_test.sh CTF_DUMP CTF_TEST_APP
# Exit status: 0 pass, 1 fail, 77 skip (LTTng or babeltrace2 missing).
set -u

dump=$1
app=$2
failures=0

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

for tool in lttng lttng-sessiond babeltrace2; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed"
done
if ! lttng list >/dev/null 2>&1; then
  lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1 || skip "cannot start lttng-sessiond"
  lttng list >/dev/null 2>&1 || skip "lttng-sessiond does not answer"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ctf_reader_test.XXXXXX") || exit 1
tag="ctf_reader_test_$$_$(basename "$work" | tr -c 'A-Za-z0-9_\n' '_')"
sessions=""
cleanup() {
  for s in $sessions; do lttng destroy "$s" >/dev/null 2>&1; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# run_tracked SESSION START APP_ARGS...: runs the app so that only it records into
# SESSION (starting the session first when START is yes). The sessiond is machine-wide
# and other LTTng apps (other tests) run meanwhile: the app waits on a fifo until its PID
# is in the session's process tracker, then goes.
run_tracked() {
  run_session=$1
  run_start=$2
  shift 2
  gate="$work/gate"
  rm -f "$gate"
  mkfifo "$gate" || return 1
  (read -r _ <"$gate" && exec env LTTNG_UST_REGISTER_TIMEOUT=-1 "$app" "$@") &
  app_pid=$!
  if ! lttng track -u -s "$run_session" --vpid="$app_pid" >/dev/null ||
     { [ "$run_start" = yes ] && ! lttng start "$run_session" >/dev/null; }; then
    kill "$app_pid" 2>/dev/null
    return 1
  fi
  echo go >"$gate"
  wait "$app_pid"
}

# record NAME "CHANNEL OPTIONS" APP_ARGS...: one session whose trace lands in $work/NAME.
# The per-PID one runs the app twice: two processes, two sub-traces.
record() {
  name=$1
  channel_options=$2
  shift 2
  session="${tag}_$name"
  lttng create "$session" --output="$work/$name" >/dev/null || return 1
  sessions="$sessions $session"
  # shellcheck disable=SC2086 # the options are words on purpose
  lttng enable-channel -u -s "$session" $channel_options c0 >/dev/null &&
    lttng enable-event -u -s "$session" -c c0 'ctf_test:*' >/dev/null &&
    lttng add-context -u -s "$session" -c c0 -t vpid -t vtid -t procname >/dev/null &&
    run_tracked "$session" yes "$@" || return 1
  if [ "$name" = pid ]; then
    run_tracked "$session" no "$@" || return 1
  fi
  lttng stop "$session" >/dev/null || return 1
  lttng list "$session" >"$work/$name.list" 2>&1
  lttng destroy "$session" >/dev/null || return 1
  sessions=$(echo "$sessions" | sed "s/ $session//")
}

# compare TRACE LABEL [REFERENCE]: ctf_dump's output must equal babeltrace2's.
compare() {
  trace=$1
  label=$2
  reference=${3:-$work/$label.ref}
  if [ -z "${3:-}" ]; then
    LC_ALL=C babeltrace2 --clock-cycles --no-delta "$trace" >"$reference" \
      2>"$work/$label.referr" || { fail "$label: babeltrace2 failed"; return 1; }
  fi
  LC_ALL=C "$dump" --summary "$trace" >"$work/$label.out" 2>"$work/$label.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "$label: ctf_dump exited with $rc: $(head -5 "$work/$label.err")"
    return 1
  fi
  if ! [ -s "$reference" ]; then
    fail "$label: babeltrace2 printed no event"
    return 1
  fi
  if cmp -s "$reference" "$work/$label.out"; then
    pass "$label: $(wc -l <"$reference") events identical to babeltrace2"
  else
    fail "$label: ctf_dump differs from babeltrace2"
    diff "$reference" "$work/$label.out" | head -10
    return 1
  fi
  # Discarded events: babeltrace2 warns once per gap between packets, with the counter
  # difference modulo 2^64 (a counter that drops shows as a huge count: sum modulo 2^64).
  if [ -z "${3:-}" ]; then
    ours=$(sed -n 's/^ctf_dump: events discarded: //p' "$work/$label.err")
    theirs=$(grep -o 'discarded [0-9]* events' "$work/$label.referr" | awk '
      function two_to_64_minus(n,   i, d, borrow, r, top) {
        top = "18446744073709551616"
        while (length(n) < 20) n = "0" n
        borrow = 0; r = ""
        for (i = 20; i >= 1; i--) {
          d = substr(top, i, 1) - substr(n, i, 1) - borrow
          if (d < 0) { d += 10; borrow = 1 } else borrow = 0
          r = d r
        }
        return r + 0
      }
      { if (length($2) >= 19 && $2 + 0 > 9223372036854775807) total -= two_to_64_minus($2)
        else { total += $2; rises += $2 } }
      END { printf "%d %d\n", total, rises }')
    # babeltrace2 tells the losses between packets; ctf_dump counts from 0, so it also
    # counts those of a stream's first packet, and with several writers LTTng's
    # cumulative counter may drop by a little between two packets: babeltrace2 counts a
    # drop as negative, ctf_dump adds nothing for it and keeps the higher value
    # (ctf_cursor.c). So ctf_dump's count lies between babeltrace2's and the larger of
    # babeltrace2's rises alone and the session's own count (`lttng list`).
    rises=${theirs#* }
    theirs=${theirs% *}
    session=$(sed -n 's/.*Discarded events: *//p' "$work/$label.list" 2>/dev/null | head -1)
    most=$rises
    case $session in '' | *[!0-9]*) ;; *) [ "$session" -gt "$most" ] && most=$session ;; esac
    if [ -z "$ours" ] || [ "$ours" -lt "$theirs" ] || [ "$ours" -gt "$most" ]; then
      fail "$label: ctf_dump counts ${ours:-?} discarded events, babeltrace2 $theirs (rises alone: $rises, the session: ${session:-?})"
      return 1
    fi
  fi
}

metadata_folder() { dirname "$(find "$1" -name metadata -type f | sort | head -1)"; }

# ---- main ------------------------------------------------------------------------------
burst=100000
slow=300
record main "--subbuf-size=256K --num-subbuf=16" $burst $slow 1000 2 ||
  { fail "main: recording failed"; exit 1; }
if compare "$work/main" main; then
  ticks=$(grep -c ' ctf_test:tick: ' "$work/main.out")
  most_packets=$(sed -n 's/.* events in \([0-9]*\) packets$/\1/p' "$work/main.err" |
                 sort -n | tail -1)
  discarded=$(sed -n 's/^ctf_dump: events discarded: //p' "$work/main.err")
  if [ $((ticks + discarded)) -ne $((2 * burst + slow)) ]; then
    fail "main: $ticks ticks read + $discarded discarded, $((2 * burst + slow)) emitted"
  fi
  if [ "${most_packets:-0}" -lt 3 ]; then
    fail "main: at most ${most_packets:-0} packets per stream: packets did not roll over"
  else
    pass "main: $ticks ticks ($discarded discarded), up to $most_packets packets per stream"
  fi
  # The slow ticks straddle a multiple of 2^32 ns less than 2^27 ns apart: the 32-bit
  # compact timestamp of the first one after it wrapped (as in babeltrace2's output).
  wraps=$(awk '/ ctf_test:tick: / && / n = 18446744073709/ {
      ts = substr($1, 2, 20) + 0
      match($0, /cpu_id = [0-9]+/); cpu = substr($0, RSTART, RLENGTH)
      if ((cpu in last) && int(ts / 4294967296) != int(last[cpu] / 4294967296) &&
          ts - last[cpu] < 134217728) wraps++
      last[cpu] = ts
    } END { print wraps + 0 }' "$work/main.out")
  if [ "$wraps" -ge 1 ]; then
    pass "main: $wraps compact timestamp(s) wrapped at a 2^32 ns boundary"
  else
    fail "main: no compact timestamp wrapped (slow ticks missed the 2^32 ns boundary)"
  fi
  for kind in integers enums floats strings arrays empty; do
    grep -q " ctf_test:$kind: " "$work/main.out" || fail "main: no ctf_test:$kind event"
  done
fi

# ---- lossy -------------------------------------------------------------------------------
record lossy "--subbuf-size=4096 --num-subbuf=2" 50000 0 0 2 ||
  { fail "lossy: recording failed"; exit 1; }
if compare "$work/lossy" lossy; then
  ours=$(sed -n 's/^ctf_dump: events discarded: //p' "$work/lossy.err")
  lttng_says=$(sed -n 's/.*Discarded events: *//p' "$work/lossy.list" | head -1)
  if [ "$ours" -gt 0 ]; then
    pass "lossy: $ours events discarded, as babeltrace2 counts (lttng list: ${lttng_says:-?})"
  else
    fail "lossy: no discarded event with 4 KiB sub-buffers"
  fi
fi

# ---- pid ---------------------------------------------------------------------------------
record pid "--buffers-pid" 3000 0 0 1 || { fail "pid: recording failed"; exit 1; }
subtraces=$(find "$work/pid" -name metadata -type f | wc -l)
if [ "$subtraces" -ne 2 ]; then
  fail "pid: $subtraces metadata files, expected 2 (one per process)"
else
  compare "$work/pid" pid
fi

# ---- copies of main ------------------------------------------------------------------------
# Plain-text metadata instead of LTTng's packets.
cp -r "$work/main" "$work/text"
folder=$(metadata_folder "$work/text")
babeltrace2 -o ctf-metadata "$folder" >"$work/metadata.txt" && mv "$work/metadata.txt" "$folder/metadata"
head -c 10 "$folder/metadata" | grep -q 'CTF 1.8' || fail "text: metadata is not plain text"
compare "$work/text" text "$work/main.ref"

# A metadata error: file:line:col and a caret.
sed 's/^struct packet_context {$/struct packet_context {\n\tbogus_type field;/' \
  "$folder/metadata" >"$work/metadata.bad" && mv "$work/metadata.bad" "$folder/metadata"
LC_ALL=C "$dump" "$work/text" >/dev/null 2>"$work/bad.err"
rc=$?
line=$(grep -n 'bogus_type' "$folder/metadata" | cut -d: -f1)
if [ $rc -eq 1 ] &&
   grep -q "^ctf_dump: $folder/metadata:$line:2: error: Cannot find type: name=bogus_type" \
     "$work/bad.err" && grep -q '^[[:space:]]*\^$' "$work/bad.err"; then
  pass "metadata error located: $(head -1 "$work/bad.err" | sed 's/^ctf_dump: //')"
else
  fail "metadata error: exit $rc, message: $(cat "$work/bad.err")"
fi

# An empty stream file changes nothing.
cp -r "$work/main" "$work/empty"
: >"$(metadata_folder "$work/empty")/channel0_99"
compare "$work/empty" empty "$work/main.ref"

# A stream cut in the middle: the error names the file, packet and offset; every event
# before the cut, and every event of the other streams, is still printed.
cp -r "$work/main" "$work/cut"
victim=$(find "$(metadata_folder "$work/cut")" -maxdepth 1 -type f ! -name metadata \
           -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
size=$(stat -c %s "$victim")
cut_at=$((size * 2 / 3 + 13))
truncate -s "$cut_at" "$victim"
cpu=${victim##*_}
LC_ALL=C "$dump" "$work/cut" >"$work/cut.out" 2>"$work/cut.err"
rc=$?
if [ $rc -ne 1 ]; then
  fail "cut: ctf_dump exited with $rc, expected 1"
elif ! grep -q "Cannot read stream: file=$victim, packet=[0-9]*, offset=[0-9]*: " \
       "$work/cut.err"; then
  fail "cut: no located error: $(cat "$work/cut.err")"
else
  pass "cut at byte $cut_at of $size: $(grep 'Cannot read stream' "$work/cut.err" |
                                       sed 's/^ctf_dump: //')"
  # cut.out must be main.ref less a tail of the cut stream's events (cpu_id = $cpu).
  awk -v cpu="{ cpu_id = $cpu }" '
    NR == FNR { ref[++n] = $0; next }
    { out[++m] = $0 }
    END {
      j = 1; kept = 0; lost = 0; bad = 0
      for (i = 1; i <= m; i++) {
        while (j <= n && ref[j] != out[i]) {
          if (index(ref[j], cpu) == 0) { print "lost an event of another stream: " ref[j]; bad = 1 }
          lost++; j++
        }
        if (j > n) { print "not in the reference: " out[i]; bad = 1; break }
        if (index(out[i], cpu)) {
          if (lost) { print "kept an event after a lost one: " out[i]; bad = 1 }
          kept++
        }
        j++
      }
      for (; j <= n; j++) {
        if (index(ref[j], cpu) == 0) { print "lost an event of another stream: " ref[j]; bad = 1 }
        lost++
      }
      printf "%d events of the cut stream kept, %d lost\n", kept, lost
      exit bad || kept == 0 || lost == 0
    }' "$work/main.ref" "$work/cut.out" >"$work/cut.check"
  if [ $? -eq 0 ]; then
    pass "cut: $(tail -1 "$work/cut.check"); all other streams complete"
  else
    fail "cut: $(head -5 "$work/cut.check")"
  fi
fi

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS"
