/* tracer_pending: see tracer_pending.h. */
#include "tracer_pending.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_runtime.h"

/* A growable array of commands, each of its backend's ops->size bytes. */
struct commands {
  char *items;
  size_t count, cap;
};

/* A command list of trace.command_lists, and the commands recorded on it. */
struct command_list {
  uintptr_t handle, context, device;
  bool immediate;
  struct commands recorded;
};

/* By the runtime's number of the backend (tracer_backend_index). */
static struct backend {
  const struct tracer_pending_ops *ops; /* NULL until its first command */
  pthread_mutex_t lock;
  struct commands pending;
  struct command_list *lists;
  size_t list_count, list_cap;
  unsigned drains;
} backends[TRACER_BACKENDS] = {[0 ... TRACER_BACKENDS - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};
static pthread_mutex_t exit_lock = PTHREAD_MUTEX_INITIALIZER;

/* A drain reads through the backend's API, whose calls must not drain again. */
static __thread bool draining;

static void drain_all_at_exit(void);

static struct backend *backend_of(const char *name) {
  int index = tracer_backend_index(name);
  return index < 0 ? NULL : &backends[index];
}

/* Its first command tells the backend's ops. Called with b->lock held. */
static void set_ops(struct backend *b, const struct tracer_pending_ops *ops) {
  static bool exit_drain;
  if (b->ops)
    return;
  __atomic_store_n(&b->ops, ops, __ATOMIC_RELEASE);
  pthread_mutex_lock(&exit_lock);
  if (ops->drain_at_exit && !exit_drain)
    exit_drain = atexit(drain_all_at_exit) == 0;
  pthread_mutex_unlock(&exit_lock);
}

static struct tracer_pending *item(const struct backend *b, const struct commands *c, size_t i) {
  return (struct tracer_pending *)(c->items + i * b->ops->size);
}

/* Appends a copy of p; false when there is no room. */
static bool push(const struct backend *b, struct commands *c, const struct tracer_pending *p) {
  if (c->count == c->cap && c->cap < TRACER_PENDING_MAX) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    char *grown = realloc(c->items, cap * b->ops->size);
    if (grown)
      c->items = grown, c->cap = cap;
  }
  if (c->count == c->cap)
    return false;
  memcpy(item(b, c, c->count), p, b->ops->size);
  __atomic_store_n(&c->count, c->count + 1, __ATOMIC_RELEASE);
  return true;
}

/* A pending command is done with unless it is one run of a recorded list's command. */
static void release(const struct backend *b, struct tracer_pending *p) {
  b->ops->release(p, !p->recorded);
}

/* Called with the lock held. */
static void drain_locked(struct backend *b, bool wait) {
  unsigned drain = ++b->drains;
  size_t kept = 0;
  for (size_t i = 0; i < b->pending.count; i++) {
    struct tracer_pending *p = item(b, &b->pending, i);
    uint64_t start = 0, end = 0;
    enum tracer_pending_state state = b->ops->read(p, wait, drain, &start, &end);
    if (state == TRACER_PENDING_RUNNING) {
      if (kept != i)
        memcpy(item(b, &b->pending, kept), p, b->ops->size);
      kept++;
      continue;
    }
    if (state == TRACER_PENDING_READ)
      tracer_pending_record(b->ops->backend, p, start, end);
    else
      tracer_debug("no device times for %s", p->name);
    release(b, p);
  }
  __atomic_store_n(&b->pending.count, kept, __ATOMIC_RELEASE);
}

static struct command_list *list_of(struct backend *b, uintptr_t handle) {
  for (size_t i = 0; i < b->list_count; i++)
    if (b->lists[i].handle == handle)
      return &b->lists[i];
  return NULL;
}

/* Releases, for good, what a list recorded. Called with the lock held. */
static void forget_recorded(struct backend *b, struct command_list *l) {
  for (size_t i = 0; b->ops && i < l->recorded.count; i++)
    b->ops->release(item(b, &l->recorded, i), true);
  l->recorded.count = 0;
}

void tracer_pending_init(struct tracer_pending *p, const struct tracer_command *command) {
  p->call = tracer_call_returned();
  p->kind = command->kind;
  p->bytes = command->bytes;
  p->queue = command->queue;
  p->device = tracer_command_device(command);
  p->recorded = false;
  tracer_command_name(command, p->name, sizeof p->name);
}

