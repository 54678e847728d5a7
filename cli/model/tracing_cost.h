/* tracing_cost: what recording costs on a machine, and what it cost a run.
 *
 * The per-event cost is measured inside a traced process (runtime/tracer_calibration.c)
 * once per machine and trace clock, then cached in $XDG_CACHE_HOME/tracer/calibration
 * (default ~/.cache), one line per host and clock: "HOST CLOCK EVENT_PS BYTE_PS CALL_PS".
 * A run's cost is its events times the fixed cost plus its payload bytes times the byte
 * cost; in minimal mode, whose calls are written in batches, each batched call costs
 * call_ps (its clock reads, bookkeeping and share of the batch's event), and the batch
 * events and their calls' slots are left out of the events and bytes.
 */
#ifndef TRACER_TRACING_COST_H
#define TRACER_TRACING_COST_H

#include <stdbool.h>
#include <stdint.h>

struct tracing_cost {
  uint64_t event_ps; /* picoseconds per event, its payload aside */
  uint64_t byte_ps;  /* picoseconds per payload byte */
  uint64_t call_ps;  /* picoseconds per call of a minimal-mode batch, its event's share in */
};

/* The cached cost for this host and clock ("tsc", "monotonic"); false if none. */
bool tracing_cost_cached(const char *clock, struct tracing_cost *cost);

/* Stores it for this host and clock, replacing an older line. Returns 0 or -1. */
int tracing_cost_save(const char *clock, const struct tracing_cost *cost);

/* Takes this host's calibration lock (a file beside the cache), waiting for a holder:
 * the ranks of a node that start on a fresh machine measure once, not each at once.
 * Returns the lock's descriptor for tracing_cost_unlock, or -1 when there is no cache
 * folder (then nothing is shared and nothing needs a lock). */
int tracing_cost_lock(void);
void tracing_cost_unlock(int lock);

/* What a run's recording cost. */
struct tracing_load {
  uint64_t events, bytes;     /* every event, and the trace's size */
  uint64_t batch_events;      /* of the events, minimal mode's batches */
  uint64_t batched_calls;     /* the calls in them */
};

/* The time, in ns, that recording `load` took. */
uint64_t tracing_cost_ns(const struct tracing_cost *cost, const struct tracing_load *load);

#endif
