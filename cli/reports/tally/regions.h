/* regions: the tally of named regions (lttng_ust_tracer:region events, opened and closed
 * by the calls a spec's trace.regions names): one row per backend and region name with
 * its time, count, average, min and max. Nested regions count in full in each of their
 * enclosing regions' rows too, so the rows do not add up to the run's time.
 */
#ifndef TRACER_REGIONS_H
#define TRACER_REGIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct region_row {
  char *backend; /* owned */
  char *name;    /* owned */
  uint64_t calls, total, min, max; /* ns */
};

struct regions {
  struct region_row *rows; /* owned */
  size_t count, cap;
};

/* Counts one region of ns nanoseconds. Returns 0, or -1 when out of memory. */
int regions_add(struct regions *r, const char *backend, size_t backend_len, const char *name,
                size_t name_len, uint64_t ns);
int regions_merge(struct regions *into, const struct regions *from);
void regions_free(struct regions *r);

/* The rows of one backend as a text table titled BACKEND_<label>, longest time first;
 * nothing when it has none. */
void regions_print_text(const struct regions *r, const char *backend, const char *label,
                        FILE *out);
/* The rows of one backend as a JSON list (without a trailing newline). */
void regions_print_json(const struct regions *r, const char *backend, FILE *out);

#endif
