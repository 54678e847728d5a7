/* ctf_internal.h: what the ctf_*.c files share and callers of ctf.h never see.
 *
 * Ownership: every object of a sub-trace (types, names, classes, plans) lives in that
 * sub-trace's arena and is freed with it, so nothing here is freed piecemeal.
 */
#ifndef TRACER_CTF_INTERNAL_H
#define TRACER_CTF_INTERNAL_H

#include "ctf.h"

#include <stdarg.h>

/* ---- Arena (ctf_arena.c) ---------------------------------------------------------- */

struct ctf_arena_block;
struct ctf_arena {
  struct ctf_arena_block *head;   /* owned */
};

/* Zeroed, 16-byte aligned memory that lives until ctf_arena_free(); NULL when out of
 * memory. */
void *ctf_arena_alloc(struct ctf_arena *arena, size_t size);
char *ctf_arena_strdup(struct ctf_arena *arena, const char *text);
char *ctf_arena_strndup(struct ctf_arena *arena, const char *text, size_t length);
/* A copy of `count` items of `item_size` bytes with room for `capacity` of them. */
void *ctf_arena_grow(struct ctf_arena *arena, const void *items, size_t count,
                     size_t capacity, size_t item_size);
void ctf_arena_free(struct ctf_arena *arena);

/* ---- Errors (ctf_error.c) ------------------------------------------------------------- */

/* Sets the message (error may be NULL) and returns `status`, for `return ctf_fail(...)`. */
enum ctf_status ctf_fail(struct ctf_error *error, enum ctf_status status,
                         const char *format, ...) __attribute__((format(printf, 3, 4)));
