/* key_map: see key_map.h. */
#include "key_map.h"

#include <stdlib.h>
#include <string.h>

static size_t home_of(const struct key_map *m, uint64_t key) {
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (m->cap - 1);
}

static int grow(struct key_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  uint64_t *keys = malloc(cap * sizeof *keys), *values = calloc(cap, sizeof *values);
  if (!keys || !values) {
    free(keys);
    free(values);
    return -1;
  }
  memset(keys, 0xff, cap * sizeof *keys);
  uint64_t *old_keys = m->keys, *old_values = m->values;
  size_t old_cap = m->cap;
  m->keys = keys;
  m->values = values;
  m->cap = cap;
  for (size_t i = 0; i < old_cap; i++) {
    if (old_keys[i] == UINT64_MAX)
      continue;
    size_t at = home_of(m, old_keys[i]);
    while (m->keys[at] != UINT64_MAX)
      at = (at + 1) & (m->cap - 1);
    m->keys[at] = old_keys[i];
    m->values[at] = old_values[i];
  }
  free(old_keys);
  free(old_values);
  return 0;
}

uint64_t *key_map_put(struct key_map *m, uint64_t key, bool *added) {
  *added = false;
  if ((m->len + 1) * 2 > m->cap && grow(m))
    return NULL;
  size_t at = home_of(m, key);
  for (; m->keys[at] != UINT64_MAX; at = (at + 1) & (m->cap - 1))
    if (m->keys[at] == key)
      return &m->values[at];
  m->keys[at] = key;
  m->values[at] = 0;
  m->len++;
  *added = true;
  return &m->values[at];
}

uint64_t *key_map_get(const struct key_map *m, uint64_t key) {
  if (!m->len)
    return NULL;
  for (size_t at = home_of(m, key); m->keys[at] != UINT64_MAX; at = (at + 1) & (m->cap - 1))
    if (m->keys[at] == key)
      return &m->values[at];
  return NULL;
}

void key_map_remove(struct key_map *m, uint64_t key) {
  uint64_t *value = key_map_get(m, key);
  if (!value)
    return;
  size_t at = (size_t)(value - m->values);
  m->keys[at] = UINT64_MAX;
  m->len--;
  /* Re-insert the rest of the run, so that lookups never stop at the hole. */
  for (size_t k = (at + 1) & (m->cap - 1); m->keys[k] != UINT64_MAX; k = (k + 1) & (m->cap - 1)) {
    uint64_t moved_key = m->keys[k], moved_value = m->values[k];
    m->keys[k] = UINT64_MAX;
    size_t to = home_of(m, moved_key);
    while (m->keys[to] != UINT64_MAX)
      to = (to + 1) & (m->cap - 1);
    m->keys[to] = moved_key;
    m->values[to] = moved_value;
  }
}

void key_map_clear(struct key_map *m) {
  if (m->cap)
    memset(m->keys, 0xff, m->cap * sizeof *m->keys);
  m->len = 0;
}

void key_map_free(struct key_map *m) {
  free(m->keys);
  free(m->values);
  memset(m, 0, sizeof *m);
}
