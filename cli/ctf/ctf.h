/* ctf.h: fast reader for the CTF 1.8 traces that LTTng 2.13 (UST) writes.
 *
 * babeltrace2 stays the reference decoder; this reader exists because analyses must
 * read several times faster than it does (see docs/trace-format.md).
 *
 * Conventions:
 * - Functions that can fail return enum ctf_status and, on failure, fill the caller's
 *   struct ctf_error (which may be NULL) with one sentence: "Cannot ...: key=value, ...",
 *   naming the file, packet and byte offset where data was at fault, or
 *   "file:line:col: error: ..." for metadata.  The library never prints or exits.
 * - A struct ctf_trace owns everything reachable from it (sub-traces, classes, types,
 *   names); those pointers stay valid until ctf_trace_close(), and an open trace is
 *   never modified, so any number of threads may read it at once.
 * - A cursor reads one stream file, which it maps read-only. The struct ctf_event it
 *   yields is the cursor's own and is overwritten by its next call; string and array
 *   values point into the mapping and stay valid until the cursor is closed.
 *   Cursors are independent: different cursors may be used by different threads at
 *   once, one cursor by one thread at a time.
 * - Public structs are read-only views; fields named `internal` are not for callers.
 */
#ifndef TRACER_CTF_H
#define TRACER_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status and errors ------------------------------------------------------------ */

enum ctf_status {
  CTF_OK = 0,
  CTF_END = 1,                /* no more events: not an error */
  CTF_ERR_IO = -1,            /* a file could not be opened, read or mapped */
  CTF_ERR_METADATA = -2,      /* the TSDL metadata is malformed or inconsistent */
  CTF_ERR_DATA = -3,          /* a stream file is truncated or corrupt */
  CTF_ERR_UNSUPPORTED = -4,   /* valid CTF that this reader does not handle */
  CTF_ERR_NO_MEMORY = -5,
  CTF_ERR_USAGE = -6,         /* the caller passed a bad argument */
};

struct ctf_error {
  enum ctf_status status;
  char message[2048];
};

/* A constant name for a status ("ok", "data error", ...). */
const char *ctf_status_name(enum ctf_status status);

/* ---- Types of fields, as the metadata declares them -------------------------------- */

enum ctf_type_kind {
  CTF_TYPE_INTEGER,
  CTF_TYPE_ENUM,
  CTF_TYPE_FLOAT,
  CTF_TYPE_STRING,
  CTF_TYPE_STRUCT,
  CTF_TYPE_VARIANT,
  CTF_TYPE_ARRAY,
  CTF_TYPE_SEQUENCE,
};

enum ctf_byte_order { CTF_BYTE_ORDER_LE, CTF_BYTE_ORDER_BE };
enum ctf_encoding { CTF_ENCODING_NONE, CTF_ENCODING_UTF8, CTF_ENCODING_ASCII };

struct ctf_type;
struct ctf_clock_class;

struct ctf_field {
  const char *name;       /* as babeltrace2 shows it: one leading '_' removed */
  const char *raw_name;   /* as written in the metadata */
  const struct ctf_type *type;
};

/* One label of an enumeration and the inclusive range of values it maps. The bounds
 * hold the container's bit pattern: compare them as int64_t when the container is
 * signed, as uint64_t otherwise (ctf_enum_labels() does it). */
struct ctf_enum_mapping {
  const char *label;
  uint64_t lower;
  uint64_t upper;
};

struct ctf_type {
  enum ctf_type_kind kind;
  uint32_t alignment;     /* bits */
  int64_t size;           /* bits when every value has this size, -1 when it varies */
  union {
    struct {
      uint32_t size;      /* bits, 1..64 */
      bool is_signed;
      enum ctf_byte_order byte_order;
      uint8_t base;       /* 2, 8, 10 or 16: how babeltrace2 prints it */
      enum ctf_encoding encoding;
      const struct ctf_clock_class *mapped_clock;   /* NULL when not a clock value */
    } integer;
    struct {
      const struct ctf_type *container;             /* a CTF_TYPE_INTEGER */
      const struct ctf_enum_mapping *mappings;      /* in declaration order */
      size_t mapping_count;
    } enumeration;
    struct {
      uint32_t exponent_digits;
      uint32_t mantissa_digits;                     /* 24 (float) or 53 (double) */
      enum ctf_byte_order byte_order;
    } floating;
    struct {
      enum ctf_encoding encoding;
    } string;
    struct {
      const struct ctf_field *fields;
      size_t field_count;
    } structure;
    struct {
      const char *tag;                              /* path of the enum that selects */
      const struct ctf_field *options;
      size_t option_count;
    } variant;
    struct {
      const struct ctf_type *element;
      uint64_t length;
    } array;
    struct {
      const struct ctf_type *element;
      const char *length;                           /* path of the length field */
    } sequence;
  } u;
};

