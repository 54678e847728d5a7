/* tracer_pending: see tracer_pending.h. */
#include "tracer_pending.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_runtime.h"

enum { LISTS = 8 };

struct list {
  const struct tracer_pending_ops *ops;
  pthread_mutex_t lock;
  char *items; /* count items of ops->size bytes */
  size_t count, cap;
  unsigned drains;
};

static struct list lists[LISTS];
static unsigned list_count;
static pthread_mutex_t lists_lock = PTHREAD_MUTEX_INITIALIZER;

/* A drain reads through the backend's API, whose calls must not drain again. */
static __thread bool draining;

static struct list *list_of(const char *backend) {
  unsigned n = __atomic_load_n(&list_count, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++)
    if (strcmp(lists[i].ops->backend, backend) == 0)
      return &lists[i];
  return NULL;
}

static void drain_all_at_exit(void);

/* The backend's list, made at its first command. */
static struct list *list_for(const struct tracer_pending_ops *ops) {
  struct list *l = list_of(ops->backend);
  if (l)
    return l;
  pthread_mutex_lock(&lists_lock);
  if (!(l = list_of(ops->backend)) && list_count < LISTS) {
    l = &lists[list_count];
    l->ops = ops;
    pthread_mutex_init(&l->lock, NULL);
    __atomic_store_n(&list_count, list_count + 1, __ATOMIC_RELEASE);
    static bool exit_drain;
    if (ops->drain_at_exit && !exit_drain)
      exit_drain = atexit(drain_all_at_exit) == 0;
  }
  pthread_mutex_unlock(&lists_lock);
  return l;
}

static struct tracer_pending *item(const struct list *l, size_t i) {
  return (struct tracer_pending *)(l->items + i * l->ops->size);
}

/* Called with the list locked. */
static void drain_locked(struct list *l, bool wait) {
  unsigned drain = ++l->drains;
  size_t kept = 0;
  for (size_t i = 0; i < l->count; i++) {
    struct tracer_pending *p = item(l, i);
    uint64_t start = 0, end = 0;
    enum tracer_pending_state state = l->ops->read(p, wait, drain, &start, &end);
    if (state == TRACER_PENDING_RUNNING) {
      if (kept != i)
        memcpy(item(l, kept), p, l->ops->size);
      kept++;
      continue;
    }
    if (state == TRACER_PENDING_READ)
      tracer_pending_record(l->ops->backend, p, start, end);
    else
      tracer_debug("no device times for %s", p->name);
    l->ops->release(p);
  }
  __atomic_store_n(&l->count, kept, __ATOMIC_RELEASE);
}

void tracer_pending_init(struct tracer_pending *p, const struct tracer_command *command) {
  p->call = tracer_call_returned();
  p->kind = command->kind;
  p->bytes = command->bytes;
  p->queue = command->queue;
  tracer_command_name(command, p->name, sizeof p->name);
}

void tracer_pending_add(const struct tracer_pending_ops *ops, const struct tracer_pending *p) {
  struct list *l = list_for(ops);
  if (!l || draining) {
    ops->release((struct tracer_pending *)p);
    return;
  }
  pthread_mutex_lock(&l->lock);
  draining = true;
  if (l->count >= TRACER_PENDING_DRAIN_AT)
    drain_locked(l, false);
  if (l->count >= TRACER_PENDING_MAX)
    drain_locked(l, true);
  draining = false;
  if (l->count == l->cap && l->cap < TRACER_PENDING_MAX) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char *grown = realloc(l->items, cap * ops->size);
    if (grown)
      l->items = grown, l->cap = cap;
  }
  if (l->count < l->cap) {
    memcpy(item(l, l->count), p, ops->size);
    __atomic_store_n(&l->count, l->count + 1, __ATOMIC_RELEASE);
  } else {
    ops->release((struct tracer_pending *)p);
  }
  pthread_mutex_unlock(&l->lock);
}

void tracer_pending_drain(const char *backend, bool wait) {
  struct list *l = list_of(backend);
  if (!l || draining || !__atomic_load_n(&l->count, __ATOMIC_ACQUIRE))
    return;
  pthread_mutex_lock(&l->lock);
  draining = true;
  drain_locked(l, wait);
  draining = false;
  pthread_mutex_unlock(&l->lock);
}

void tracer_pending_forget(const char *backend, uintptr_t queue) {
  struct list *l = list_of(backend);
  if (!l)
    return;
  pthread_mutex_lock(&l->lock);
  size_t kept = 0;
  for (size_t i = 0; i < l->count; i++) {
    struct tracer_pending *p = item(l, i);
    if (queue && p->queue != queue) {
      if (kept != i)
        memcpy(item(l, kept), p, l->ops->size);
      kept++;
    } else {
      l->ops->release(p);
    }
  }
  __atomic_store_n(&l->count, kept, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&l->lock);
}

void tracer_pending_record(const char *backend, const struct tracer_pending *p, uint64_t start_raw,
                           uint64_t end_raw) {
  tracer_device_command_of(&p->call, backend, p->kind, p->name, p->bytes, p->queue,
                           tracer_clock_raw_to_trace(start_raw),
                           tracer_clock_raw_to_trace(end_raw));
}

static void drain_all_at_exit(void) {
  unsigned n = __atomic_load_n(&list_count, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++)
    if (lists[i].ops->drain_at_exit)
      tracer_pending_drain(lists[i].ops->backend, true);
}
