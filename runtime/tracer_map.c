/* tracer_map: see tracer_map.h. A slot is its key, then its value, 8-byte aligned. */
#include "tracer_map.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_size(const struct tracer_map *m) {
  return sizeof(uint64_t) + (m->value_size + 7) / 8 * 8;
}

static unsigned char *slot_at(const struct tracer_map *m, size_t i) {
  return m->slots + i * slot_size(m);
}

static uint64_t key_at(const struct tracer_map *m, size_t i) {
  uint64_t key;
  memcpy(&key, slot_at(m, i), sizeof key);
  return key;
}

/* The slot holding key, else the free one where it would go. The product's high bits
 * are its home: aligned pointers and ids in steps have their low bits alike. */
static size_t find(const struct tracer_map *m, uint64_t key) {
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->capacity - 1);
  while (key_at(m, i) && key_at(m, i) != key)
    i = (i + 1) & (m->capacity - 1);
  return i;
}

static void set(struct tracer_map *m, size_t i, uint64_t key, const void *value) {
  memcpy(slot_at(m, i), &key, sizeof key);
  memcpy(slot_at(m, i) + sizeof key, value, m->value_size);
}

/* Doubles the slots, so that at most half of them are used. */
static bool grow(struct tracer_map *m) {
  struct tracer_map grown = *m;
  grown.capacity = m->capacity ? 2 * m->capacity : 64;
  grown.slots = calloc(grown.capacity, slot_size(m));
  if (!grown.slots)
    return false;
  for (size_t i = 0; i < m->capacity; i++)
    if (key_at(m, i))
      set(&grown, find(&grown, key_at(m, i)), key_at(m, i), slot_at(m, i) + sizeof(uint64_t));
  free(m->slots);
  *m = grown;
  return true;
}

bool tracer_map_put(struct tracer_map *m, uint64_t key, const void *value) {
  if (!key)
    return false;
  size_t i = m->capacity ? find(m, key) : 0;
  if (m->capacity && key_at(m, i) == key) {
    set(m, i, key, value);
    return true;
  }
  if (m->used == m->max || (2 * (m->used + 1) > m->capacity && !grow(m)))
    return false;
  set(m, find(m, key), key, value);
  m->used++;
  return true;
}

bool tracer_map_get(const struct tracer_map *m, uint64_t key, void *value) {
  size_t i = m->capacity && key ? find(m, key) : 0;
  if (!m->capacity || !key || key_at(m, i) != key)
    return false;
  if (value)
    memcpy(value, slot_at(m, i) + sizeof key, m->value_size);
  return true;
}

bool tracer_map_take(struct tracer_map *m, uint64_t key, void *value) {
  if (!tracer_map_get(m, key, value))
    return false;
  size_t i = find(m, key);
  memset(slot_at(m, i), 0, sizeof key);
  m->used--;
  /* The run after the hole is placed again, so that no lookup stops short at it. */
  for (size_t j = (i + 1) & (m->capacity - 1); key_at(m, j); j = (j + 1) & (m->capacity - 1)) {
    uint64_t moved = key_at(m, j);
    memset(slot_at(m, j), 0, sizeof moved);
    size_t to = find(m, moved);
    if (to != j)
      memcpy(slot_at(m, to) + sizeof moved, slot_at(m, j) + sizeof moved, m->value_size);
    memcpy(slot_at(m, to), &moved, sizeof moved);
  }
  return true;
}

void tracer_map_clear(struct tracer_map *m) {
  free(m->slots);
  m->slots = NULL;
  m->capacity = m->used = 0;
}
