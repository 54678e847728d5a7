/* tracer_map: values of one size by a 64-bit key, for the tables of ids and handles the
 * runtime and the hooks keep (MPI's requests, NCCL's communicators, CUPTI's correlation
 * ids).
 *
 * Open addressing with linear probing, grown as entries come, up to the owner's bound on
 * the entries. Key 0 is no key: a put of it fails and nothing is found under it. A map
 * has no lock: its owner holds one around every call. The map owns its slots; values are
 * copied in and out.
 */
#ifndef TRACER_MAP_H
#define TRACER_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracer_map {
  size_t value_size;    /* bytes of one value */
  size_t max;           /* most entries kept: a put of a new key beyond fails */
  unsigned char *slots; /* owned; made at the first put */
  size_t capacity, used;
};
#define TRACER_MAP_INIT(type, most)                                                                \
  { sizeof(type), (most), NULL, 0, 0 }

/* Sets key's value; false when the map is full at its bound or memory is short. */
bool tracer_map_put(struct tracer_map *map, uint64_t key, const void *value);
/* Copies key's value out (value may be NULL); false when the key is absent. */
bool tracer_map_get(const struct tracer_map *map, uint64_t key, void *value);
/* As tracer_map_get, and removes the key. */
bool tracer_map_take(struct tracer_map *map, uint64_t key, void *value);
/* Removes every entry and frees the slots. */
void tracer_map_clear(struct tracer_map *map);

#endif
