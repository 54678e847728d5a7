/* tracing_cost: what recording costs on a machine, and what it cost a run.
 *
 * The per-event cost is measured inside a traced process (runtime/tracer_calibration.c)
 * once per machine and trace clock, then cached in $XDG_CACHE_HOME/tracer/calibration
 * (default ~/.cache), one line per host and clock: "HOST CLOCK EVENT_PS BYTE_PS". A run's
 * cost is its events times the fixed cost plus its payload bytes times the byte cost.
 */
#ifndef TRACER_TRACING_COST_H
#define TRACER_TRACING_COST_H

#include <stdbool.h>
#include <stdint.h>

struct tracing_cost {
  uint64_t event_ps; /* picoseconds per event, its payload aside */
  uint64_t byte_ps;  /* picoseconds per payload byte */
};

/* The cached cost for this host and clock ("tsc", "monotonic"); false if none. */
bool tracing_cost_cached(const char *clock, struct tracing_cost *cost);

/* Stores it for this host and clock, replacing an older line. Returns 0 or -1. */
int tracing_cost_save(const char *clock, const struct tracing_cost *cost);

/* The time, in ns, that recording `events` events of `payload_bytes` bytes in all took. */
uint64_t tracing_cost_ns(const struct tracing_cost *cost, uint64_t events, uint64_t payload_bytes);

#endif
