/* tracer_clock_plugin: an LTTng-UST clock plugin that stamps events with the CPU's
 * time-stamp counter instead of CLOCK_MONOTONIC.
 *
 * Why: reading CLOCK_MONOTONIC through the vDSO costs about 25 ns here, a plain RDTSC
 * about 10 ns, and a traced call reads the clock twice (LTTng for the event, the tracer
 * for the call's start). When the kernel itself keeps time with the TSC (its clocksource
 * is "tsc", which it only keeps while the counters of all CPUs agree) and the TSC is
 * invariant, the counter is a clock every process of the machine shares.
 *
 * LTTng-UST loads the library named by LTTNG_UST_CLOCK_PLUGIN and calls
 * lttng_ust_clock_plugin_init(). The session daemon must load the same plugin: it writes
 * the clock's name, frequency and offset into the trace metadata (the tracer arranges
 * both, cli/control/session.c). Elsewhere the plugin leaves LTTng's clock alone, so the daemon
 * and its apps still agree.
 *
 * The frequency, which only the session daemon asks for, is measured against
 * CLOCK_MONOTONIC_RAW over 20 ms the first time it is needed. This library depends on
 * liblttng-ust-common alone: the session daemon loads it too.
 */
#define _GNU_SOURCE
#include "tracer_clock.h"

#include <lttng/ust-clock.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

/* A plain RDTSC, 10 ns here; the kernel's vDSO fences it (LFENCE; RDTSC: 20 ns) so that a
 * time is never read ahead of the loads before it. LTTng's ring buffer orders events by
 * its compare-and-swap on the buffer offset, read before the clock: an unfenced read can
 * be early by the out-of-order window only (tens of ns), which matters only when two CPUs
 * write one per-CPU buffer within it (a thread that migrated mid-event, the consumer's
 * flush); the event then gets a full timestamp a few ns before its predecessor's. The
 * same trade as the TSC timers of other HPC tools (Score-P's, for one). */
static uint64_t read_counter(void) {
  return __rdtsc();
}

/* For calibration, where the order matters and the cost does not. */
static uint64_t read_ordered(void) {
  _mm_lfence();
  return __rdtsc();
}

/* Of a few tries, the one whose raw clock read was bracketed most tightly by two TSC
 * reads, taken at the middle of the bracket. */
void tracer_clock_tsc_pair(uint64_t *tsc, uint64_t *raw_ns) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 16; i++) {
    struct timespec ts;
    uint64_t before = read_ordered();
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    uint64_t after = read_ordered();
    if (after - before < best) {
      best = after - before;
      *tsc = before + (after - before) / 2;
      *raw_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    }
  }
}

static uint64_t measured_frequency;
static pthread_once_t measure_once = PTHREAD_ONCE_INIT;

/* 20 ms between two pairs each known to ~10 ns: the frequency to about one part in a
 * million (a microsecond per second of trace, in absolute times only). */
static void measure_frequency(void) {
  uint64_t tsc0, raw0, tsc1, raw1;
  tracer_clock_tsc_pair(&tsc0, &raw0);
  struct timespec pause = {0, 20 * 1000 * 1000};
  while (nanosleep(&pause, &pause) != 0)
    ;
  tracer_clock_tsc_pair(&tsc1, &raw1);
  measured_frequency =
      (uint64_t)((double)(tsc1 - tsc0) * 1e9 / (double)(raw1 - raw0) + 0.5);
}

static uint64_t frequency(void) {
  pthread_once(&measure_once, measure_frequency);
  return measured_frequency;
}

/* Traces of one boot share the counter: derive the uuid from the boot id, changed so that
 * it never equals the boot-id uuid of LTTng's monotonic clock, a different clock. */
static int uuid(char *out) {
  FILE *file = fopen("/proc/sys/kernel/random/boot_id", "re");
  if (!file)
    return -1;
  char boot[LTTNG_UST_UUID_STR_LEN] = "";
  bool ok = fgets(boot, sizeof boot, file) != NULL && strlen(boot) >= 36;
  fclose(file);
  if (!ok)
    return -1;
  boot[36] = '\0';
  memcpy(out, boot, LTTNG_UST_UUID_STR_LEN);
  /* "ts" in hex at the head of the last group, unless the boot id had it there already. */
  memcpy(out + 24, memcmp(boot + 24, "7473", 4) == 0 ? "7374" : "7473", 4);
  return 0;
}

static const char *name(void) {
  return TRACER_CLOCK_TSC_NAME;
}

static const char *description(void) {
  return "TSC (x86 time-stamp counter, invariant, the kernel's clocksource), frequency "
         "measured against CLOCK_MONOTONIC_RAW";
}

void lttng_ust_clock_plugin_init(void);
void lttng_ust_clock_plugin_init(void) {
  if (!tracer_clock_tsc_usable(NULL))
    return; /* LTTng keeps CLOCK_MONOTONIC, in the daemon and its apps alike */
  if (lttng_ust_trace_clock_set_read64_cb(read_counter) != 0 ||
      lttng_ust_trace_clock_set_freq_cb(frequency) != 0 ||
      lttng_ust_trace_clock_set_uuid_cb(uuid) != 0 ||
      lttng_ust_trace_clock_set_name_cb(name) != 0 ||
      lttng_ust_trace_clock_set_description_cb(description) != 0)
    return;
  lttng_ust_enable_trace_clock_override();
}

#else

void tracer_clock_tsc_pair(uint64_t *tsc, uint64_t *raw_ns) {
  *tsc = *raw_ns = 0; /* never called: the TSC is never the trace clock here */
}

void lttng_ust_clock_plugin_init(void);
void lttng_ust_clock_plugin_init(void) {
  /* No counter known to be shared by all CPUs here: LTTng keeps CLOCK_MONOTONIC. */
}

#endif
