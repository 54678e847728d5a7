/* name_table: see name_table.h. */
#include "name_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_of(const char *s, size_t len) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h;
}

static size_t slot_of(const struct name_table *t, const char *name, size_t len, bool *found) {
  size_t i = (size_t)hash_of(name, len) & (t->slot_cap - 1);
  for (; t->slots[i]; i = (i + 1) & (t->slot_cap - 1)) {
    const char *s = t->names[t->slots[i] - 1];
    if (strncmp(s, name, len) == 0 && s[len] == '\0') {
      *found = true;
      return i;
    }
  }
  *found = false;
  return i;
}

static int grow(struct name_table *t) {
  size_t cap = t->slot_cap ? t->slot_cap * 2 : 64;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return -1;
  uint32_t *old = t->slots;
  size_t old_cap = t->slot_cap;
  t->slots = slots;
  t->slot_cap = cap;
  for (size_t i = 0; i < old_cap; i++) {
    if (!old[i])
      continue;
    bool found;
    const char *s = t->names[old[i] - 1];
    t->slots[slot_of(t, s, strlen(s), &found)] = old[i];
  }
  free(old);
  return 0;
}

uint32_t name_table_find(const struct name_table *t, const char *name, size_t len) {
  if (!t->slot_cap)
    return UINT32_MAX;
  if (len == SIZE_MAX)
    len = strlen(name);
  bool found;
  size_t i = slot_of(t, name, len, &found);
  return found ? t->slots[i] - 1 : UINT32_MAX;
}

uint32_t name_table_id(struct name_table *t, const char *name, size_t len) {
  if (len == SIZE_MAX)
    len = strlen(name);
  if (((size_t)t->count + 1) * 2 > t->slot_cap && grow(t))
    return UINT32_MAX;
  bool found;
  size_t i = slot_of(t, name, len, &found);
  if (found)
    return t->slots[i] - 1;
  if (t->count == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 64;
    char **names = realloc(t->names, cap * sizeof *names);
    if (!names)
      return UINT32_MAX;
    t->names = names;
    t->cap = cap;
  }
  char *copy = malloc(len + 1);
  if (!copy)
    return UINT32_MAX;
  memcpy(copy, name, len);
  copy[len] = '\0';
  t->names[t->count] = copy;
  t->slots[i] = ++t->count;
  return t->count - 1;
}

void name_table_free(struct name_table *t) {
  for (uint32_t i = 0; i < t->count; i++)
    free(t->names[i]);
  free(t->names);
  free(t->slots);
  memset(t, 0, sizeof *t);
}
