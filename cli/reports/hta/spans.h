/* spans: unions of time intervals built in start order, and their lengths and common
 * parts: what HTA's definitions (hta.h) and the steps table (steps_report.h) measure. The
 * caller gives the room (at most one span per interval added). */
#ifndef TRACER_SPANS_H
#define TRACER_SPANS_H

#include <stddef.h>
#include <stdint.h>

struct span {
  uint64_t start, end;
};

struct spans {
  struct span *at; /* borrowed room */
  size_t count;
};

/* Adds [s, e] to a union built in start order. */
static inline void spans_add(struct spans *u, uint64_t s, uint64_t e) {
  if (u->count && s <= u->at[u->count - 1].end) {
    if (e > u->at[u->count - 1].end)
      u->at[u->count - 1].end = e;
  } else {
    u->at[u->count++] = (struct span){s, e};
  }
}

static inline uint64_t spans_length(const struct spans *u) {
  uint64_t total = 0;
  for (size_t i = 0; i < u->count; i++)
    total += u->at[i].end - u->at[i].start;
  return total;
}

/* |a ∩ b| of two unions. */
static inline uint64_t spans_common(const struct spans *a, const struct spans *b) {
  uint64_t total = 0;
  for (size_t i = 0, j = 0; i < a->count && j < b->count;) {
    uint64_t s = a->at[i].start > b->at[j].start ? a->at[i].start : b->at[j].start;
    uint64_t e = a->at[i].end < b->at[j].end ? a->at[i].end : b->at[j].end;
    if (e > s)
      total += e - s;
    if (a->at[i].end < b->at[j].end)
      i++;
    else
      j++;
  }
  return total;
}

#endif
