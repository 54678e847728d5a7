/* samples: the device counters over the run. See samples.h. */
#include "samples.h"

#include <stdlib.h>
#include <string.h>

/* A reading as the reader handed it, its strings interned in the series it joins. */
struct reading {
  uint64_t time;
  double value;
};

struct series {
  char *backend, *device_name, *counter, *unit;
  uint32_t device;
  struct reading *readings;
  size_t count, cap;
};

struct samples {
  struct series *series;
  size_t count, cap;
  char **unavailable;
  size_t unavailable_count;
};

static struct series *series_of(struct samples *s, const struct trace_sample *r) {
  for (size_t i = 0; i < s->count; i++) {
    struct series *x = &s->series[i];
    if (x->device == r->device && strcmp(x->counter, r->counter) == 0 &&
        strcmp(x->backend, r->backend) == 0 && strcmp(x->device_name, r->device_name) == 0)
      return x;
  }
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    struct series *grown = realloc(s->series, cap * sizeof *grown);
    if (!grown)
      return NULL;
    s->series = grown;
    s->cap = cap;
  }
  struct series *x = &s->series[s->count];
  *x = (struct series){strdup(r->backend),
                       strdup(r->device_name),
                       strdup(r->counter),
                       strdup(r->unit),
                       r->device,
                       NULL,
                       0,
                       0};
  if (!x->backend || !x->device_name || !x->counter || !x->unit)
    return NULL;
  s->count++;
  return x;
}

static int on_sample(void *context, const struct trace_sample *r) {
  struct samples *s = context;
  if (r->why) {
    char *line = NULL;
    char **grown = realloc(s->unavailable, (s->unavailable_count + 1) * sizeof *grown);
    if (!grown)
      return -1;
    s->unavailable = grown;
    if (asprintf(&line, "%s: %s", r->backend, r->why) < 0)
      return -1;
    s->unavailable[s->unavailable_count++] = line;
    return 0;
  }
  struct series *x = series_of(s, r);
  if (!x)
    return -1;
  if (x->count == x->cap) {
    size_t cap = x->cap ? 2 * x->cap : 64;
    struct reading *grown = realloc(x->readings, cap * sizeof *grown);
    if (!grown)
      return -1;
    x->readings = grown;
    x->cap = cap;
  }
  x->readings[x->count++] = (struct reading){r->from.time, r->value};
  return 0;
}

static void series_free(struct series *x) {
  free(x->backend);
  free(x->device_name);
  free(x->counter);
  free(x->unit);
  free(x->readings);
}

static void samples_release(struct samples *s) {
  for (size_t i = 0; i < s->count; i++)
    series_free(&s->series[i]);
  free(s->series);
  for (size_t i = 0; i < s->unavailable_count; i++)
    free(s->unavailable[i]);
  free(s->unavailable);
  free(s);
}

/* Streams are read on several threads, each worker with a set of its own. */
static void *fork_samples(void *context) {
  (void)context;
  return calloc(1, sizeof(struct samples));
}

static int join_samples(void *context, void *worker) {
  struct samples *s = context, *w = worker;
  int rc = 0;
  for (size_t i = 0; i < w->count && rc == 0; i++) {
    struct series *from = &w->series[i];
    for (size_t k = 0; k < from->count && rc == 0; k++) {
      struct trace_sample r = {.backend = from->backend,
                               .device = from->device,
                               .device_name = from->device_name,
                               .counter = from->counter,
                               .unit = from->unit,
                               .value = from->readings[k].value};
      r.from.time = from->readings[k].time;
      rc = on_sample(s, &r);
    }
  }
  for (size_t i = 0; i < w->unavailable_count && rc == 0; i++) {
    char **grown = realloc(s->unavailable, (s->unavailable_count + 1) * sizeof *grown);
    if (!grown) {
      rc = -1;
      break;
    }
    s->unavailable = grown;
    s->unavailable[s->unavailable_count++] = w->unavailable[i];
    w->unavailable[i] = NULL;
  }
  samples_release(w);
  return rc;
}

