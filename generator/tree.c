/* tree: a small owned value tree for templates. */
#include "tree.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static struct tree *tree_new(enum tree_kind kind) {
  struct tree *t = xcalloc(1, sizeof *t);
  t->kind = kind;
  return t;
}

struct tree *tree_string(const char *s) {
  struct tree *t = tree_new(TREE_STRING);
  t->string = xstrdup(s ? s : "");
  return t;
}

struct tree *tree_stringf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  struct tree *t = tree_new(TREE_STRING);
  t->string = xvasprintf(fmt, ap);
  va_end(ap);
  return t;
}

struct tree *tree_bool(bool b) {
  struct tree *t = tree_new(TREE_BOOL);
  t->boolean = b;
  return t;
}

struct tree *tree_list(void) { return tree_new(TREE_LIST); }
struct tree *tree_map(void) { return tree_new(TREE_MAP); }

static void grow(struct tree *t) {
  if (t->len < t->cap)
    return;
  t->cap = t->cap ? t->cap * 2 : 8;
  t->items = xrealloc(t->items, t->cap * sizeof *t->items);
  if (t->kind == TREE_MAP)
    t->keys = xrealloc(t->keys, t->cap * sizeof *t->keys);
}

struct tree *tree_push(struct tree *list, struct tree *item) {
  grow(list);
  list->items[list->len++] = item;
  return item;
}

struct tree *tree_set(struct tree *map, const char *key, struct tree *value) {
  grow(map);
  map->keys[map->len] = xstrdup(key);
  map->items[map->len++] = value;
  return value;
}

void tree_set_string(struct tree *map, const char *key, const char *value) {
  tree_set(map, key, tree_string(value));
}

void tree_set_bool(struct tree *map, const char *key, bool value) {
  tree_set(map, key, tree_bool(value));
}

const struct tree *tree_get(const struct tree *map, const char *key) {
  if (!map || map->kind != TREE_MAP)
    return NULL;
  for (size_t i = 0; i < map->len; i++)
    if (strcmp(map->keys[i], key) == 0)
      return map->items[i];
  return NULL;
}

void tree_free(struct tree *t) {
  if (!t)
    return;
  free(t->string);
  for (size_t i = 0; i < t->len; i++) {
    tree_free(t->items[i]);
    if (t->keys)
      free(t->keys[i]);
  }
  free(t->items);
  free(t->keys);
  free(t);
}
