/* id_set: a set of 64-bit ids (processes, threads, hosts), open addressing. */
#ifndef TRACER_ID_SET_H
#define TRACER_ID_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct id_set {
  uint64_t *slots; /* owned; 0 marks an empty slot, so ids are stored plus one */
  size_t cap, len;
};

/* Returns -1 when out of memory, else 0. */
int id_set_add(struct id_set *s, uint64_t id);
int id_set_merge(struct id_set *into, const struct id_set *from);
void id_set_free(struct id_set *s);

#endif
