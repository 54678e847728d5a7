/* tracer_calibration: what tracing costs, measured inside a traced process, so that every
 * report can say how much of the run the tracer itself took (docs/trace-format.md).
 *
 * The tracer asks for the calibration (TRACER_CALIBRATE=1) when its cache has none for
 * this machine and clock; the first traced process runs it once, before the app's main.
 * It calls an empty function the way the generated interposers call the real one (the
 * in-flight stack, two clock reads, a record filled, one event written) against the
 * same loop calling it bare, with records of two sizes, and the way minimal mode does
 * (into a batch, tracer_call_batch.h), the median of several rounds after one that warms
 * up. Enough events pass to fill sub-buffers, so that their switches are
 * in the cost: some 400 ms and 40 MB of trace in a session of its own, once per machine
 * and clock (shorter runs moved by +-25% between runs on a KVM guest).
 */
#include "tracer_tracepoints.h"

#include <stdlib.h>

#include "tracer_calibration.h"
#include "tracer_runtime.h"

enum { SAMPLES = 50000, ROUNDS = 7, SMALL = 4, LARGE = 20 };

/* What the calibration calls in place of an API function: nothing, out of line. */
static void __attribute__((noinline)) empty_call(void) { __asm__ volatile(""); }
static void (*volatile real_call)(void) = empty_call;

static int compare_u64(const void *a, const void *b);

/* The median of 255 differences between two reads in a row: what one read adds to a
 * span as a call's span holds it. The least would be a read in the best case (on a
 * KVM guest's TSC, 10 ns under the typical one), and take too little off every call. */
uint64_t tracer_clock_read_cost(void) {
  enum { PAIRS = 255 };
  uint64_t differences[PAIRS];
  for (int i = 0; i < PAIRS; i++) {
    uint64_t a = tracer_now();
    uint64_t b = tracer_now();
    differences[i] = b - a;
  }
  qsort(differences, PAIRS, sizeof *differences, compare_u64);
  return differences[PAIRS / 2];
}

static uint64_t ns_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (uint64_t)(t1.tv_sec - t0->tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec -
         (uint64_t)t0->tv_nsec;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Minimal mode's batches, written as the calibration's own events. */
static void write_calibration_batch(const uint64_t *slots, unsigned count) {
  lttng_ust_tracepoint(lttng_ust_tracer, calibration_sample, slots, count);
}
static int calibration_batch = -1;

/* The median time of ROUNDS rounds of SAMPLES calls, traced as an interposer traces them
 * with a record of `count` slots (0: into a batch, as minimal mode does), or bare, after
 * one round that is not counted (it pays for first touches of the buffers' pages and
 * caches). */
static uint64_t loop_ns(unsigned count, bool traced) {
  uint64_t rounds[ROUNDS + 1];
  uint64_t slots[LARGE];
  for (int round = 0; round <= ROUNDS; round++) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned i = 0; i < SAMPLES; i++) {
      if (!traced) {
        real_call();
        continue;
      }
      if (count == 0) {
        unsigned depth = tracer_inflight_push("calibration", 0);
        uint64_t start = tracer_now();
        tracer_inflight_started(depth, start);
        real_call();
        uint64_t end = tracer_now();
        tracer_inflight_pop();
        tracer_batch_call(calibration_batch, write_calibration_batch, start, end,
                          tracer_record_call(0, depth, 0));
        continue;
      }
      for (unsigned k = 4; k < count; k++)
        slots[k] = i + k;
      unsigned depth = tracer_inflight_push("calibration", 0);
      slots[0] = tracer_now();
      tracer_inflight_started(depth, slots[0]);
      real_call();
      slots[1] = tracer_now();
      tracer_inflight_pop();
      slots[2] = tracer_record_ids();
      slots[3] = tracer_record_call(0, depth, 0);
      lttng_ust_tracepoint(lttng_ust_tracer, calibration_sample, slots, count);
    }
    rounds[round] = ns_since(&t0);
  }
  qsort(rounds + 1, ROUNDS, sizeof *rounds, compare_u64);
  return rounds[1 + ROUNDS / 2];
}

void tracer_calibrate_if_asked(void) {
  const char *asked = getenv("TRACER_CALIBRATE");
  if (!asked || *asked != '1' ||
      !lttng_ust_tracepoint_enabled(lttng_ust_tracer, calibration_sample))
    return;
  unsetenv("TRACER_CALIBRATE"); /* once per run, not in every child */
  double bare = (double)loop_ns(SMALL, false);
  double small = ((double)loop_ns(SMALL, true) - bare) / SAMPLES;
  double large = ((double)loop_ns(LARGE, true) - bare) / SAMPLES;
  double per_byte = (large - small) / ((LARGE - SMALL) * sizeof(uint64_t));
  if (small <= 0)
    return;
  if (per_byte < 0)
    per_byte = 0;
  /* The fixed cost of an event with no payload: a record head less its 32 bytes. */
  double fixed = small - per_byte * SMALL * sizeof(uint64_t);
  if (fixed < 0)
    fixed = 0;
  /* A batched call, its share of the batch's event included: a batch is one large event,
   * whose bytes cost less each than a call's own event's. */
  calibration_batch = tracer_batch_register("calibration", write_calibration_batch);
  double call = ((double)loop_ns(0, true) - bare) / SAMPLES;
  lttng_ust_tracepoint(lttng_ust_tracer, calibration, tracer_pid(), tracer_tid(),
                       (uint64_t)(fixed * 1000), (uint64_t)(per_byte * 1000),
                       (uint64_t)(call > 0 ? call * 1000 : 0));
  tracer_debug("calibration: %.1f ns an event, %.3f ns a byte, %.1f ns a batched call", fixed,
               per_byte, call);
}
