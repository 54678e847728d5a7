/* tree: the data a template is rendered over: strings, booleans, lists and maps.
 *
 * apigen's view builder (view.c) turns a model into a tree; templates only look values up
 * in it. A tree owns everything below it: tree_free() on the root frees it all. Maps keep
 * their keys in insertion order and look them up linearly (maps here are small).
 */
#ifndef APIGEN_TREE_H
#define APIGEN_TREE_H

#include <stdbool.h>
#include <stddef.h>

enum tree_kind { TREE_STRING, TREE_BOOL, TREE_LIST, TREE_MAP };

struct tree {
  enum tree_kind kind;
  char *string;        /* TREE_STRING, owned */
  bool boolean;        /* TREE_BOOL */
  struct tree **items; /* TREE_LIST, TREE_MAP values; owned */
  char **keys;         /* TREE_MAP keys; owned */
  size_t len, cap;
};

struct tree *tree_string(const char *s);
struct tree *tree_stringf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct tree *tree_bool(bool b);
struct tree *tree_list(void);
struct tree *tree_map(void);

/* Appends to a list; returns item for chaining. */
struct tree *tree_push(struct tree *list, struct tree *item);
/* Sets key in a map (keys must be new); returns value. */
struct tree *tree_set(struct tree *map, const char *key, struct tree *value);
void tree_set_string(struct tree *map, const char *key, const char *value);
void tree_set_bool(struct tree *map, const char *key, bool value);

/* The value of key in map, or NULL. */
const struct tree *tree_get(const struct tree *map, const char *key);

void tree_free(struct tree *t);

#endif
