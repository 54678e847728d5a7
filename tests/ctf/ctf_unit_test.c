/* ctf_unit_test: the CTF reader on small traces written here bit by bit, for what a
 * real LTTng-UST trace never shows: 27-bit compact timestamps that wrap, big-endian
 * traces, bit fields, variants, sequences of strings, extended event ids, packet
 * padding, events_discarded deltas, metadata diagnostics, truncated and empty streams.
 * The writer below follows the CTF 1.8 specification independently of the reader.
 *
 * Usage: ctf_unit_test (prints one line per failed check; exit 1 when any failed). */
#define _GNU_SOURCE
#include "ctf.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
static int checks;

static void check(bool ok, int line, const char *format, ...) {
  checks++;
  if (ok)
    return;
  failures++;
  va_list args;
  va_start(args, format);
  fprintf(stderr, "ctf_unit_test.c:%d: check failed: ", line);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
}
#define CHECK(condition, ...) check((condition), __LINE__, __VA_ARGS__)

/* ---- A bit writer that follows the specification ----------------------------------------- */

struct writer {
  uint8_t bytes[1 << 22];
  uint64_t bit;          /* from the packet start */
  bool big_endian;
};

static void w_align(struct writer *w, uint32_t alignment) {
  w->bit = (w->bit + alignment - 1) / alignment * alignment;
}

/* Little endian: value bit i goes to stream bit (at + i), bit 0 of a byte being its least
 * significant. Big endian: value bits from the most significant go to stream bits
 * at, at+1, ..., bit 0 of a byte being its most significant. */
static void w_put_at(struct writer *w, uint64_t at, uint32_t size, uint64_t value, bool be) {
  for (uint32_t i = 0; i < size; i++) {
    uint64_t bit = be ? value >> (size - 1 - i) & 1 : value >> i & 1;
    uint64_t position = at + i;
    uint8_t mask = be ? (uint8_t)(0x80 >> (position % 8)) : (uint8_t)(1 << (position % 8));
    if (bit)
      w->bytes[position / 8] |= mask;
    else
      w->bytes[position / 8] &= (uint8_t)~mask;
  }
}

static uint64_t w_int(struct writer *w, uint32_t alignment, uint32_t size, uint64_t value) {
  w_align(w, alignment);
  uint64_t at = w->bit;
  w_put_at(w, at, size, value, w->big_endian);
  w->bit += size;
  return at;
}

static void w_int_be(struct writer *w, uint32_t size, uint64_t value) {
  w_align(w, 8);
  w_put_at(w, w->bit, size, value, true);
  w->bit += size;
}

static void w_string(struct writer *w, const char *text) {
  w_align(w, 8);
  size_t length = strlen(text) + 1;
  memcpy(w->bytes + w->bit / 8, text, length);
  w->bit += length * 8;
}

static void w_double(struct writer *w, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  w_int(w, 8, 64, bits);
}

static char work[256];

static void write_file(const char *name, const void *data, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", work, name);
  FILE *file = fopen(path, "wb");
  if (!file || fwrite(data, 1, size, file) != size) {
    fprintf(stderr, "ctf_unit_test: cannot write %s\n", path);
    exit(1);
  }
  fclose(file);
}

static void append_file(const char *name, const void *data, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", work, name);
  FILE *file = fopen(path, "ab");
  if (!file || fwrite(data, 1, size, file) != size) {
    fprintf(stderr, "ctf_unit_test: cannot write %s\n", path);
    exit(1);
  }
  fclose(file);
}

/* Metadata as LTTng's consumer writes it: packets of a 37-byte header and text. */
static void write_packetized_metadata(const char *text, bool big_endian) {
  size_t length = strlen(text);
  size_t split = length / 2;   /* two packets, the first cut mid-line */
  for (int part = 0; part < 2; part++) {
    const char *chunk = part ? text + split : text;
    size_t chunk_length = part ? length - split : split;
    struct writer *w = calloc(1, sizeof *w);
    w->big_endian = big_endian;
    w_int(w, 8, 32, 0x75d11d57);
    w->bit += 16 * 8 + 32;                        /* uuid, checksum */
    uint64_t content_at = w_int(w, 8, 32, 0);
    uint64_t packet_at = w_int(w, 8, 32, 0);
    w->bit += 3 * 8;                              /* no compression, encryption, checksum */
    w_int(w, 8, 8, 1);
    w_int(w, 8, 8, 8);
    memcpy(w->bytes + w->bit / 8, chunk, chunk_length);
    w->bit += chunk_length * 8;
    uint64_t content = w->bit, packet = (content + 8 * 64 + 4095 * 8) / (4096 * 8) * 4096 * 8;
    w_put_at(w, content_at, 32, content, big_endian);
    w_put_at(w, packet_at, 32, packet, big_endian);
    append_file("metadata", w->bytes, packet / 8);
    free(w);
  }
}

/* ---- Trace 1: little endian, compact 27-bit headers ------------------------------------- */