/* ---- Decoded values ------------------------------------------------------------------ */

enum ctf_value_kind {
  CTF_VALUE_NONE,
  CTF_VALUE_SIGNED,    /* integers and enums: u.s; type says base and enum labels */
  CTF_VALUE_UNSIGNED,  /* u.u */
  CTF_VALUE_FLOAT,     /* u.f (a float is widened to double) */
  CTF_VALUE_STRING,    /* u.string */
  CTF_VALUE_ARRAY,     /* arrays and sequences: u.array */
  CTF_VALUE_STRUCT,    /* u.compound: members are not decoded (see limitations) */
  CTF_VALUE_VARIANT,   /* u.compound with the selected option */
};

struct ctf_value {
  enum ctf_value_kind kind;
  const struct ctf_type *type;  /* the field's declared type */
  union {
    int64_t s;
    uint64_t u;
    double f;
    struct {
      const char *chars;  /* in the mapped file, NUL-terminated there: valid as long as
                             the cursor (or merge) that read it is open */
      size_t length;      /* bytes before the NUL */
    } string;
    struct {
      const uint8_t *data;            /* byte holding the first element */
      uint32_t bit;                   /* bit of that byte where it starts (0 if aligned) */
      uint64_t count;
      const struct ctf_type *element;
      uint64_t stride;                /* bits between elements; 0 when sizes vary */
      const uint8_t *end;             /* end of readable data, for ctf_value_element() */
    } array;
    struct {
      const uint8_t *data;
      uint32_t bit;
      uint32_t option;                /* variants: index of the selected option */
      const uint8_t *end;
    } compound;
  } u;
};

/* The index-th element of an array value. O(1) for fixed-size elements (integers,
 * enums, floats); strings are walked from the first. CTF_ERR_UNSUPPORTED for compound
 * elements, CTF_ERR_USAGE when index >= count. */
enum ctf_status ctf_value_element(const struct ctf_value *array, uint64_t index,
                                  struct ctf_value *element);

/* Up to max integer elements of an array value, as 64-bit values (signed ones
 * sign-extended), into out: how many, 0 when its elements are not integers. Arrays of
 * byte-aligned 64-bit integers in the host's byte order (call records) are copied at once. */
size_t ctf_value_u64s(const struct ctf_value *array, uint64_t *out, size_t max);

/* Whether an array value holds text (8-bit integers with an encoding), and that text up
 * to its first NUL, as babeltrace2 shows it. */
bool ctf_value_is_text(const struct ctf_value *array);
void ctf_value_text(const struct ctf_value *array, const char **chars, size_t *length);

/* Labels of the mappings of an enum type that contain the value (declaration order).
 * Returns how many match; stores at most `capacity` of them. */
size_t ctf_enum_labels(const struct ctf_type *enum_type, const struct ctf_value *value,
                       const char **labels, size_t capacity);

/* ---- Trace, sub-traces, classes -------------------------------------------------------- */

struct ctf_clock_class {
  const char *name;
  const char *uuid;          /* text form, NULL when absent */
  const char *description;   /* NULL when absent */
  uint64_t frequency;        /* Hz */
  int64_t offset_seconds;
  int64_t offset_cycles;
  uint64_t precision;
  bool absolute;
};

/* Nanoseconds since the clock's origin (the Unix epoch for LTTng) of a raw clock value:
 * offset_seconds * 1e9 + (offset_cycles + cycles) * 1e9 / frequency. */
int64_t ctf_clock_to_ns(const struct ctf_clock_class *clock, uint64_t cycles);

struct ctf_env_entry {
  const char *key;
  bool is_string;
  const char *string;        /* when is_string */
  int64_t integer;           /* otherwise */
};

struct ctf_subtrace;
struct ctf_event_class;

