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
  long rank; /* in a job's report, the rank whose sampler read it; else -1 */
  struct samples_counter *counters;
  size_t counter_count;
};

struct samples_report {
  struct samples_device *devices;
  size_t device_count;
  /* "BACKEND: why", one per library the sampler could not use; in a job's report
   * "rank R: BACKEND: why" */
  char **unavailable;
  size_t unavailable_count;
};

/* A consumer filling s (owned; samples_close() frees it). */
int samples_open(struct samples **s, struct trace_consumer *consumer, struct diag *d);
/* The report of what was read: per device and counter, in the order first read (the
 * sampler reads the specs' counters in their order). Frees s. */
int samples_close(struct samples *s, struct samples_report *report, struct diag *d);
void samples_print_text(const struct samples_report *report, FILE *out);
/* The report as a JSON object (docs/analysis-output.md's "samples"). */
void samples_print_json(const struct samples_report *report, FILE *out);
void samples_free(struct samples_report *report);

/* samples_merge.c: a report built outside a read (an MPI job's, cli/job/). Each add
 * copies its strings and returns the new entry (pointers to earlier ones may move), or
 * NULL (-1) when out of memory. A counter's figures are the caller's to set. */
struct samples_device *samples_add_device(struct samples_report *report, const char *backend,
                                          uint32_t index, const char *name, long rank);
struct samples_counter *samples_add_counter(struct samples_device *device, const char *name,
                                            const char *unit);
int samples_add_unavailable(struct samples_report *report, const char *why);
/* Appends copies of from's devices and reasons to into. rank >= 0: they are that rank's
 * (its devices' rank, its reasons "rank R: ..."); -1: as they are. Returns 0, or -1 when
 * out of memory. */
int samples_append(struct samples_report *into, const struct samples_report *from, long rank);
/* Devices by rank, library and index; reasons in text order (a file's order whatever
 * order the ranks merged in). */
void samples_sort(struct samples_report *report);

#endif
