/* tracer_record: the record, what the interposers write of every call and the analyses
 * read back (docs/trace-format.md). Both include this header; nothing else states it.
 *
 * In default and full modes every call is one event, written when it returns, whose first
 * field is `record`, an array of 64-bit slots: the head, then one slot per value the
 * generated code names in the function's record struct (<backend>_args.h: the arguments
 * as passed, the result, the values out-params point to, the slots trace.messages adds),
 * whose order and meaning the backend's event description gives (struct tracer_slot,
 * tracer_backend_desc.h).
 *
 * Minimal mode keeps three slots of a call, start, end and call, and writes a thread's
 * calls of a backend in batches (tracer_call_batch.h): the event's `calls` sequence is the
 * thread's ids, then TRACER_BATCH_CALL_SLOTS per call.
 */
#ifndef TRACER_RECORD_H
#define TRACER_RECORD_H

#include <stdbool.h>
#include <stdint.h>

/* The head of every record, the same in every mode. */
struct tracer_record_head {
  uint64_t start; /* the trace clock read right before the real call... */
  uint64_t end;   /* ...and right after it, so that the tracer's own work is in neither */
  uint64_t ids;   /* pid << 32 | tid */
  uint64_t call;  /* function << 48 | depth << 32 | the status's low 32 bits, where depth
                     counts the traced calls the thread was already in (0: called by the
                     app itself), its top bit set when the call it was made in is of
                     another backend (TRACER_RECORD_INSIDE_OTHER), and function is the
                     index in the backend's table */
};

enum {
  TRACER_RECORD_START,
  TRACER_RECORD_END,
  TRACER_RECORD_IDS,
  TRACER_RECORD_CALL,
  TRACER_RECORD_HEAD,          /* slots in the head: a function's own slots follow */
  TRACER_BATCH_CALL_SLOTS = 3, /* per call in a batch: start, end and call */
};

/* The depth's top bit: the call was made inside a traced call of another backend, by
 * that call's library for its own ends (hwloc's OpenCL probe inside MPI_Init, the CUDA
 * runtime's driver calls), not by the app: the reports show it under that call, and leave
 * it out of the app's own tables unless asked (tracer --runtime-calls). */
#define TRACER_RECORD_INSIDE_OTHER 0x8000u
#define TRACER_RECORD_DEPTH_MASK 0x7fffu

_Static_assert(sizeof(struct tracer_record_head) == TRACER_RECORD_HEAD * sizeof(uint64_t),
               "the head is the first four slots");

/* The slots of a record struct: a head and uint64_t members, so no padding. */
#define TRACER_RECORD_SLOTS(type) (sizeof(type) / sizeof(uint64_t))

static inline uint64_t tracer_record_pack_ids(int64_t pid, int64_t tid) {
  return (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
}

/* depth as tracer_inflight_push() gives it: with TRACER_RECORD_INSIDE_OTHER when set. */
static inline uint64_t tracer_record_call(unsigned function, unsigned depth, int64_t status) {
  return (uint64_t)function << 48 | (uint64_t)(depth & 0xffff) << 32 | (uint32_t)status;
}

/* A call that submits device work keeps its stack's id in a slot of its record (the
 * function's stack_slot, tracer_backend_desc.h); the stack itself is written once per
 * process (lttng_ust_tracer:stack, runtime/stacks/tracer_stacks.h), its flags: */
enum tracer_stack_flags {
  TRACER_STACK_NATIVE_TRUNCATED = 1u << 0, /* more native frames than the depth limit */
  TRACER_STACK_PYTHON_TRUNCATED = 1u << 1, /* more Python frames than the limit */
  TRACER_STACK_PYTHON = 1u << 2,           /* the thread ran Python code: the native frames
                                              stop where the interpreter called them */
};

static inline int64_t tracer_record_pid(uint64_t ids) { return (int64_t)(ids >> 32); }
static inline int64_t tracer_record_tid(uint64_t ids) { return (int64_t)(uint32_t)ids; }
static inline unsigned tracer_record_function(uint64_t call) { return (unsigned)(call >> 48); }
static inline unsigned tracer_record_depth(uint64_t call) {
  return (unsigned)(call >> 32) & TRACER_RECORD_DEPTH_MASK;
}
static inline bool tracer_record_inside_other(uint64_t call) {
  return (call >> 32) & TRACER_RECORD_INSIDE_OTHER;
}
/* The status as recorded: its low 32 bits, sign-extended. */
static inline int32_t tracer_record_status(uint64_t call) { return (int32_t)(uint32_t)call; }

#endif