struct ctf_stream_class {
  uint64_t id;
  const struct ctf_subtrace *subtrace;
  const struct ctf_type *packet_context;  /* NULL when absent */
  const struct ctf_type *event_header;    /* NULL when absent */
  const struct ctf_type *event_context;   /* per-stream event context; NULL when absent */
  const struct ctf_clock_class *clock;    /* clock of event timestamps; NULL when none */
  /* Indexed by a key from ctf_trace_context_key(): index of that field among
   * event_context's fields, or -1 when this stream class lacks it. */
  const int32_t *context_key_fields;
  size_t context_key_count;
};

struct ctf_event_class {
  const char *name;
  uint64_t id;
  int64_t loglevel;                       /* INT64_MIN when absent */
  const char *emf_uri;                    /* NULL when absent */
  const struct ctf_stream_class *stream_class;
  const struct ctf_type *context;         /* event.context; NULL when absent */
  const struct ctf_type *payload;         /* event.fields; NULL when absent */
  const struct ctf_field *fields;         /* payload's top-level fields */
  size_t field_count;
  size_t index;                           /* in ctf_trace_event_class() */
  const void *internal;
};

/* A folder holding `metadata`: one LTTng buffer set (per UID and bitness, or per PID),
 * with its own metadata, clock and streams. */
struct ctf_subtrace {
  const char *path;
  const char *metadata_path;
  uint32_t major, minor;
  bool has_uuid;
  uint8_t uuid[16];
  enum ctf_byte_order byte_order;
  const struct ctf_type *packet_header;   /* NULL when absent */
  const struct ctf_env_entry *env;
  size_t env_count;
  const struct ctf_clock_class *clocks;
  size_t clock_count;
  const struct ctf_stream_class *const *stream_classes;
  size_t stream_class_count;
  const struct ctf_event_class *const *event_classes;
  size_t event_class_count;
  size_t index;
};

struct ctf_stream {
  const char *path;                       /* the stream file */
  const struct ctf_subtrace *subtrace;
  uint64_t file_size;
  size_t index;                           /* in ctf_trace_stream(); merge tie-breaker */
};

struct ctf_trace;

/* Opens `path`: a folder holding `metadata`, or any folder above such folders (an LTTng
 * session output folder), searched recursively as ctf_trace_find() does; or the metadata
 * file itself (any other file is an error that names it). Streams are every other regular file
 * of a metadata folder (hidden files and index/ excluded), ordered by sub-trace path
 * then file name in natural order. */
enum ctf_status ctf_trace_open(const char *path, struct ctf_trace **trace,
                               struct ctf_error *error);
void ctf_trace_close(struct ctf_trace *trace);
/* The folders ctf_trace_open(path) would read: every folder at or below path that holds
 * `metadata`, each once (by device and inode: a link to a folder beside it, or a link
 * loop, is not followed twice), by real path, sorted; at most 16 folders deep, and an
 * error past 200,000 folders searched. *folders (and each string) owned by the caller. */
enum ctf_status ctf_trace_find(const char *path, char ***folders, size_t *count,
                               struct ctf_error *error);


size_t ctf_trace_subtrace_count(const struct ctf_trace *trace);
const struct ctf_subtrace *ctf_trace_subtrace(const struct ctf_trace *trace, size_t index);

size_t ctf_trace_stream_count(const struct ctf_trace *trace);
const struct ctf_stream *ctf_trace_stream(const struct ctf_trace *trace, size_t index);

/* Every event class of every sub-trace. */
size_t ctf_trace_event_class_count(const struct ctf_trace *trace);
const struct ctf_event_class *ctf_trace_event_class(const struct ctf_trace *trace,
                                                    size_t index);

/* An env value of a sub-trace (NULL / false when absent or of the other kind). */
const struct ctf_env_entry *ctf_subtrace_env(const struct ctf_subtrace *subtrace,
                                             const char *key);
const char *ctf_subtrace_env_string(const struct ctf_subtrace *subtrace, const char *key);
/* The first sub-trace's string value for `key` ("hostname"), NULL when none has it. */
const char *ctf_trace_env_string(const struct ctf_trace *trace, const char *key);

/* Index of a payload field by name (shown or raw), -1 when absent. */
int ctf_event_class_field_index(const struct ctf_event_class *event_class,
                                const char *name);

/* Whether payload field `field` is a fixed-length array of 64-bit integers in the host's
 * byte order at a fixed, byte-aligned place in the payload (a tracer call's record):
 * then ctf_event_u64s() reads it without decoding. Its place and length in *at. */
