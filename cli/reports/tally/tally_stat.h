/* tally_stat: the figures a tally keeps per table row: calls, errors, and the total,
 * least and most time of the calls (ns). Two merge exactly. */
#ifndef TRACER_TALLY_STAT_H
#define TRACER_TALLY_STAT_H

#include <stdbool.h>
#include <stdint.h>

struct tally_stat {
  uint64_t calls, errors;
  uint64_t total, min, max; /* ns */
};

static inline void tally_stat_add(struct tally_stat *s, uint64_t ns, bool error) {
  if (s->calls == 0 || ns < s->min)
    s->min = ns;
  if (ns > s->max)
    s->max = ns;
  s->calls++;
  s->total += ns;
  s->errors += error;
}

static inline void tally_stat_merge(struct tally_stat *into, const struct tally_stat *from) {
  if (!from->calls)
    return;
  if (into->calls == 0 || from->min < into->min)
    into->min = from->min;
  if (from->max > into->max)
    into->max = from->max;
  into->calls += from->calls;
  into->total += from->total;
  into->errors += from->errors;
}

#endif
