/* tracer_limit: the limit file, through which the tracer and the traced processes agree
 * on when the trace has reached its bound (tracer --max-size, or the file system filling
 * up). The tracer creates it in the trace folder and names it in TRACER_LIMIT_FILE; every
 * traced process maps it, shared, when its runtime loads (runtime/tracer_recording.c).
 *
 * Two ways to reach the bound, both ending the same way (`limited` non-zero: calls are
 * counted from then on, not recorded):
 * - the tracer's watch sees the trace folder near the bound and writes `limited`
 *   (cli/control/trace_budget.c);
 * The file also gathers, for the run record, the least clock read cost of the processes.
 *
 * - the processes spend a budget of recorded calls that the tracer set at the start,
 *   from the bound and the mode's bytes per call; the process that spends the last of it
 *   writes `limited` and the time. This one needs no scheduling of the tracer's watch: a
 *   busy machine can leave the watch unscheduled for the time the app takes to write
 *   megabytes.
 */
#ifndef TRACER_LIMIT_H
#define TRACER_LIMIT_H

#include <stdint.h>

enum tracer_limited_by {
  TRACER_NOT_LIMITED = 0,
  TRACER_LIMITED_BY_WATCH = 1, /* the tracer saw the folder near the bound */
  TRACER_LIMITED_BY_CALLS = 2, /* the processes spent the call budget */
};

struct tracer_limit_file {
  int32_t limited;         /* enum tracer_limited_by; first, read as an int by the wrappers */
  uint32_t unused;
  uint64_t call_budget;    /* recorded calls of all processes before they count (0: none) */
  uint64_t calls_spent;    /* added to by the processes, TRACER_LIMIT_SPEND_BATCH at a time */
  uint64_t limited_at_ns;  /* CLOCK_MONOTONIC when a process spent the budget */
  /* The least clock read cost (trace clock units) the processes measured, 0 until one
   * did: the readers take it off every call's end from the first call on, whatever order
   * they read the streams in (the clock_read events lie in one stream each). */
  uint64_t clock_read_least;
};

/* A thread adds its recorded calls to calls_spent this many at a time: one atomic add on
 * the shared page per batch, not per call. What the threads hold unspent (at most a batch
 * each) is the budget's error. */
enum { TRACER_LIMIT_SPEND_BATCH = 256 };

#endif