struct ctf_fixed_u64s {
  uint64_t byte_offset; /* from the payload's start */
  uint64_t count;
};
bool ctf_event_class_fixed_u64s(const struct ctf_event_class *event_class, size_t field,
                                struct ctf_fixed_u64s *at);

/* A trace-wide key for the per-stream event context field `name` ("vtid" or "_vtid"),
 * to read it from every event with ctf_event_context_int(); -1 when no stream class
 * has it. */
int ctf_trace_context_key(const struct ctf_trace *trace, const char *name);

/* ---- LTTng's packet index ---------------------------------------------------------------- */

/* One packet as LTTng's consumer wrote it (FOLDER/index/STREAM.idx): what the stream file
 * should hold, whatever happened to the file since. */
struct ctf_index_entry {
  uint64_t offset;                 /* bytes, in the stream file */
  uint64_t packet_size, content_size; /* bits */
  uint64_t timestamp_begin, timestamp_end; /* raw clock values */
  uint64_t events_discarded;       /* cumulative, as in the packet's context */
  uint64_t stream_id;              /* the stream class */
  bool has_sequence_number;        /* index 1.1 and later, when known */
  uint64_t stream_instance_id, sequence_number;
};

struct ctf_index {
  struct ctf_index_entry *entries; /* owned; in the order written */
  size_t count;
};

/* FOLDER/index/NAME.idx of the stream file FOLDER/NAME, into out. */
void ctf_index_path(const char *stream_path, char *out, size_t size);
/* Reads an index file: CTF_OK, CTF_END when there is none (index empty), or an error
 * naming the file (not an index, a version this reader does not know). An entry cut
 * short at the end is left out. */
enum ctf_status ctf_index_read(const char *index_path, struct ctf_index *index,
                               struct ctf_error *error);
void ctf_index_free(struct ctf_index *index);

/* ---- Events ---------------------------------------------------------------------------- */

struct ctf_packet {
  uint64_t index;                  /* 0-based, within the stream file */
  uint64_t offset;                 /* byte offset in the stream file */
  uint64_t size;                   /* bits */
  uint64_t content_size;           /* bits */
  const struct ctf_stream_class *stream_class;
  bool has_stream_instance_id;
  uint64_t stream_instance_id;
  bool has_timestamps;
  uint64_t timestamp_begin, timestamp_end;   /* raw clock values */
  bool has_events_discarded;
  uint64_t events_discarded;       /* cumulative count the tracer wrote in this packet */
  /* How many of them since the stream's previous packet (a counter that drops, which
   * LTTng was seen to write once, adds 0 and the previous value stays the reference;
   * a counter narrower than 64 bits that drops by more than half its range wrapped). */
  uint64_t events_discarded_new;
  bool has_cpu_id;
  uint64_t cpu_id;
  bool has_sequence_number;
  uint64_t sequence_number;
  const struct ctf_value *context; /* every packet context field, in order */
};

struct ctf_event {
  const struct ctf_event_class *event_class;
  const struct ctf_stream *stream;
  const struct ctf_packet *packet;
  uint64_t timestamp;              /* raw clock value (ns for LTTng's monotonic clock) */
  uint64_t offset;                 /* byte offset of the event in the stream file */
  const struct ctf_value *stream_context;  /* stream class event_context fields */
  const struct ctf_value *context;         /* event class context fields, NULL if none */
  struct {                         /* where the payload lies, for the decoders */
    const uint8_t *packet_data;    /* the packet's byte 0, as the cursor's window has it */
    uint64_t payload_bit;
    uint64_t end_bit;
    uint64_t *registers;
    uintptr_t persist;             /* ctf_exec.persist */
  } internal;
};

/* Up to max values of a field that ctf_event_class_fixed_u64s() found fixed, copied
 * into out; how many. (The cursor checked that the whole payload lies in the packet.) */
static inline size_t ctf_event_u64s(const struct ctf_event *event, const struct ctf_fixed_u64s *at,
                                    uint64_t *out, size_t max) {
  size_t n = at->count < max ? (size_t)at->count : max;
  const uint8_t *from = event->internal.packet_data + (event->internal.payload_bit >> 3) +
                        at->byte_offset;
  if ((event->internal.payload_bit & 7) == 0)
    for (size_t i = 0; i < n; i++)
      __builtin_memcpy(&out[i], from + 8 * i, 8);
  else
    return 0;
  return n;
}

