/* tracer_given: see tracer_given.h. */
#include "tracer_given.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A name or an object named, in one list per kind (NULL: plain names). */
struct interned {
  struct interned *next;
  const char *kind;
  void *object; /* the interned object, or NULL for a plain name */
  char name[];
};

static struct interned *interned;

static bool same_kind(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}
static pthread_mutex_t given_lock = PTHREAD_MUTEX_INITIALIZER;

/* The entry of kind named name, made when there is none yet (with its object, a copy of
 * init, when init is given). */
static struct interned *intern(const char *kind, const char *name, const void *init, size_t size,
                               size_t name_offset) {
  if (!name)
    return NULL;
  pthread_mutex_lock(&given_lock);
  struct interned *e = interned;
  while (e && !(same_kind(e->kind, kind) && strcmp(e->name, name) == 0))
    e = e->next;
  if (!e && (e = malloc(sizeof *e + strlen(name) + 1))) {
    strcpy(e->name, name);
    e->kind = kind;
    e->object = init ? malloc(size) : NULL;
    if (init && !e->object) {
      free(e);
      e = NULL;
    } else {
      if (init) {
        memcpy(e->object, init, size);
        const char *own = e->name;
        memcpy((char *)e->object + name_offset, &own, sizeof own);
      }
      e->next = interned;
      interned = e;
    }
  }
  pthread_mutex_unlock(&given_lock);
  return e;
}

const char *tracer_intern(const char *text) {
  struct interned *e = intern(NULL, text, NULL, 0, 0);
  return e ? e->name : NULL;
}

const char *tracer_intern_wide(const wchar_t *text) {
  if (!text)
    return NULL;
  char buffer[256];
  mbstate_t state = {0};
  const wchar_t *source = text;
  size_t n = wcsrtombs(buffer, &source, sizeof buffer - 1, &state);
  buffer[n == (size_t)-1 ? 0 : n] = '\0';
  return tracer_intern(buffer);
}

void *tracer_intern_object(const char *kind, const char *name, const void *init, size_t size,
                           size_t name_offset) {
  struct interned *e = intern(kind, name, init, size, name_offset);
  return e ? e->object : NULL;
}

void *tracer_unique_handle(void) { return calloc(1, 1); }

const uint64_t *tracer_properties_with(const uint64_t *props, uint64_t key, uint64_t flags) {
  enum { MAX_PROPERTIES = 64 };
  static __thread uint64_t copy[MAX_PROPERTIES];
  size_t n = 0;
  bool found = false;
  for (; props && props[n] != 0 && n + 3 < MAX_PROPERTIES; n += 2) {
    copy[n] = props[n];
    copy[n + 1] = props[n + 1];
    if (props[n] == key) {
      copy[n + 1] |= flags;
      found = true;
    }
  }
  if (props && props[n] != 0)
    return props; /* too long to copy: leave the app's list alone */
  if (!found) {
    copy[n++] = key;
    copy[n++] = flags;
  }
  copy[n] = 0;
  return copy;
}
