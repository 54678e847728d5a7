/* Counted functions (tracer_runtime.h: struct tracer_counted): writing a thread's entries
 * as lttng_ust_tracer:counted events. The entries live in the thread's record of calls in
 * flight, so they are written on the same occasions as its unfinished calls: when the
 * thread ends, when the process exits, when it dies of a fatal signal (tracer_runtime.c). */
#include <stdlib.h>
#include <string.h>

#include "tracer_runtime.h"
#include "tracer_tracepoints.h"

bool tracer_counting = true;

__attribute__((constructor)) static void tracer_counted_init(void) {
  const char *every = getenv("TRACER_EVERY_CALL");
  tracer_counting = !(every && *every && strcmp(every, "0") != 0);
}

/* Safe in a signal handler: tracepoints are. The entry is emptied first, so that a
 * second writer (the exit path racing the thread's own end) finds nothing to write. */
void tracer_counted_write(struct tracer_thread_calls *t, struct tracer_counted *c) {
  uint64_t calls = c->calls;
  if (!calls)
    return;
  c->calls = 0;
  lttng_ust_tracepoint(lttng_ust_tracer, counted, tracer_pid(), t->tid, c->backend,
                       c->function, c->status, calls, c->total, c->min, c->max);
}

void tracer_counted_write_all(struct tracer_thread_calls *t) {
  for (unsigned i = 0; i < TRACER_COUNTED_SLOTS; i++)
    tracer_counted_write(t, &t->counted[i]);
}