/* An integer field of the per-stream event context (vpid, vtid, ...) by a key from
 * ctf_trace_context_key(). False when this event's stream class lacks the field. */
static inline bool ctf_event_context_int(const struct ctf_event *event, int key,
                                         int64_t *value) {
  const struct ctf_stream_class *stream_class = event->event_class->stream_class;
  if (key < 0 || (size_t)key >= stream_class->context_key_count)
    return false;
  int32_t field = stream_class->context_key_fields[key];
  if (field < 0)
    return false;
  const struct ctf_value *v = &event->stream_context[field];
  if (v->kind != CTF_VALUE_SIGNED && v->kind != CTF_VALUE_UNSIGNED)
    return false;
  *value = v->u.s;
  return true;
}

/* Decodes every top-level payload field into values[0 .. field_count). Fixed-size fields
 * follow a plan compiled at open time. `capacity` must be >= field_count. Call it
 * before the event's cursor moves on. */
enum ctf_status ctf_event_decode_payload(const struct ctf_event *event,
                                         struct ctf_value *values, size_t capacity,
                                         struct ctf_error *error);

/* Decodes one payload field: a direct read when every field before it has a fixed
 * size (no other field is touched), otherwise the fields before it are walked. */
enum ctf_status ctf_event_decode_field(const struct ctf_event *event, size_t field_index,
                                       struct ctf_value *value, struct ctf_error *error);

/* ---- Cursors: one stream's events in stream order ---------------------------------------- */

struct ctf_cursor;

enum ctf_status ctf_cursor_open(const struct ctf_trace *trace, size_t stream_index,
                                struct ctf_cursor **cursor, struct ctf_error *error);
void ctf_cursor_close(struct ctf_cursor *cursor);

/* The next event: CTF_OK with *event set, CTF_END after the last one, or an error that
 * names the file, packet and byte offset. Events yielded before an error were fully
 * read. A damaged event inside a packet the file holds whole is reported once, and the
 * next call goes on with the following packet; any other error (a truncated file, a
 * broken packet header) is returned by every later call: ctf_cursor_failed() tells
 * which. Payloads are skipped, not decoded (decode them with ctf_event_decode_payload()). */
enum ctf_status ctf_cursor_next(struct ctf_cursor *cursor, const struct ctf_event **event,
                                struct ctf_error *error);

/* The next packet, its events skipped unread (a scan of a stream's packets): CTF_OK with
 * *packet set, CTF_END after the last one, or an error as ctf_cursor_next() gives. Not to
 * be mixed with ctf_cursor_next() on one cursor. */
enum ctf_status ctf_cursor_next_packet(struct ctf_cursor *cursor, const struct ctf_packet **packet,
                                       struct ctf_error *error);

/* True once the cursor cannot go on: its last error is returned by every later call. */
bool ctf_cursor_failed(const struct ctf_cursor *cursor);

/* The packet the last event came from (NULL before the first one). */
const struct ctf_packet *ctf_cursor_packet(const struct ctf_cursor *cursor);

/* Sum of ctf_packet.events_discarded_new over the packets entered so far. */
uint64_t ctf_cursor_events_discarded(const struct ctf_cursor *cursor);

/* ---- Merge: every stream's events in timestamp order ------------------------------------- */

struct ctf_merge;

/* Merges the given streams (all of them when stream_indices is NULL) by time since
 * the clock origin (ctf_clock_to_ns(), which orders per-PID sub-traces correctly);
 * equal times come out by stream index. */
enum ctf_status ctf_merge_open(const struct ctf_trace *trace, const size_t *stream_indices,
                               size_t stream_count, struct ctf_merge **merge,
                               struct ctf_error *error);
void ctf_merge_close(struct ctf_merge *merge);

/* Like ctf_cursor_next(). A stream's error is returned once; a stream that can go on
 * (see ctf_cursor_next()) stays in the merge, one that cannot leaves it; the next call
 * goes on with the others. */
enum ctf_status ctf_merge_next(struct ctf_merge *merge, const struct ctf_event **event,
                               struct ctf_error *error);

/* Sum of ctf_packet.events_discarded_new over the packets the merge has entered. */
uint64_t ctf_merge_events_discarded(const struct ctf_merge *merge);

#ifdef __cplusplus
}
#endif

#endif /* TRACER_CTF_H */