/* Puts "<prefix>: " in front of the message already set. */
void ctf_error_prefix(struct ctf_error *error, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- Metadata text (ctf_metadata_file.c) --------------------------------------------- */

/* Reads a metadata file, plain TSDL text or packetized (magic 0x75d11d57), into one
 * NUL-terminated text (malloc'd, caller frees). */
enum ctf_status ctf_metadata_file_read(const char *path, char **text, size_t *length,
                                       struct ctf_error *error);

/* ---- Lexer (ctf_lexer.c) --------------------------------------------------------------- */

enum ctf_token_kind {
  CTF_TOKEN_END,
  CTF_TOKEN_IDENTIFIER,
  CTF_TOKEN_INTEGER,
  CTF_TOKEN_STRING,
  CTF_TOKEN_PUNCT,       /* text holds it: { } [ ] ( ) < > ; , = . := ... - + : * */
};

struct ctf_token {
  enum ctf_token_kind kind;
  const char *text;      /* identifier, unescaped string, or punctuation (arena) */
  uint64_t integer;      /* for CTF_TOKEN_INTEGER */
  uint32_t line, column; /* 1-based */
};

struct ctf_token_list {
  struct ctf_token *tokens;   /* owned (free()); ends with a CTF_TOKEN_END */
  size_t count;
};

/* A metadata diagnostic: "file:line:col: error: message", then the source line of
 * `text` and a caret under the column. */
enum ctf_status ctf_metadata_fail(struct ctf_error *error, const char *file, const char *text,
                                  uint32_t line, uint32_t column, const char *format, ...)
    __attribute__((format(printf, 6, 7)));

/* Splits TSDL text into tokens; errors are "file:line:col: error: ..." for `file`. */
enum ctf_status ctf_lex(struct ctf_arena *arena, const char *file, const char *text,
                        struct ctf_token_list *tokens, struct ctf_error *error);

/* ---- Metadata model (ctf_parse*.c) --------------------------------------------------------- */

/* Private halves of the public classes: the public struct comes first so that a
 * pointer to one is a pointer to the other. */
struct ctf_plan;

struct ctf_stream_class_private {
  struct ctf_stream_class pub;
  const struct ctf_plan *packet_context_plan;  /* NULL when no packet context */
  const struct ctf_plan *event_header_plan;
  const struct ctf_plan *event_context_plan;
  size_t register_count;        /* registers any event of this class needs */
  size_t event_context_capacity; /* largest event.context field count of its events */
  /* Event classes by id: a dense table when ids are small, else sorted for search. */
  struct ctf_event_class_private **events_by_id;
  size_t events_by_id_count;
  bool events_sorted;           /* events_by_id is sorted by id (bsearch) */
  /* Filled while parsing. */
  bool has_id;
};

struct ctf_event_class_private {
  struct ctf_event_class pub;
  const struct ctf_plan *context_plan;   /* NULL when no event.context */
  const struct ctf_plan *payload_plan;   /* NULL when no event.fields */
  /* Filled while parsing. */
  bool has_id, has_stream_id;
  uint64_t stream_id;
};

struct ctf_metadata {
  struct ctf_arena *arena;      /* borrowed: the sub-trace's */
  const char *file;             /* for messages */
  bool has_trace_block;
  bool has_byte_order;
  uint32_t major, minor;
  bool has_uuid;
  uint8_t uuid[16];
  enum ctf_byte_order byte_order;
  const struct ctf_type *packet_header;
  struct ctf_env_entry *env;
  size_t env_count, env_capacity;
  struct ctf_clock_class *clocks;
  size_t clock_count, clock_capacity;
  struct ctf_stream_class_private **stream_classes;
  size_t stream_class_count, stream_class_capacity;
  struct ctf_event_class_private **event_classes;
  size_t event_class_count, event_class_capacity;
  /* Every integer and float created, to resolve what only the whole text tells:
   * `byte_order = native` (the trace's order) and `map = clock.NAME.value`. */
  struct ctf_type_note *type_notes;
  size_t type_note_count, type_note_capacity;
};

struct ctf_type_note {
  struct ctf_type *type;
  bool native_byte_order;
  const char *clock_name;   /* NULL when not mapped */
  uint32_t line, column;    /* of the `map` attribute */
};

/* Parses TSDL text into `metadata` (whose arena and file are set by the caller). */
enum ctf_status ctf_parse_metadata(struct ctf_metadata *metadata, const char *text,
                                   struct ctf_error *error);

/* ---- Plans (ctf_plan.c) and their execution (ctf_exec.c) ---------------------------------- */

enum ctf_op_kind {
  CTF_OP_INT_BYTES,   /* byte-aligned integer of 8, 16, 32 or 64 bits */
  CTF_OP_INT_BITS,    /* any integer: arbitrary size and bit position */
  CTF_OP_FLOAT,       /* 32 or 64 bits */
  CTF_OP_STRING,
  CTF_OP_BLOB,        /* array or sequence of fixed-size elements: one bounds check */
  CTF_OP_LOOP,        /* array or sequence of variable-size elements: body per element */
  CTF_OP_STRUCT,      /* aligns; its members follow as ordinary ops */
  CTF_OP_VARIANT,     /* runs the body of the option its tag selects */
  CTF_OP_LTTNG_HEADER,   /* a whole LTTng compact or large event header, fused */
};

enum ctf_op_flag {
  CTF_OPF_SIGNED = 1 << 0,
  CTF_OPF_BIG_ENDIAN = 1 << 1,
  CTF_OPF_CLOCK = 1 << 2,       /* the value updates the stream's clock (N-bit extension) */
  CTF_OPF_EVENT_ID = 1 << 3,    /* the value is (part of) the event class id */
  CTF_OPF_COUNT_IN_REGISTER = 1 << 4,   /* sequences: count comes from a register */
  CTF_OPF_TEXT = 1 << 5,
};

struct ctf_op {
  uint8_t kind;
  uint8_t flags;
  uint32_t alignment;   /* bits, a power of two */
  uint32_t size;        /* bits: integers and floats; element stride of a BLOB */
  int32_t slot;         /* value slot for a top-level field, -1 for nested ones */
  uint32_t reg;         /* register an integer writes, or a count/tag is read from */
  uint32_t next;        /* LOOP, VARIANT, STRUCT: index of the op after the body */
  uint64_t count;       /* BLOB, LOOP: static element count; VARIANT: range count */
  uint32_t first;       /* VARIANT: first entry of its ranges */
  uint32_t element_size;   /* BLOB: bits of one element (stride may add padding) */
  uint64_t offset;      /* flat plans: bit offset from the scope start */
  const struct ctf_type *type;
};

/* Values of a variant's tag that select one option's ops [begin, end). */
struct ctf_variant_range {
  uint64_t lower, upper;
  uint32_t option;
  uint32_t begin, end;
};

struct ctf_plan {
  const struct ctf_op *ops;
  uint32_t op_count;
  const struct ctf_variant_range *ranges;
  const struct ctf_type *type;        /* the scope's struct */
  size_t field_count;                 /* top-level fields: value slots */
  const int64_t *field_offsets;       /* static bit offset from the scope start, or -1 */
  int64_t fixed_size;                 /* bits when the whole scope has a fixed size, -1 */
  uint32_t alignment;
  bool needs_walk;                    /* skipping must run the ops (registers, clock) */
  /* Every op is a top-level fixed-size field at a static offset: one bounds check for
   * the whole scope, no alignment work per field. */
  bool flat;
};

/* Compiles every scope of a parsed metadata into plans and id tables. */
enum ctf_status ctf_plan_compile_metadata(struct ctf_metadata *metadata,
                                          const struct ctf_plan **packet_header_plan,
                                          size_t *packet_header_registers,
                                          struct ctf_error *error);

struct ctf_exec {
  const uint8_t *data;        /* packet start: alignments are relative to it */
  uint64_t position;          /* bits from data */
  uint64_t end;               /* bits: nothing at or past it is read */
  uint64_t *registers;
  struct ctf_value *values;   /* NULL: walk only (registers, clock, position) */
  uint64_t clock;             /* current clock value of the stream */
  uint64_t event_id;
  const char *failure;        /* what went wrong, when a run fails */
  /* Added to the address of a string's first byte in data: where the string lies in the
   * mapped file, which outlives data (a cursor's window, ctf_cursor.c). 0: data is the
   * mapping. */
  uintptr_t persist;
};

/* Runs ops [begin, end) of a plan; CTF_ERR_DATA with x->failure and x->position at
 * the field that does not fit or is invalid. */
enum ctf_status ctf_exec_run(const struct ctf_plan *plan, uint32_t begin, uint32_t end,
                             struct ctf_exec *x);

/* Runs a whole scope: alignment, then either a fixed-size skip (walk-only with nothing
 * to record) or its ops. */
enum ctf_status ctf_exec_scope(const struct ctf_plan *plan, struct ctf_exec *x);
/* An event header scope: ctf_exec_scope(), LTTng's fused headers read directly. */
enum ctf_status ctf_exec_event_header(const struct ctf_plan *plan, struct ctf_exec *x);

/* Decodes one scalar (integer, enum, float) of `type` at a bit position. The caller
 * has checked that it fits. */
void ctf_exec_read_scalar(const struct ctf_type *type, const uint8_t *data,
                          uint64_t position, struct ctf_value *value);

/* The value of an N-bit clock field, given the previous full clock value. */
static inline uint64_t ctf_clock_extend(uint64_t previous, uint64_t value, uint32_t bits) {
  if (bits >= 64)
    return value;
  uint64_t mask = (UINT64_C(1) << bits) - 1;
  uint64_t extended = (previous & ~mask) | value;
  if (value < (previous & mask))
    extended += mask + 1;   /* the low bits wrapped since the previous value */
  return extended;
}

/* ---- Trace internals (ctf_trace.c) used by cursors --------------------------------------- */

struct ctf_subtrace_private {
  struct ctf_subtrace pub;
  struct ctf_arena arena;
  struct ctf_metadata metadata;
  const struct ctf_plan *packet_header_plan;   /* NULL when no packet header */
  size_t packet_header_registers;
  size_t register_count;     /* most registers any stream class needs */
};

const struct ctf_stream_class_private *ctf_subtrace_stream_class(
    const struct ctf_subtrace_private *subtrace, uint64_t id);
const struct ctf_event_class_private *ctf_stream_class_event(
    const struct ctf_stream_class_private *stream_class, uint64_t id);

#endif /* TRACER_CTF_INTERNAL_H */
