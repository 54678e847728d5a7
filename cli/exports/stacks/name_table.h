/* name_table: strings interned to dense ids (0, 1, 2, ... in the order first seen), each
 * kept once with a stable address, for the exports that name things many times (region
 * and kernel names, OTF2's string definitions, the frames of folded stacks).
 *
 * The table owns its copies; a name's pointer stays valid until name_table_free(). */
#ifndef TRACER_NAME_TABLE_H
#define TRACER_NAME_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct name_table {
  char **names;        /* by id; owned */
  uint32_t count, cap;
  uint32_t *slots;     /* open addressing: id + 1, 0 when empty */
  size_t slot_cap;
};

/* The id of name[0, len) (len: strlen when SIZE_MAX), added when new; UINT32_MAX when
 * out of memory. */
uint32_t name_table_id(struct name_table *t, const char *name, size_t len);
/* The id of name when present, else UINT32_MAX. */
uint32_t name_table_find(const struct name_table *t, const char *name, size_t len);
static inline const char *name_table_name(const struct name_table *t, uint32_t id) {
  return id < t->count ? t->names[id] : NULL;
}
void name_table_free(struct name_table *t);

#endif