void tracer_pending_add(const struct tracer_pending_ops *ops, const struct tracer_pending *p) {
  struct backend *b = draining ? NULL : backend_of(ops->backend);
  if (!b) {
    ops->release((struct tracer_pending *)p, true);
    return;
  }
  pthread_mutex_lock(&b->lock);
  set_ops(b, ops);
  struct command_list *l = list_of(b, p->queue);
  bool kept;
  if (l && !l->immediate) {
    kept = push(b, &l->recorded, p);
  } else {
    draining = true;
    if (b->pending.count >= TRACER_PENDING_DRAIN_AT)
      drain_locked(b, false);
    if (b->pending.count >= TRACER_PENDING_MAX)
      drain_locked(b, true);
    draining = false;
    kept = push(b, &b->pending, p);
  }
  if (!kept)
    ops->release((struct tracer_pending *)p, true);
  pthread_mutex_unlock(&b->lock);
}

void tracer_pending_drain(const char *backend, bool wait) {
  struct backend *b = backend_of(backend);
  if (!b || draining || !__atomic_load_n(&b->pending.count, __ATOMIC_ACQUIRE))
    return;
  pthread_mutex_lock(&b->lock);
  draining = true;
  if (b->ops)
    drain_locked(b, wait);
  draining = false;
  pthread_mutex_unlock(&b->lock);
}

void tracer_pending_record(const char *backend, const struct tracer_pending *p, uint64_t start_raw,
                           uint64_t end_raw) {
  tracer_clock_raw_span_to_trace(&start_raw, &end_raw);
  tracer_device_command_on(&p->call, backend, p->device, p->kind, p->name, p->bytes, p->queue,
                           start_raw, end_raw);
}

void tracer_list_created(const char *backend, uintptr_t list, uintptr_t context, uintptr_t device,
                         bool immediate) {
  struct backend *b = backend_of(backend);
  if (!b)
    return;
  pthread_mutex_lock(&b->lock);
  struct command_list *l = list_of(b, list); /* a handle the driver gives again */
  if (!l && b->list_count == b->list_cap) {
    size_t cap = b->list_cap ? 2 * b->list_cap : 16;
    struct command_list *grown = realloc(b->lists, cap * sizeof *grown);
    if (grown)
      b->lists = grown, b->list_cap = cap;
  }
  if (!l && b->list_count < b->list_cap)
    l = memset(&b->lists[b->list_count++], 0, sizeof *l);
  if (l) {
    forget_recorded(b, l);
    l->handle = list, l->context = context, l->device = device, l->immediate = immediate;
  }
  pthread_mutex_unlock(&b->lock);
}

bool tracer_list_of(const char *backend, uintptr_t list, uintptr_t *context, uintptr_t *device) {
  struct backend *b = backend_of(backend);
  bool found = false;
  if (!b)
    return false;
  pthread_mutex_lock(&b->lock);
  const struct command_list *l = list_of(b, list);
  if ((found = l != NULL))
    *context = l->context, *device = l->device;
  pthread_mutex_unlock(&b->lock);
  return found;
}

void tracer_lists_executed(const char *backend, const void *lists, size_t size, int64_t count) {
  struct backend *b = backend_of(backend);
  if (!b || !lists || size > sizeof(uintptr_t))
    return;
  pthread_mutex_lock(&b->lock);
  for (int64_t i = 0; b->ops && i < count; i++) {
    uintptr_t handle = 0;
    memcpy(&handle, (const char *)lists + (size_t)i * size, size);
    const struct command_list *l = list_of(b, handle);
    for (size_t k = 0; l && k < l->recorded.count; k++) {
      struct tracer_pending *run = item(b, &l->recorded, k);
      run->recorded = true; /* the list keeps what it holds: it may run again */
      push(b, &b->pending, run);
      run->recorded = false;
    }
  }
  pthread_mutex_unlock(&b->lock);
}

void tracer_list_reset(const char *backend, uintptr_t list, bool destroy) {
  struct backend *b = backend_of(backend);
  if (!b)
    return;
  tracer_pending_drain(backend, false);
  pthread_mutex_lock(&b->lock);
  /* Its commands that never ran are released unread. */
  size_t kept = 0;
  for (size_t i = 0; b->ops && i < b->pending.count; i++) {
    struct tracer_pending *p = item(b, &b->pending, i);
    if (p->queue == list) {
      release(b, p);
    } else {
      if (kept != i)
        memcpy(item(b, &b->pending, kept), p, b->ops->size);
      kept++;
    }
  }
  __atomic_store_n(&b->pending.count, kept, __ATOMIC_RELEASE);
  struct command_list *l = list_of(b, list);
  if (l) {
    forget_recorded(b, l);
    if (destroy) {
      free(l->recorded.items);
      *l = b->lists[--b->list_count];
    }
  }
  pthread_mutex_unlock(&b->lock);
}

static void drain_all_at_exit(void) {
  for (unsigned i = 0; i < TRACER_BACKENDS; i++) {
    const struct tracer_pending_ops *ops = __atomic_load_n(&backends[i].ops, __ATOMIC_ACQUIRE);
    if (ops && ops->drain_at_exit)
      tracer_pending_drain(ops->backend, true);
  }
}
