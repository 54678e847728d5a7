/* trace_stacks: the stacks of the calls that submitted device work, as the records refer
 * to them (struct trace_call.stack, struct trace_device.stack), with their frames named.
 *
 * The runtime writes each stack once per process (lttng_ust_tracer:stack: Python frames
 * by name and line, native frames as addresses) and the loaded objects those addresses
 * lie in (lttng_ust_tracer:object); the calls' records and the device commands carry the
 * stack's id (runtime/stacks/tracer_stacks.h). The reader keeps the definitions in a
 * table of its own, filled as it decodes them, not handed out as records: a filter of the
 * records (a window of the run) never loses a stack that a record it keeps refers to.
 * Each record with a stack gets the table's entry for it; the entry's frames are named on
 * first use (native_symbols.h), after the definition was read: in a read in time order,
 * always before its first record is handed out (the runtime writes a stack before the
 * call's event); in a read stream by stream, possibly not yet, which is why a consumer that
 * adds up by stack names them at its end.
 *
 * Entries live as long as the reader; their frames, once named, do not change. Safe from
 * every thread of a read.
 */
#ifndef TRACER_TRACE_STACKS_H
#define TRACER_TRACE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum trace_frame_kind {
  TRACE_FRAME_PYTHON, /* a Python function's frame */
  TRACE_FRAME_NATIVE, /* a native function's frame */
  TRACE_FRAME_CUT,    /* frames left out by the runtime's depth limit: "..." */
};

struct trace_frame {
  uint8_t kind;         /* enum trace_frame_kind */
  const char *label;    /* as flame graphs show it: "train.py:42 forward", "cublasSgemm_v2" */
  const char *function; /* "forward" (its qualified name from Python 3.11), "cublasSgemm_v2" */
  const char *file;     /* the Python file; a native frame's source file, or "" */
  int line;             /* its line; 0 when unknown */
};

struct trace_stack;

/* A stack's frames, outermost first: its Python frames, then its native frames (from
 * the one Python's interpreter called, down to the caller of the traced call); a "..."
 * frame where the runtime's depth limit cut native frames off. 0 when the trace holds no
 * definition of the stack (yet). */
size_t trace_stack_frames(const struct trace_stack *stack, const struct trace_frame **frames);

/* The line of code that submitted the work: the innermost Python frame of the app's own
 * code (not in an installed package, Python's own library, or code Python made: a file
 * under site-packages/, dist-packages/, lib/python3.X/, or named <...>), else the
 * innermost Python frame, else the innermost native frame; NULL when the stack has no
 * frame. */
const struct trace_frame *trace_stack_source(const struct trace_stack *stack);

/* The frames' labels, outermost first, one a line (a slice's argument in the timeline);
 * "" when the stack has no frame. */
const char *trace_stack_text(const struct trace_stack *stack);

/* The stack's id, as recorded (its process's). */
uint64_t trace_stack_id(const struct trace_stack *stack);

/* ---- The reader's side ---------------------------------------------------------------- */

struct trace_stacks;

struct trace_stacks *trace_stacks_new(void);
void trace_stacks_free(struct trace_stacks *table);

/* The entry of a process's stack, made when first asked for (by the definition or by a
 * record that refers to it); NULL for id 0 or when out of memory. */
struct trace_stack *trace_stacks_get(struct trace_stacks *table, int host, int64_t pid,
                                     uint64_t id);

/* A stack's definition (lttng_ust_tracer:stack's fields). */
void trace_stacks_define(struct trace_stacks *table, int host, int64_t pid, uint64_t id,
                         const char *python, size_t python_len, const uint64_t *native,
                         size_t native_count, uint32_t flags);

/* A loaded object of a process (lttng_ust_tracer:object's fields). */
void trace_stacks_object(struct trace_stacks *table, int host, int64_t pid, const char *path,
                         size_t path_len, const uint8_t *build_id, size_t build_id_size,
                         uint64_t base, uint64_t start, uint64_t end);

#endif
