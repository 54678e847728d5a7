/* id_set: see id_set.h. */
#include "id_set.h"

#include <stdlib.h>

static size_t slot_of(const uint64_t *slots, size_t cap, uint64_t key) {
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
  while (slots[i] && slots[i] != key)
    i = (i + 1) & (cap - 1);
  return i;
}

int id_set_add(struct id_set *s, uint64_t id) {
  uint64_t key = id + 1;
  if ((s->len + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
      return -1;
    for (size_t i = 0; i < s->cap; i++)
      if (s->slots[i])
        slots[slot_of(slots, cap, s->slots[i])] = s->slots[i];
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
  }
  size_t i = slot_of(s->slots, s->cap, key);
  if (!s->slots[i]) {
    s->slots[i] = key;
    s->len++;
  }
  return 0;
}

int id_set_merge(struct id_set *into, const struct id_set *from) {
  for (size_t i = 0; i < from->cap; i++)
    if (from->slots[i] && id_set_add(into, from->slots[i] - 1))
      return -1;
  return 0;
}

void id_set_free(struct id_set *s) {
  free(s->slots);
  s->slots = NULL;
  s->cap = s->len = 0;
}