int samples_open(struct samples **out, struct trace_consumer *consumer, struct diag *d) {
  struct samples *s = calloc(1, sizeof *s);
  *out = s;
  if (!s)
    return diag_error(d, "Cannot read the device counters: out of memory");
  *consumer = (struct trace_consumer){.name = "samples",
                                      .needs = TRACE_NEEDS_TIMES,
                                      .context = s,
                                      .fork = fork_samples,
                                      .join = join_samples,
                                      .sample = on_sample};
  return 0;
}

static int by_time(const void *a, const void *b) {
  const struct reading *x = a, *y = b;
  return x->time < y->time ? -1 : x->time > y->time;
}

/* 0 when two series are of one device. */
static int same_device(const struct series *x, const struct series *y) {
  int c = strcmp(x->backend, y->backend);
  if (c == 0)
    c = x->device < y->device ? -1 : x->device > y->device;
  if (c == 0)
    c = strcmp(x->device_name, y->device_name);
  return c;
}

/* The figures of one series, its readings put in time order. Energy: the trapezoids
 * between readings, in joules (W x s). */
static void reduce(struct series *x, struct samples_counter *c) {
  qsort(x->readings, x->count, sizeof *x->readings, by_time);
  c->name = x->counter;
  c->unit = x->unit;
  x->counter = x->unit = NULL;
  c->readings = x->count;
  c->least = c->most = x->readings[0].value;
  c->most_at = c->first = x->readings[0].time;
  c->last = x->readings[x->count - 1].time;
  double sum = 0;
  for (size_t i = 0; i < x->count; i++) {
    const struct reading *r = &x->readings[i];
    sum += r->value;
    if (r->value < c->least)
      c->least = r->value;
    if (r->value > c->most) {
      c->most = r->value;
      c->most_at = r->time;
    }
    if (i > 0)
      c->joules += (r->value + r[-1].value) / 2 * (double)(r->time - r[-1].time) / 1e9;
  }
  c->mean = sum / (double)x->count;
  c->energy = strcmp(c->unit, "W") == 0;
}

int samples_close(struct samples *s, struct samples_report *report, struct diag *d) {
  memset(report, 0, sizeof *report);
  if (!s)
    return -1;
  /* Devices in order, each device's counters in the order the sampler reads them (the
   * spec's): the first reading's order, kept by a stable pass. */
  int rc = 0;
  report->unavailable = s->unavailable;
  report->unavailable_count = s->unavailable_count;
  s->unavailable = NULL;
  s->unavailable_count = 0;
  report->devices = calloc(s->count ? s->count : 1, sizeof *report->devices);
  if (!report->devices) {
    samples_release(s);
    return diag_error(d, "Cannot report the device counters: out of memory");
  }
  bool *taken = calloc(s->count ? s->count : 1, sizeof *taken);
  for (size_t i = 0; taken && i < s->count; i++) {
    if (taken[i])
      continue;
    struct samples_device *dev = &report->devices[report->device_count++];
    dev->backend = strdup(s->series[i].backend);
    dev->name = strdup(s->series[i].device_name);
    dev->index = s->series[i].device;
    dev->rank = -1;
    dev->counters = calloc(s->count, sizeof *dev->counters);
    if (!dev->backend || !dev->name || !dev->counters) {
      rc = diag_error(d, "Cannot report the device counters: out of memory");
      break;
    }
    for (size_t k = i; k < s->count; k++)
      if (!taken[k] && same_device(&s->series[i], &s->series[k]) == 0) {
        taken[k] = true;
        reduce(&s->series[k], &dev->counters[dev->counter_count++]);
      }
  }
  if (!taken)
    rc = diag_error(d, "Cannot report the device counters: out of memory");
  free(taken);
  samples_release(s);
  return rc;
}

void samples_free(struct samples_report *report) {
  for (size_t i = 0; i < report->device_count; i++) {
    struct samples_device *dev = &report->devices[i];
    for (size_t k = 0; k < dev->counter_count; k++) {
      free(dev->counters[k].name);
      free(dev->counters[k].unit);
    }
    free(dev->counters);
    free(dev->backend);
    free(dev->name);
  }
  free(report->devices);
  for (size_t i = 0; i < report->unavailable_count; i++)
    free(report->unavailable[i]);
  free(report->unavailable);
  memset(report, 0, sizeof *report);
}
