/* samples: the device counters `tracer --sample` recorded (lttng_ust_sampler events),
 * reduced per device and counter to the least, mean and most reading, the peak of the
 * memory used and when, and the energy (power integrated over time).
 *
 * A consumer of the reader that keeps every reading (a few per period and device) and
 * works the figures out at the end, in time order. Everything here is owned by the
 * struct samples_report; samples_free() releases it.
 */
#ifndef TRACER_SAMPLES_H
#define TRACER_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "trace_consumer.h"

struct samples;

/* One counter of one device over the run. */
struct samples_counter {
  char *name, *unit;
  size_t readings;
  double least, mean, most;
  uint64_t most_at;     /* wall-clock ns of the first reading at `most` */
  uint64_t first, last; /* wall-clock ns of its first and last reading */
  bool energy;          /* a power (unit W): `joules` is its integral over time */
  double joules;
};

struct samples_device {
  char *backend, *name;
  uint32_t index;
  struct samples_counter *counters;
  size_t counter_count;
};

struct samples_report {
  struct samples_device *devices;
  size_t device_count;
  char **unavailable; /* "BACKEND: why", one per library the sampler could not use */
  size_t unavailable_count;
};

/* A consumer filling s (owned; samples_close() frees it). */
int samples_open(struct samples **s, struct trace_consumer *consumer, struct diag *d);
/* The report of what was read: per device and counter, in the order first read (the
 * sampler reads the specs' counters in their order). Frees s. */
int samples_close(struct samples *s, struct samples_report *report, struct diag *d);
void samples_print_text(const struct samples_report *report, FILE *out);
void samples_free(struct samples_report *report);

#endif
