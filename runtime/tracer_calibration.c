/* tracer_calibration: what tracing costs, measured inside a traced process, so that every
 * report can say how much of the run the tracer itself took (docs/trace-format.md).
 *
 * The tracer asks for the calibration (TRACER_CALIBRATE=1) when its cache has none for
 * this machine and clock; the first traced process runs it once, before the app's main:
 * a few thousand events of two sizes against the same loop without them, the least of
 * several rounds (the machine may be busy). It costs a few milliseconds and about a
 * megabyte of trace, which the analyses skip.
 */
#include "tracer_tracepoints.h"

#include <stdlib.h>

#include "tracer_calibration.h"
#include "tracer_runtime.h"

enum { SAMPLES = 4000, ROUNDS = 5, SMALL = 4, LARGE = 20 };

uint64_t tracer_clock_read_cost(void) {
  uint64_t least = UINT64_MAX;
  for (int i = 0; i < 256; i++) {
    uint64_t a = tracer_now();
    uint64_t b = tracer_now();
    if (b - a < least)
      least = b - a;
  }
  return least;
}

static uint64_t ns_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (uint64_t)(t1.tv_sec - t0->tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec -
         (uint64_t)t0->tv_nsec;
}

/* The least time of SAMPLES records of `count` slots, with or without their event. */
static uint64_t loop_ns(unsigned count, bool record) {
  uint64_t best = UINT64_MAX;
  uint64_t slots[LARGE];
  for (int round = 0; round < ROUNDS; round++) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned i = 0; i < SAMPLES; i++) {
      slots[0] = tracer_now();
      slots[1] = tracer_now();
      slots[2] = tracer_record_ids();
      for (unsigned k = 3; k < count; k++)
        slots[k] = i + k;
      if (record)
        lttng_ust_tracepoint(lttng_ust_tracer, calibration_sample, slots, count);
      __asm__ volatile("" : : "r"(slots) : "memory");
    }
    uint64_t ns = ns_since(&t0);
    if (ns < best)
      best = ns;
  }
  return best;
}

void tracer_calibrate_if_asked(void) {
  const char *asked = getenv("TRACER_CALIBRATE");
  if (!asked || *asked != '1' ||
      !lttng_ust_tracepoint_enabled(lttng_ust_tracer, calibration_sample))
    return;
  unsetenv("TRACER_CALIBRATE"); /* once per run, not in every child */
  double bare_small = (double)loop_ns(SMALL, false), bare_large = (double)loop_ns(LARGE, false);
  double small = ((double)loop_ns(SMALL, true) - bare_small) / SAMPLES;
  double large = ((double)loop_ns(LARGE, true) - bare_large) / SAMPLES;
  double per_byte = (large - small) / ((LARGE - SMALL) * sizeof(uint64_t));
  if (small <= 0)
    return;
  if (per_byte < 0)
    per_byte = 0;
  /* The fixed cost of an event with no payload: a record head less its 32 bytes. */
  double fixed = small - per_byte * SMALL * sizeof(uint64_t);
  lttng_ust_tracepoint(lttng_ust_tracer, calibration, tracer_pid(), tracer_tid(),
                       (uint64_t)(fixed > 0 ? fixed * 1000 : 0), (uint64_t)(per_byte * 1000));
  tracer_debug("calibration: %.1f ns an event, %.3f ns a byte", fixed, per_byte);
}
