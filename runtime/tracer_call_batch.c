/* Minimal mode's batches of calls (tracer_call_batch.h): the backends that batch, and
 * writing a thread's batches. Appending is inline, in tracer_runtime.h
 * (tracer_batch_call), since every traced call of minimal mode does it. */
#include "tracer_call_batch.h"

#include "tracer_runtime.h"

static tracer_batch_writer *batch_writers[TRACER_BATCH_BACKENDS];
static int batch_backend_count;

int tracer_batch_register(const char *backend, tracer_batch_writer *write) {
  int index = __atomic_fetch_add(&batch_backend_count, 1, __ATOMIC_ACQ_REL);
  if (index >= TRACER_BATCH_BACKENDS) {
    tracer_debug("%s: more than %d backends batch their calls: one event per call",
                 backend, TRACER_BATCH_BACKENDS);
    return -1;
  }
  __atomic_store_n(&batch_writers[index], write, __ATOMIC_RELEASE);
  return index;
}

/* The event is written before the batch is emptied, so that a writer racing this one
 * (the exit path against the thread's own end) may repeat calls but never write a
 * record the owner is still filling. */
void tracer_batch_write(struct tracer_thread_calls *t, int index) {
  if (index < 0 || index >= TRACER_BATCH_BACKENDS)
    return;
  struct tracer_call_batch *b = &t->batches[index];
  unsigned n = b->count;
  tracer_batch_writer *write = __atomic_load_n(&batch_writers[index], __ATOMIC_ACQUIRE);
  if (!n || !write)
    return;
  if (n > TRACER_BATCH_CALLS)
    n = TRACER_BATCH_CALLS;
  b->slots[0] = (uint64_t)(uint32_t)tracer_pid() << 32 | (uint32_t)t->tid;
  write(b->slots, 1 + TRACER_BATCH_CALL_SLOTS * n);
  b->count = 0;
}

void tracer_batch_write_all(struct tracer_thread_calls *t) {
  for (int i = 0; i < TRACER_BATCH_BACKENDS; i++)
    tracer_batch_write(t, i);
}
