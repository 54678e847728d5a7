/* tracer_call_batch: minimal mode's calls, written in batches.
 *
 * Minimal mode keeps of a call its start, end, function, depth and status: three slots.
 * An LTTng event costs about 100 ns whatever it carries (reserving ring-buffer space,
 * the header's clock read, committing), so rather than one event per call, each thread
 * keeps the calls of each backend in a batch of up to TRACER_BATCH_CALLS, written as one
 * `lttng_ust_<backend>:call` event whose `calls` sequence is the thread's ids, then
 * start, end and call word of each call (docs/trace-format.md). A batch is written when
 * it fills, when its thread ends, when the process exits (from the backend's destructor)
 * or dies of a fatal signal (with the calls in flight); a fork child starts with empty
 * batches. What a batch holds is lost only when nothing in the process can run any more:
 * SIGKILL, or an exec, loses up to TRACER_BATCH_CALLS - 1 calls per thread and backend.
 *
 * Default and full modes still write one event per call: their records carry the
 * arguments, which vary in size.
 */
#ifndef TRACER_CALL_BATCH_H
#define TRACER_CALL_BATCH_H

#include <stdint.h>

#include "tracer_record.h"

enum {
  TRACER_BATCH_CALLS = 32,   /* calls per event: the event's fixed cost over 32 calls */
  TRACER_BATCH_BACKENDS = 8, /* backends one process can batch; more write per call */
};

/* Writes one batch event of `count` slots: the thread's ids, then three per call. Each
 * backend has one, next to its tracepoint provider (templates/tracepoints.c.tmpl). */
typedef void tracer_batch_writer(const uint64_t *slots, unsigned count);

/* One thread's calls of one backend, not written yet. slots[0] is filled with the
 * thread's ids when the batch is written. Only the owner thread appends. */
struct tracer_call_batch {
  volatile unsigned count;
  uint64_t slots[1 + TRACER_BATCH_CALL_SLOTS * TRACER_BATCH_CALLS];
};

/* A backend's index among the batched ones (its batch in every thread), or -1 when
 * TRACER_BATCH_BACKENDS are already taken: that backend then writes an event per call. */
int tracer_batch_register(const char *backend, tracer_batch_writer *write);

struct tracer_thread_calls;
/* Writes the thread's batch of backend `index`, if it holds calls, and empties it. Safe
 * in a signal handler (tracepoints are). */
void tracer_batch_write(struct tracer_thread_calls *t, int index);
/* Writes every batch of the thread. */
void tracer_batch_write_all(struct tracer_thread_calls *t);
/* Writes the batch of backend `index` of every thread: from the backend's destructor,
 * since the runtime's own runs after the backends' providers have unregistered their
 * probes (a library's destructors run before those of the libraries it needs). */
void tracer_batch_write_everywhere(int index);

#endif
