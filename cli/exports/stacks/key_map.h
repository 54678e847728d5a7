/* key_map: a map from 64-bit keys to 64-bit values (open addressing), for the exports'
 * lookups by id: a thread's state by (host, pid, tid), a folded stack's node by (parent,
 * frame), a submitting call's stack by (thread, start). Key UINT64_MAX is reserved. */
#ifndef TRACER_KEY_MAP_H
#define TRACER_KEY_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct key_map {
  uint64_t *keys;    /* UINT64_MAX: empty */
  uint64_t *values;
  size_t cap, len;
};

/* The value's slot for key, added (its value 0) when absent; *added says so. NULL when
 * out of memory. The pointer is valid until the next put. */
uint64_t *key_map_put(struct key_map *m, uint64_t key, bool *added);
/* The value's slot, or NULL when key is absent. */
uint64_t *key_map_get(const struct key_map *m, uint64_t key);
/* Removes key (absent: nothing). */
void key_map_remove(struct key_map *m, uint64_t key);
void key_map_clear(struct key_map *m);
void key_map_free(struct key_map *m);

/* Two 32-bit halves and more, mixed into one key (thread ids, a call's start). */
static inline uint64_t key_mix(uint64_t a, uint64_t b) {
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
  return h == UINT64_MAX ? 0 : h;
}

#endif