static const char compact_metadata[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
    "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
    "clock { name = mono; uuid = \"01234567-89ab-cdef-0123-456789abcdef\"; "
    "freq = 1000000000; offset_s = 10; offset = 5; };\n"
    "typealias integer { size = 27; align = 1; signed = false; map = clock.mono.value; }"
    " := uint27_clock_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.mono.value; }"
    " := uint64_clock_t;\n"
    "trace { major = 1; minor = 8; byte_order = le;\n"
    "  uuid = \"2a6422d0-6cee-11e0-8c08-cb07d7b3a564\";\n"
    "  packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; };\n"
    "};\n"
    "env { hostname = \"unit\"; answer = -42; };\n"
    "struct event_header_compact {\n"
    "  enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
    "  variant <id> {\n"
    "    struct { uint27_clock_t timestamp; } compact;\n"
    "    struct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
    "  } v;\n"
    "} align(8);\n"
    "stream {\n"
    "  id = 0;\n"
    "  event.header := struct event_header_compact;\n"
    "  packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t "
    "timestamp_end;\n    uint64_t content_size; uint64_t packet_size;\n"
    "    integer { size = 8; align = 8; } events_discarded; uint32_t cpu_id; };\n"
    "  event.context := struct { integer { size = 32; align = 8; signed = true; } _vtid; };\n"
    "};\n"
    "event { name = \"bits\"; id = 0; stream_id = 0; fields := struct {\n"
    "  integer { size = 3; align = 1; signed = true; } _a;\n"
    "  integer { size = 13; align = 1; signed = false; base = hex; } _b;\n"
    "  integer { size = 16; align = 8; byte_order = be; } _c;\n"
    "  unsigned long _n;\n"
    "}; };\n"
    "event { name = \"far\"; id = 40; stream_id = 0; fields := struct { uint64_t _n; "
    "string _s; }; };\n"
    "event { name = \"shapes\"; id = 1; stream_id = 0; fields := struct {\n"
    "  enum : uint8_t { small = 0, big = 1, \"none\" = 2 } _tag;\n"
    "  variant <_tag> { uint16_t small; uint64_t big; struct { } none; } _v;\n"
    "  struct { uint8_t x; uint32_t y; } _pt;\n"
    "  uint8_t _count;\n"
    "  string _names[_count];\n"
    "  uint16_t _after;\n"
    "}; };\n";

static const uint8_t trace_uuid[16] = {0x2a, 0x64, 0x22, 0xd0, 0x6c, 0xee, 0x11, 0xe0,
                                       0x8c, 0x08, 0xcb, 0x07, 0xd7, 0xb3, 0xa5, 0x64};

struct packet_marks {
  uint64_t content_at, packet_at;
};

static struct packet_marks begin_compact_packet(struct writer *w, uint64_t begin,
                                                uint64_t discarded, uint32_t cpu) {
  memset(w->bytes, 0, sizeof w->bytes);
  w->bit = 0;
  w_int(w, 8, 32, 0xc1fc1fc1);
  for (int i = 0; i < 16; i++)
    w_int(w, 8, 8, trace_uuid[i]);
  w_int(w, 8, 32, 0);
  w_int(w, 8, 64, begin);
  w_int(w, 8, 64, begin + 1000000);
  struct packet_marks marks;
  marks.content_at = w_int(w, 8, 64, 0);
  marks.packet_at = w_int(w, 8, 64, 0);
  w_int(w, 8, 8, discarded);
  w_int(w, 8, 32, cpu);
  return marks;
}

static void end_packet(struct writer *w, struct packet_marks marks, const char *file,
                       uint64_t packet_bytes) {
  uint64_t content = w->bit;
  w_put_at(w, marks.content_at, 64, content, w->big_endian);
  w_put_at(w, marks.packet_at, 64, packet_bytes * 8, w->big_endian);
  append_file(file, w->bytes, packet_bytes);
}

static void compact_header(struct writer *w, uint32_t id, uint64_t timestamp) {
  w_align(w, 8);
  if (id < 31) {
    w_int(w, 1, 5, id);
    w_int(w, 1, 27, timestamp & ((1u << 27) - 1));
  } else {
    w_int(w, 1, 5, 31);
    w_int(w, 8, 32, id);
    w_int(w, 8, 64, timestamp);
  }
  w_int(w, 8, 32, (uint64_t)-7);   /* _vtid */
}

enum { MASK27 = (1 << 27) - 1 };
static const uint64_t B = 0x12340000000ull + (1u << 27) - 200;  /* low 27 bits near the top */

static void write_compact_trace(void) {
  write_packetized_metadata(compact_metadata, false);
  struct writer *w = calloc(1, sizeof *w);
  /* Packet 0: a compact timestamp that wraps, a full one, an extended id. */
  struct packet_marks marks = begin_compact_packet(w, B, 0, 3);
  compact_header(w, 0, B + 100);
  w_int(w, 1, 3, 5);               /* -3 in 3 bits */
  w_int(w, 1, 13, 0x1abc);
  w_int_be(w, 16, 0xbeef);
  w_int(w, 8, 64, 0x0102030405060708ull);
  compact_header(w, 0, B + 300);   /* low 27 bits wrapped: 100 < 2^27 - 100 */
  w_int(w, 1, 3, 1);
  w_int(w, 1, 13, 2);
  w_int_be(w, 16, 3);
  w_int(w, 8, 64, 4);
  compact_header(w, 40, B + (1ull << 40));
  w_int(w, 8, 64, 99);
  w_string(w, "far away");
  compact_header(w, 1, B + (1ull << 40) + 5);
  w_int(w, 8, 8, 1);               /* _tag = big */
  w_int(w, 8, 64, 77);
  w_int(w, 8, 8, 9);
  w_int(w, 8, 32, 10);
  w_int(w, 8, 8, 3);
  w_string(w, "alpha");
  w_string(w, "");
  w_string(w, "gamma");
  w_int(w, 8, 16, 0xabcd);
  compact_header(w, 1, B + (1ull << 40) + 6);
  w_int(w, 8, 8, 2);               /* _tag = none: an empty struct */
  w_int(w, 8, 8, 1);
  w_int(w, 8, 32, 2);
  w_int(w, 8, 8, 0);
  w_int(w, 8, 16, 0x1234);
  end_packet(w, marks, "stream_0", 512);   /* content ends before the padding */
  /* Packet 1: no event at all, 5 events discarded. */
  marks = begin_compact_packet(w, B + (1ull << 41), 5, 3);
  end_packet(w, marks, "stream_0", 128);
  /* Packet 2: the clock restarts from timestamp_begin; 12 discarded in all. */
  marks = begin_compact_packet(w, B + (1ull << 42), 12, 3);
  compact_header(w, 0, B + (1ull << 42) + 1);
  w_int(w, 1, 3, 0);
  w_int(w, 1, 13, 0);
  w_int_be(w, 16, 0);
  w_int(w, 8, 64, 0);
  end_packet(w, marks, "stream_0", 256);
  /* Packets 3 and 4: the counter drops (seen from LTTng), then goes on from 12. */
  marks = begin_compact_packet(w, B + (1ull << 43), 0, 3);
  end_packet(w, marks, "stream_0", 128);
  marks = begin_compact_packet(w, B + (1ull << 43) + 1, 20, 3);
  end_packet(w, marks, "stream_0", 128);
  free(w);
}

static void test_compact_trace(void) {
  write_compact_trace();
  struct ctf_error error = {0};
  struct ctf_trace *trace = NULL;
  enum ctf_status status = ctf_trace_open(work, &trace, &error);
  CHECK(status == CTF_OK, "open compact trace: %s", error.message);
  if (status != CTF_OK)
    return;
  CHECK(ctf_trace_subtrace_count(trace) == 1, "one sub-trace");
  CHECK(ctf_trace_stream_count(trace) == 1, "one stream");
  const struct ctf_subtrace *sub = ctf_trace_subtrace(trace, 0);
  CHECK(!strcmp(ctf_trace_env_string(trace, "hostname"), "unit"), "hostname");
  const struct ctf_env_entry *answer = ctf_subtrace_env(sub, "answer");
  CHECK(answer && !answer->is_string && answer->integer == -42, "env integer");
  CHECK(sub->clock_count == 1 && sub->clocks[0].offset_seconds == 10, "clock offset_s");
  CHECK(ctf_clock_to_ns(&sub->clocks[0], 100) == 10000000105, "clock to ns");
  struct ctf_clock_class slow = {.frequency = 1000, .offset_seconds = 1, .offset_cycles = 500};
  CHECK(ctf_clock_to_ns(&slow, 1500) == 3000000000, "clock to ns at 1 kHz");
  int vtid_key = ctf_trace_context_key(trace, "vtid");
  CHECK(vtid_key >= 0 && ctf_trace_context_key(trace, "_vtid") == vtid_key, "vtid key");
  CHECK(ctf_trace_context_key(trace, "vpid") < 0, "no vpid key");

  struct ctf_cursor *cursor = NULL;
  status = ctf_cursor_open(trace, 0, &cursor, &error);
  CHECK(status == CTF_OK, "cursor: %s", error.message);
  const uint64_t expected_times[] = {B + 100, B + 300, B + (1ull << 40), B + (1ull << 40) + 5,
                                     B + (1ull << 40) + 6, B + (1ull << 42) + 1};
  const char *expected_names[] = {"bits", "bits", "far", "shapes", "shapes", "bits"};
  const struct ctf_event *event = NULL;
  size_t count = 0;
  while ((status = ctf_cursor_next(cursor, &event, &error)) == CTF_OK) {
    CHECK(count < 6, "too many events");
    if (count >= 6)
      break;
    CHECK(event->timestamp == expected_times[count], "event %zu timestamp 0x%" PRIx64
          ", expected 0x%" PRIx64, count, event->timestamp, expected_times[count]);
    CHECK(!strcmp(event->event_class->name, expected_names[count]), "event %zu is %s", count,
          event->event_class->name);
    int64_t vtid = 0;
    CHECK(ctf_event_context_int(event, vtid_key, &vtid) && vtid == -7, "vtid %" PRId64, vtid);
    CHECK(event->packet->cpu_id == 3, "cpu_id");
    struct ctf_value values[8];
    CHECK(ctf_event_decode_payload(event, values, 8, &error) == CTF_OK, "decode: %s",
          error.message);
    const char *name = event->event_class->name;
    if (count == 0) {
      CHECK(values[0].kind == CTF_VALUE_SIGNED && values[0].u.s == -3, "3-bit signed");
      CHECK(values[1].u.u == 0x1abc, "13-bit field 0x%" PRIx64, values[1].u.u);
      CHECK(values[2].u.u == 0xbeef, "big-endian field 0x%" PRIx64, values[2].u.u);
      CHECK(values[3].u.u == 0x0102030405060708ull, "u64 field");
      struct ctf_value direct;
      CHECK(ctf_event_decode_field(event, 3, &direct, &error) == CTF_OK &&
                direct.u.u == 0x0102030405060708ull, "direct read of a u64 field");
      CHECK(ctf_event_decode_field(event, 0, &direct, &error) == CTF_OK && direct.u.s == -3,
            "direct read of a bit field");
    } else if (!strcmp(name, "far")) {
      CHECK(event->event_class->id == 40, "extended id");
      CHECK(values[1].kind == CTF_VALUE_STRING && !strcmp(values[1].u.string.chars, "far away"),
            "string");
    } else if (count == 3) {
      CHECK(values[1].kind == CTF_VALUE_VARIANT && values[1].u.compound.option == 1,
            "variant option");
      CHECK(values[2].kind == CTF_VALUE_STRUCT, "struct value");
      CHECK(values[4].kind == CTF_VALUE_ARRAY && values[4].u.array.count == 3, "strings");
      struct ctf_value element;
      CHECK(ctf_value_element(&values[4], 2, &element) == CTF_OK &&
                !strcmp(element.u.string.chars, "gamma"), "third string");
      CHECK(ctf_value_element(&values[4], 1, &element) == CTF_OK &&
                element.u.string.length == 0, "empty string");
      CHECK(values[5].u.u == 0xabcd, "field after the strings 0x%" PRIx64, values[5].u.u);
      struct ctf_value after;
      CHECK(ctf_event_decode_field(event, 5, &after, &error) == CTF_OK && after.u.u == 0xabcd,
            "field after variable ones, read alone");
      const char *labels[2];
      CHECK(ctf_enum_labels(values[0].type, &values[0], labels, 2) == 1 &&
                !strcmp(labels[0], "big"), "enum label");
    } else if (count == 4) {
      CHECK(values[1].u.compound.option == 2 && values[5].u.u == 0x1234, "empty option");
    }
    if (count == 5) {
      CHECK(event->packet->index == 2, "third packet");
      CHECK(event->packet->events_discarded == 12 && event->packet->events_discarded_new == 7,
            "discarded %" PRIu64 " (+%" PRIu64 ")", event->packet->events_discarded,
            event->packet->events_discarded_new);
    }
    count++;
  }
  CHECK(status == CTF_END, "end of stream: %s", error.message);
  CHECK(count == 6, "%zu events", count);
  CHECK(ctf_cursor_events_discarded(cursor) == 20, "20 discarded in all, not %" PRIu64,
        ctf_cursor_events_discarded(cursor));
  ctf_cursor_close(cursor);
  ctf_trace_close(trace);
}

/* ---- Trace 1b: packets larger than the cursor's window ------------------------------------ */

/* The string of "far" event i: its length and its bytes. A few are longer than the
 * cursor reads at a time (256 KiB), the others make events lie across its windows. */
static size_t far_length(size_t i) { return i == 700 ? (600u << 10) : i * 37 % 1500; }
static char far_char(size_t i, size_t k) { return (char)('a' + (i + k) % 26); }

static bool far_string_is(const char *chars, size_t length, size_t i) {
  if (length != far_length(i) || chars[length] != 0)
    return false;
  for (size_t k = 0; k < length; k++)
    if (chars[k] != far_char(i, k))
      return false;
  return true;
}

enum { FAR_EVENTS = 2600, FAR_SPLIT = 2000 };

static void write_window_trace(void) {
  write_packetized_metadata(compact_metadata, false);
  struct writer *w = calloc(1, sizeof *w);
  char *text = malloc((600u << 10) + 1);
  struct packet_marks marks = begin_compact_packet(w, B, 0, 1);
  for (size_t i = 0; i < FAR_EVENTS; i++) {
    if (i == FAR_SPLIT) { /* a second packet */
      w_align(w, 8);
      end_packet(w, marks, "stream_w", w->bit / 8 + 4096);
      marks = begin_compact_packet(w, B + 2 * FAR_EVENTS, 0, 1);
    }
    compact_header(w, 40, B + 2 * i + 1);
    w_int(w, 8, 64, i);
    size_t length = far_length(i);
    for (size_t k = 0; k < length; k++)
      text[k] = far_char(i, k);
    text[length] = 0;
    w_string(w, text);
  }
  w_align(w, 8);
  end_packet(w, marks, "stream_w", w->bit / 8 + 64);
  free(text);
  free(w);
}

/* Every event of packets of 2 MB and more, with strings of up to 600 KiB across the
 * windows the cursor reads them in, decoded as written; the strings handed out stay
 * readable once the cursor has read on (they point into the mapped file). */
static void test_windows(bool few_descriptors) {
  if (!few_descriptors)
    write_window_trace();
  struct ctf_error error = {0};
  struct ctf_trace *trace = NULL;
  enum ctf_status status = ctf_trace_open(work, &trace, &error);
  CHECK(status == CTF_OK, "open the trace of large packets: %s", error.message);
  if (status != CTF_OK)
    return;
  struct ctf_cursor *cursor = NULL;
  status = ctf_cursor_open(trace, 0, &cursor, &error);
  CHECK(status == CTF_OK, "cursor: %s", error.message);
  const struct ctf_event *event = NULL;
  size_t count = 0, wrong = 0;
  const char *kept[FAR_EVENTS] = {0};
  size_t kept_length[FAR_EVENTS] = {0};
  while (cursor && (status = ctf_cursor_next(cursor, &event, &error)) == CTF_OK) {
    struct ctf_value values[2], alone;
    bool ok = count < FAR_EVENTS && event->timestamp == B + 2 * count + 1 &&
              ctf_event_decode_payload(event, values, 2, &error) == CTF_OK &&
              values[0].u.u == count && values[1].kind == CTF_VALUE_STRING &&
              far_string_is(values[1].u.string.chars, values[1].u.string.length, count) &&
              ctf_event_decode_field(event, 1, &alone, &error) == CTF_OK &&
              alone.u.string.chars == values[1].u.string.chars &&
              event->packet->index == (count < FAR_SPLIT ? 0u : 1u);
    if (!ok && wrong++ < 5)
      CHECK(false, "event %zu of the large packets read wrong: %s", count, error.message);
    if (ok) {
      kept[count] = values[1].u.string.chars;
      kept_length[count] = values[1].u.string.length;
    }
    count++;
  }
  CHECK(status == CTF_END, "end of the large packets: %s", error.message);
  CHECK(count == FAR_EVENTS, "%zu events of %d in the large packets", count, FAR_EVENTS);
  size_t stale = 0;
  for (size_t i = 0; i < FAR_EVENTS; i++)
    stale += kept[i] && !far_string_is(kept[i], kept_length[i], i);
  CHECK(stale == 0, "%zu strings changed once the cursor read on", stale);
  ctf_cursor_close(cursor);
  ctf_trace_close(trace);
}

/* ---- Trace 2: big endian, LTTng-like large headers, two streams ----------------------------- */

static const char big_metadata[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "trace { major = 1; minor = 8; byte_order = be;\n"
    "  packet.header := struct { uint32_t magic; uint32_t stream_id; };\n"
    "};\n"
    "clock { name = \"c\"; freq = 1000000000; };\n"
    "typealias integer { size = 32; align = 8; signed = false; map = clock.c.value; } := t32;\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := t64;\n"
    "stream { id = 3;\n"
    "  event.header := struct {\n"
    "    enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
    "    variant <id> { struct { t32 timestamp; } compact;\n"
    "                   struct { uint32_t id; t64 timestamp; } extended; } v;\n"
    "  } align(8);\n"
    "  packet.context := struct { uint64_t content_size; uint64_t packet_size; };\n"
    "};\n"
    "event { name = \"num\"; id = 0; stream_id = 3; fields := struct {\n"
    "  floating_point { exp_dig = 11; mant_dig = 53; align = 8; } _d;\n"
    "  floating_point { exp_dig = 8; mant_dig = 24; align = 8; } _f;\n"
    "  integer { size = 16; align = 8; signed = true; } _len;\n"
    "  integer { size = 32; align = 8; signed = true; } _vals[_len];\n"
    "  integer { size = 16; align = 8; signed = true; byte_order = le; } _le[2];\n"
    "}; };\n";

static void big_packet(const char *file, const uint64_t *times, size_t count, int first) {
  struct writer *w = calloc(1, sizeof *w);
  w->big_endian = true;
  w_int(w, 8, 32, 0xc1fc1fc1);
  w_int(w, 8, 32, 3);
  uint64_t content_at = w_int(w, 8, 64, 0);
  uint64_t packet_at = w_int(w, 8, 64, 0);
  for (size_t i = 0; i < count; i++) {
    w_int(w, 8, 16, 65535);
    w_int(w, 8, 32, 0);
    w_int(w, 8, 64, times[i]);
    w_double(w, -2.5 * (double)(first + (int)i));
    uint32_t f;
    float value = 0.25f;
    memcpy(&f, &value, sizeof f);
    w_int(w, 8, 32, f);
    w_int(w, 8, 16, 2);
    w_int(w, 8, 32, (uint64_t)-1);
    w_int(w, 8, 32, (uint64_t)(first + (int)i));
    w_align(w, 8);
    w_put_at(w, w->bit, 16, 0x0102, false);   /* a little-endian array in a big trace */
    w->bit += 16;
    w_put_at(w, w->bit, 16, 0xfffe, false);
    w->bit += 16;
  }
  w_put_at(w, content_at, 64, w->bit, true);
  w_put_at(w, packet_at, 64, 4096 * 8, true);
  append_file(file, w->bytes, 4096);
  free(w);
}

static void test_big_endian_merge(void) {
  write_file("metadata", big_metadata, strlen(big_metadata));
  const uint64_t a[] = {10, 20, 30}, b[] = {5, 20, 40};
  big_packet("s_1", a, 3, 0);
  big_packet("s_2", b, 3, 100);
  write_file("s_10", "", 0);   /* an empty stream */
  struct ctf_error error = {0};
  struct ctf_trace *trace = NULL;
  enum ctf_status status = ctf_trace_open(work, &trace, &error);
  CHECK(status == CTF_OK, "open big-endian trace: %s", error.message);
  if (status != CTF_OK)
    return;
  CHECK(ctf_trace_stream_count(trace) == 3, "three streams");
  CHECK(strstr(ctf_trace_stream(trace, 2)->path, "s_10") != NULL, "natural order of streams");
  struct ctf_merge *merge = NULL;
  CHECK(ctf_merge_open(trace, NULL, 0, &merge, &error) == CTF_OK, "merge: %s", error.message);
  const uint64_t times[] = {5, 10, 20, 20, 30, 40};
  const int64_t firsts[] = {100, 0, 1, 101, 2, 102};
  const struct ctf_event *event;
  size_t count = 0;
  while ((status = ctf_merge_next(merge, &event, &error)) == CTF_OK && count < 6) {
    CHECK(event->timestamp == times[count], "merged time %" PRIu64, event->timestamp);
    struct ctf_value v[5];
    CHECK(ctf_event_decode_payload(event, v, 5, &error) == CTF_OK, "decode: %s",
          error.message);
    CHECK(v[0].kind == CTF_VALUE_FLOAT && v[0].u.f == -2.5 * (double)firsts[count],
          "double %g", v[0].u.f);
    CHECK(v[1].u.f == 0.25, "float %g", v[1].u.f);
    struct ctf_value element;
    CHECK(v[3].u.array.count == 2 && ctf_value_element(&v[3], 0, &element) == CTF_OK &&
              element.u.s == -1, "sequence element 0");
    CHECK(ctf_value_element(&v[3], 1, &element) == CTF_OK && element.u.s == firsts[count],
          "sequence element 1: %" PRId64, element.u.s);
    CHECK(ctf_value_element(&v[4], 1, &element) == CTF_OK && element.u.s == -2,
          "little-endian element %" PRId64, element.u.s);
    CHECK(ctf_value_element(&v[3], 2, &element) == CTF_ERR_USAGE, "index past the end");
    count++;
  }
  CHECK(status == CTF_END && count == 6, "6 merged events, then the end (%d)", status);
  ctf_merge_close(merge);

  /* Cut the second stream inside its second event. */
  char path[512];
  snprintf(path, sizeof path, "%s/s_2", work);
  CHECK(truncate(path, 16 + 32 + 20) == 0, "truncate");
  status = ctf_merge_open(trace, NULL, 0, &merge, &error);
  size_t read = 0, errors = 0;
  for (;;) {
    status = ctf_merge_next(merge, &event, &error);
    if (status == CTF_END)
      break;
    if (status == CTF_OK) {
      read++;
      continue;
    }
    errors++;
    CHECK(strstr(error.message, "file=") && strstr(error.message, "/s_2, packet=0, offset="),
          "located error: %s", error.message);
  }
  CHECK(errors == 1 && read == 4, "%zu events and %zu errors after the cut", read, errors);
  ctf_merge_close(merge);
  ctf_trace_close(trace);
}

/* ---- Metadata diagnostics ------------------------------------------------------------------- */

static void expect_metadata_error(const char *text, const char *position, const char *message) {
  write_file("metadata", text, strlen(text));
  struct ctf_error error = {0};
  struct ctf_trace *trace = NULL;
  enum ctf_status status = ctf_trace_open(work, &trace, &error);
  char expected[256];
  snprintf(expected, sizeof expected, "/metadata:%s: error: %s", position, message);
  CHECK(status == CTF_ERR_METADATA && strstr(error.message, expected),
        "metadata error %s, got: %s", expected, error.message);
  ctf_trace_close(trace);
}

static void expect_compile_error(const char *text, const char *message) {
  write_file("metadata", text, strlen(text));
  struct ctf_error error = {0};
  struct ctf_trace *trace = NULL;
  enum ctf_status status = ctf_trace_open(work, &trace, &error);
  CHECK(status == CTF_ERR_METADATA && strstr(error.message, message),
        "compile error \"%s\", got: %s", message, error.message);
  ctf_trace_close(trace);
}

static void test_metadata_errors(void) {
  const char *head = "trace { major = 1; minor = 8; byte_order = le; };\n";
  char text[1024];
  snprintf(text, sizeof text, "%sevent { name = x; fields := struct { uint32_t a; }; };\n", head);
  expect_metadata_error(text, "2:38", "Cannot find type: name=uint32_t");
  snprintf(text, sizeof text, "%s/* never closed\n", head);
  expect_metadata_error(text, "2:1", "Cannot read comment: no closing */");
  snprintf(text, sizeof text, "%sevent { name = x }\n", head);
  expect_metadata_error(text, "2:18", "Cannot parse event: expected ';', found '}'");
  snprintf(text, sizeof text, "%stypealias integer { size = 65; } := big;\n", head);
  expect_metadata_error(text, "2:28", "Cannot handle integer: size=65");
  snprintf(text, sizeof text,
           "%stypealias integer { size = 8; map = clock.nope.value; } := t;\n", head);
  expect_metadata_error(text, "2:37", "Cannot find clock: name=nope");
  expect_metadata_error("env { a = 1; };\n", "2:1", "Cannot use metadata: it has no trace block");
  snprintf(text, sizeof text,
           "%sevent { name = x; fields := struct { integer { size = 8; } a[missing]; }; };\n",
           head);
  expect_compile_error(text, "field=a: Cannot resolve sequence length");
  snprintf(text, sizeof text, "%sstream { id = 0; };\nevent { name = x; stream_id = 4; };\n",
           head);
  expect_metadata_error(text, "4:1", "Cannot use event: name=x, stream_id=4: no such stream");
  /* The caret line sits under the column. */
  snprintf(text, sizeof text, "%sevent { name = x; fields := struct { uint32_t a; }; };\n", head);
  write_file("metadata", text, strlen(text));
  struct ctf_error error = {0};
  struct ctf_trace *trace = NULL;
  ctf_trace_open(work, &trace, &error);
  char caret[128];
  snprintf(caret, sizeof caret, "\nevent { name = x; fields := struct { uint32_t a; }; };\n%37s^",
           "");
  CHECK(strstr(error.message, caret) != NULL,
        "caret: %s", error.message);
}

/* ---- TSDL that LTTng does not write but CTF 1.8 allows ---------------------------------- */

static const char kitchen_sink_metadata[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 32; align = 8; signed = true; } := int;\n"
    "typealias integer { size = 8; align = 8; signed = false; } := unsigned char;\n"
    "typedef unsigned char byte_t, pair_t[2];\n"
    "trace { major = 1; minor = 8; byte_order = be; };\n"
    "env { hostname = \"h1\"; hostname = \"h2\"; n = 3; };\n"
    "callsite { name = \"x\"; func = \"f\"; ip = 0x1234; file = \"a.c\"; line = 12; };\n"
    "enum color { RED, GREEN = 5, \"BLUE\" };\n"
    "struct point { byte_t x; byte_t y; } align(32);\n"
    "variant choice { int RED; string GREEN; };\n"
    "stream { event.header := struct { enum color id; };\n"
    "  event.context := struct { struct point p; }; };\n"
    "event { name = \"k\"; loglevel = -2; model.emf.uri = \"http://x\"; fields := struct {\n"
    "  enum color c;\n"
    "  variant choice <c> v;\n"
    "  pair_t pr;\n"
    "  integer { size = 12; align = 4; base = 8; byte_order = native; } o;\n"
    "  string { encoding = ASCII; } s;\n"
    "  floating_point { exp_dig = 8; mant_dig = 24; byte_order = le; } f;\n"
    "  integer { size = 8; } grid[2][3];\n"
    "}; };\n";

static void test_metadata_parse(void) {
  write_file("metadata", kitchen_sink_metadata, strlen(kitchen_sink_metadata));
  struct ctf_error error = {0};
  struct ctf_trace *trace = NULL;
  enum ctf_status status = ctf_trace_open(work, &trace, &error);
  CHECK(status == CTF_OK, "open kitchen-sink metadata: %s", error.message);
  if (status != CTF_OK)
    return;
  const struct ctf_subtrace *sub = ctf_trace_subtrace(trace, 0);
  CHECK(!strcmp(ctf_subtrace_env_string(sub, "hostname"), "h2"), "a later env value wins");
  CHECK(sub->byte_order == CTF_BYTE_ORDER_BE, "trace byte order");
  CHECK(ctf_trace_stream_count(trace) == 0, "no stream file");
  const struct ctf_event_class *k = ctf_trace_event_class(trace, 0);
  CHECK(k && k->field_count == 7 && k->loglevel == -2 && !strcmp(k->emf_uri, "http://x"),
        "event class attributes");
  if (!k || k->field_count != 7) {
    ctf_trace_close(trace);
    return;
  }
  const struct ctf_type *color = k->fields[0].type;
  CHECK(color->kind == CTF_TYPE_ENUM && color->u.enumeration.mapping_count == 3 &&
            color->u.enumeration.mappings[1].lower == 5 &&
            color->u.enumeration.mappings[2].lower == 6 &&
            color->u.enumeration.container->u.integer.is_signed, "enum with the int default");
  CHECK(k->fields[1].type->kind == CTF_TYPE_VARIANT &&
            !strcmp(k->fields[1].type->u.variant.tag, "c"), "tagged variant reference");
  const struct ctf_type *pair = k->fields[2].type;
  CHECK(pair->kind == CTF_TYPE_ARRAY && pair->u.array.length == 2 && pair->size == 16,
        "typedef of an array");
  const struct ctf_type *octal = k->fields[3].type;
  CHECK(octal->u.integer.base == 8 && octal->u.integer.byte_order == CTF_BYTE_ORDER_BE &&
            octal->alignment == 4, "native byte order resolved to the trace's");
  CHECK(k->fields[4].type->u.string.encoding == CTF_ENCODING_ASCII, "string encoding");
  CHECK(k->fields[5].type->u.floating.byte_order == CTF_BYTE_ORDER_LE, "float byte order");
  const struct ctf_type *grid = k->fields[6].type;
  CHECK(grid->u.array.length == 2 && grid->u.array.element->u.array.length == 3 &&
            grid->size == 48, "a[2][3] holds 2 arrays of 3");
  const struct ctf_type *context = k->stream_class->event_context;
  const struct ctf_type *point = context->u.structure.fields[0].type;
  CHECK(point->alignment == 32 && point->size == 16, "struct align(32)");
  CHECK(k->stream_class->id == 0 && k->stream_class->clock == NULL, "implicit stream id");
  CHECK(ctf_event_class_field_index(k, "grid") == 6 && ctf_event_class_field_index(k, "x") < 0,
        "field lookup");
  ctf_trace_close(trace);
}

/* ---- LTTng's packet index, packets scanned, the search through links ---------------- */

static void put_be(uint8_t *at, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++)
    at[i] = (uint8_t)(value >> (8 * (bytes - 1 - i)));
}

/* An index as LTTng's consumer writes it (1.1: 72-byte big-endian entries). */
static void write_index(const char *name, uint32_t magic, const uint64_t (*entries)[9],
                        size_t count) {
  uint8_t data[16 + 8 * 72];
  put_be(data, magic, 4);
  put_be(data + 4, 1, 4);
  put_be(data + 8, 1, 4);
  put_be(data + 12, 72, 4);
  for (size_t i = 0; i < count; i++)
    for (int f = 0; f < 9; f++)
      put_be(data + 16 + 72 * i + 8 * f, entries[i][f], 8);
  write_file(name, data, 16 + 72 * count);
}

static void test_index_and_search(void) {
  write_compact_trace();
  struct ctf_error error = {0};
  struct ctf_trace *trace = NULL;
  enum ctf_status status = ctf_trace_open(work, &trace, &error);
  CHECK(status == CTF_OK, "open compact trace: %s", error.message);
  if (status != CTF_OK)
    return;
  /* Every packet, empty ones included, without their events. */
  struct ctf_cursor *cursor = NULL;
  CHECK(ctf_cursor_open(trace, 0, &cursor, &error) == CTF_OK, "cursor: %s", error.message);
  const uint64_t offsets[] = {0, 512, 640, 896, 1024};
  const struct ctf_packet *packet;
  size_t packets = 0;
  while (cursor && (status = ctf_cursor_next_packet(cursor, &packet, &error)) == CTF_OK) {
    CHECK(packets < 5 && packet->offset == offsets[packets], "packet %zu at %" PRIu64, packets,
          packet->offset);
    packets++;
  }
  CHECK(status == CTF_END && packets == 5, "5 packets scanned (%zu, status %d)", packets, status);
  ctf_cursor_close(cursor);
  ctf_trace_close(trace);

  /* The index: two whole entries and one cut short by the end of the file. */
  char path[600], expected[600];
  snprintf(path, sizeof path, "%s/index", work);
  CHECK(mkdir(path, 0700) == 0, "mkdir index");
  snprintf(path, sizeof path, "%s/stream_0", work);
  ctf_index_path(path, expected, sizeof expected);
  snprintf(path, sizeof path, "%s/index/stream_0.idx", work);
  CHECK(!strcmp(path, expected), "index path %s", expected);
  const uint64_t entries[2][9] = {{0, 4096, 2000, 10, 20, 0, 0, 7, 0},
                                  {512, 1024, 800, 30, 40, 5, 0, 7, UINT64_MAX}};
  write_index("index/stream_0.idx", 0xC1F1DCC1u, entries, 2);
  append_file("index/stream_0.idx", (const uint8_t[10]){0}, 10);
  struct ctf_index index;
  status = ctf_index_read(path, &index, &error);
  CHECK(status == CTF_OK && index.count == 2, "index: %d, %zu entries", status, index.count);
  if (status == CTF_OK && index.count == 2) {
    CHECK(index.entries[1].offset == 512 && index.entries[1].packet_size == 1024 &&
              index.entries[1].content_size == 800 && index.entries[1].timestamp_end == 40 &&
              index.entries[1].events_discarded == 5 && index.entries[1].stream_instance_id == 7,
          "index entry 1");
    CHECK(index.entries[0].has_sequence_number && index.entries[0].sequence_number == 0 &&
              !index.entries[1].has_sequence_number,
          "sequence numbers (-1: unknown)");
  }
  ctf_index_free(&index);
  write_index("index/stream_0.idx", 0xC1FC1FC1u, entries, 1);
  status = ctf_index_read(path, &index, &error);
  CHECK(status == CTF_ERR_DATA && strstr(error.message, path), "bad magic named: %s",
        error.message);
  snprintf(path, sizeof path, "%s/index/none.idx", work);
  CHECK(ctf_index_read(path, &index, &error) == CTF_END, "no index: CTF_END");

  /* Links to the trace twice and a loop: one folder, by its real path. */
  char links[600], link[700], real[PATH_MAX];
  snprintf(links, sizeof links, "%s-links", work);
  CHECK(mkdir(links, 0700) == 0, "mkdir links");
  snprintf(link, sizeof link, "%s/a", links);
  CHECK(symlink(work, link) == 0, "link a");
  snprintf(link, sizeof link, "%s/b", links);
  CHECK(symlink(work, link) == 0, "link b");
  snprintf(link, sizeof link, "%s/loop", links);
  CHECK(symlink(links, link) == 0, "link loop");
  char **folders = NULL;
  size_t count = 0;
  status = ctf_trace_find(links, &folders, &count, &error);
  CHECK(status == CTF_OK && count == 1 && realpath(work, real) && !strcmp(folders[0], real),
        "one folder through two links and a loop: %zu (%s)", count, error.message);
  for (size_t i = 0; i < count; i++)
    free(folders[i]);
  free(folders);
  status = ctf_trace_open(links, &trace, &error);
  CHECK(status == CTF_OK && ctf_trace_stream_count(trace) == 1, "opened once through links");
  if (status == CTF_OK)
    ctf_trace_close(trace);
  /* A file that is not the metadata is named as given. */
  snprintf(path, sizeof path, "%s/stream_0", work);
  status = ctf_trace_open(path, &trace, &error);
  CHECK(status == CTF_ERR_USAGE && strstr(error.message, path) && !strstr(error.message, "/metadata"),
        "a stream file given: %s", error.message);
  char command[800];
  snprintf(command, sizeof command, "rm -rf '%s'", links);
  CHECK(system(command) == 0, "rm links");
}

int main(void) {
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(work, sizeof work, "%s/ctf_unit_test.XXXXXX", tmp);
  if (!mkdtemp(work)) {
    perror("mkdtemp");
    return 1;
  }
  char command[512];
  test_compact_trace();
  snprintf(command, sizeof command, "rm -rf '%s'/*", work);
  if (system(command) != 0)
    return 1;
  test_windows(false);
  /* With few descriptors left, the cursor copies its windows from the mapping. */
  struct rlimit files;
  int probe = dup(0);
  if (probe >= 0 && getrlimit(RLIMIT_NOFILE, &files) == 0) {
    close(probe);
    struct rlimit few = {(rlim_t)probe * 2, files.rlim_max};
    CHECK(setrlimit(RLIMIT_NOFILE, &few) == 0, "setrlimit");
    test_windows(true);
    setrlimit(RLIMIT_NOFILE, &files);
  }
  if (system(command) != 0)
    return 1;
  test_big_endian_merge();
  if (system(command) != 0)
    return 1;
  test_metadata_errors();
  if (system(command) != 0)
    return 1;
  test_metadata_parse();
  if (system(command) != 0)
    return 1;
  test_index_and_search();
  snprintf(command, sizeof command, "rm -rf '%s'", work);
  if (system(command) != 0)
    return 1;
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
