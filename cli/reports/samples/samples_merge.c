/* samples_merge: device counters' reports built outside a read of a trace, for an MPI
 * job's (cli/job/): a rank's report tagged with its rank, the ranks' reports put
 * together, and a report read back from a result file. See samples.h. */
#include <stdlib.h>
#include <string.h>

#include "samples.h"

struct samples_device *samples_add_device(struct samples_report *r, const char *backend,
                                          uint32_t index, const char *name, long rank) {
  struct samples_device *grown = realloc(r->devices, (r->device_count + 1) * sizeof *grown);
  if (!grown)
    return NULL;
  r->devices = grown;
  struct samples_device *dev = &r->devices[r->device_count];
  *dev = (struct samples_device){.backend = strdup(backend), .name = strdup(name),
                                 .index = index, .rank = rank};
  if (!dev->backend || !dev->name) {
    free(dev->backend);
    free(dev->name);
    return NULL;
  }
  r->device_count++;
  return dev;
}

struct samples_counter *samples_add_counter(struct samples_device *dev, const char *name,
                                            const char *unit) {
  struct samples_counter *grown =
      realloc(dev->counters, (dev->counter_count + 1) * sizeof *grown);
  if (!grown)
    return NULL;
  dev->counters = grown;
  struct samples_counter *c = &dev->counters[dev->counter_count];
  *c = (struct samples_counter){.name = strdup(name), .unit = strdup(unit)};
  if (!c->name || !c->unit) {
    free(c->name);
    free(c->unit);
    return NULL;
  }
  dev->counter_count++;
  return c;
}

int samples_add_unavailable(struct samples_report *r, const char *why) {
  char **grown = realloc(r->unavailable, (r->unavailable_count + 1) * sizeof *grown);
  if (!grown)
    return -1;
  r->unavailable = grown;
  if (!(r->unavailable[r->unavailable_count] = strdup(why)))
    return -1;
  r->unavailable_count++;
  return 0;
}

int samples_append(struct samples_report *into, const struct samples_report *from, long rank) {
  for (size_t i = 0; i < from->device_count; i++) {
    const struct samples_device *d = &from->devices[i];
    struct samples_device *dev =
        samples_add_device(into, d->backend, d->index, d->name, rank >= 0 ? rank : d->rank);
    for (size_t k = 0; dev && k < d->counter_count; k++) {
      const struct samples_counter *c = &d->counters[k];
      struct samples_counter *copy = samples_add_counter(dev, c->name, c->unit);
      if (!copy)
        return -1;
      char *name = copy->name, *unit = copy->unit;
      *copy = *c;
      copy->name = name;
      copy->unit = unit;
    }
    if (!dev)
      return -1;
  }
  for (size_t i = 0; i < from->unavailable_count; i++) {
    char *why = NULL;
    if (rank >= 0 ? asprintf(&why, "rank %ld: %s", rank, from->unavailable[i]) < 0
                  : !(why = strdup(from->unavailable[i])))
      return -1;
    int rc = samples_add_unavailable(into, why);
    free(why);
    if (rc)
      return -1;
  }
  return 0;
}

static int by_rank_and_device(const void *x, const void *y) {
  const struct samples_device *a = x, *b = y;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  int c = strcmp(a->backend, b->backend);
  if (c)
    return c;
  return (a->index > b->index) - (a->index < b->index);
}

static int by_text(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void samples_sort(struct samples_report *r) {
  if (r->device_count)
    qsort(r->devices, r->device_count, sizeof *r->devices, by_rank_and_device);
  if (r->unavailable_count)
    qsort(r->unavailable, r->unavailable_count, sizeof *r->unavailable, by_text);
}
