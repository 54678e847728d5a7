/* Level Zero hooks: what no spec can say about timing Level Zero commands.
 *
 * - Device times come from kernel timestamps. Every event pool the app creates gets
 *   ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP; a command appended without a signal event gets
 *   one of the hooks' own, from a timestamp pool per context, given back when its times
 *   are read (immediate lists) or when the command list is reset or destroyed (regular
 *   lists, whose commands run once per zeCommandQueueExecuteCommandLists). Pools are
 *   destroyed with their context, so the app leaks nothing.
 * - Commands on an immediate list are pending (tracer_pending.h) from the append, those
 *   on a regular list from each execution. Pending commands whose event has signalled are
 *   read after the spec's synchronizing calls and after event queries.
 * - Device ticks go onto the host's clock through zeDeviceGetGlobalTimestamps (sampled
 *   once per drain and device) and the device's timer frequency (tracer_device_clock.h).
 * - Kernels are named by zeKernelGetName (else by the name they were created with:
 *   trace.kernel_names); copies by where their ends live, from zeMemGetAllocProperties
 *   (else the allocations the runtime keeps from the spec's trace.calls).
 * - Extension functions from zeDriverGetExtensionFunctionAddress are replaced by the
 *   interposer's wrapper of the same name when the loader exports that name too.
 *   (ze_dispatch.c, generated, does the same for the ze*GetProcAddrTable tables.)
 *
 * Calls the hooks make to Level Zero go through ze_depth, so they are not traced. One
 * lock guards the hooks' pools and lists; the pending commands' lock, when both are
 * taken, is taken first. None of them is on the path of untraced calls.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_device_clock.h"
#include "tracer_pending.h"
#include "ze_args.h"

static pthread_mutex_t ze_lock = PTHREAD_MUTEX_INITIALIZER;

/* A growable array of fixed-size items. */
struct vec {
  void *items;
  size_t count, cap, size;
};

static void *vec_push(struct vec *v) {
  if (v->count == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 16;
    void *grown = realloc(v->items, cap * v->size);
    if (!grown)
      return NULL;
    v->items = grown;
    v->cap = cap;
  }
  void *item = (char *)v->items + v->count++ * v->size;
  memset(item, 0, v->size);
  return item;
}

static void *vec_at(const struct vec *v, size_t i) { return (char *)v->items + i * v->size; }

static void vec_remove(struct vec *v, size_t i) {
  memmove(vec_at(v, i), vec_at(v, i + 1), (v->count - i - 1) * v->size);
  v->count--;
}

/* ---- the hooks' own timestamp events, by context ---- */

enum { POOL_EVENTS = 256 };

struct pool {
  ze_context_handle_t context;
  ze_event_pool_handle_t handle;
  ze_event_handle_t events[POOL_EVENTS];
  bool used[POOL_EVENTS];
  struct pool *next;
};

/* An event of one of the pools; the command that signals it holds it. */
struct own_event {
  struct pool *pool;
  unsigned index;
};

static struct pool *pools;

static struct pool *pool_new(ze_context_handle_t context) {
  struct pool *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  ze_event_pool_desc_t desc = {
      .stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
      .flags = ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
      .count = POOL_EVENTS,
  };
  if (zeEventPoolCreate(context, &desc, 0, NULL, &p->handle) != ZE_RESULT_SUCCESS) {
    free(p);
    return NULL;
  }
  p->context = context;
  p->next = pools;
  pools = p;
  return p;
}

/* Takes a free event of context's pools (making a pool when all are in use). */
static bool own_event_take(ze_context_handle_t context, struct own_event *out,
                           ze_event_handle_t *event) {
  for (struct pool *p = pools;; p = p->next) {
    if (!p && !(p = pool_new(context)))
      return false;
    if (p->context != context)
      continue;
    for (unsigned i = 0; i < POOL_EVENTS; i++) {
      if (p->used[i])
        continue;
      if (!p->events[i]) {
        ze_event_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
                                .index = i,
                                .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                                .wait = ZE_EVENT_SCOPE_FLAG_HOST};
        if (zeEventCreate(p->handle, &desc, &p->events[i]) != ZE_RESULT_SUCCESS)
          return false;
      }
      p->used[i] = true;
      *out = (struct own_event){p, i};
      *event = p->events[i];
      return true;
    }
  }
}

static void own_event_give_back(const struct own_event *e) {
  if (!e->pool)
    return;
  zeEventHostReset(e->pool->events[e->index]);
  e->pool->used[e->index] = false;
}

static void pools_destroy(ze_context_handle_t context) {
  for (struct pool **link = &pools; *link;) {
    struct pool *p = *link;
    if (p->context != context) {
      link = &p->next;
      continue;
    }
    for (unsigned i = 0; i < POOL_EVENTS; i++)
      if (p->events[i])
        zeEventDestroy(p->events[i]);
    zeEventPoolDestroy(p->handle);
    *link = p->next;
    free(p);
  }
}

/* ---- command lists ---- */

/* A command appended to a list, pending once it runs. */
struct ze_pending {
  struct tracer_pending base;
  ze_event_handle_t event;
  struct own_event own; /* pool NULL when the app gave the event */
  ze_device_handle_t device;
  bool give_back; /* the own event goes back once read: an immediate list's */
};

struct list {
  ze_command_list_handle_t handle;
  ze_context_handle_t context;
  ze_device_handle_t device;
  bool immediate;
  struct vec recorded; /* struct ze_pending: a regular list's commands since its reset */
};

static struct vec lists = {.size = sizeof(struct list)};

static struct list *list_find(ze_command_list_handle_t handle) {
  for (size_t i = 0; i < lists.count; i++) {
    struct list *l = vec_at(&lists, i);
    if (l->handle == handle)
      return l;
  }
  return NULL;
}

static void give_back_recorded(struct list *l) {
  for (size_t i = 0; i < l->recorded.count; i++)
    own_event_give_back(&((struct ze_pending *)vec_at(&l->recorded, i))->own);
  l->recorded.count = 0;
}

static void list_add(ze_command_list_handle_t handle, ze_context_handle_t context,
                     ze_device_handle_t device, bool immediate) {
  pthread_mutex_lock(&ze_lock);
  struct list *l = list_find(handle); /* a handle the driver gives again */
  if (!l && (l = vec_push(&lists)))
    l->recorded.size = sizeof(struct ze_pending);
  if (l) {
    give_back_recorded(l);
    l->handle = handle;
    l->context = context;
    l->device = device;
    l->immediate = immediate;
  }
  pthread_mutex_unlock(&ze_lock);
}

void ze_hook_zeCommandListCreate_after(struct ze_zeCommandListCreate_args *args) {
  if (args->tracer_result == ZE_RESULT_SUCCESS && args->phCommandList)
    list_add(*args->phCommandList, args->hContext, args->hDevice, false);
}

void ze_hook_zeCommandListCreateImmediate_after(struct ze_zeCommandListCreateImmediate_args *args) {
  if (args->tracer_result == ZE_RESULT_SUCCESS && args->phCommandList)
    list_add(*args->phCommandList, args->hContext, args->hDevice, true);
}

/* ---- naming ---- */

enum tracer_memory ze_memory_of(const struct tracer_command *command, const void *pointer) {
  pthread_mutex_lock(&ze_lock);
  const struct list *l = list_find((ze_command_list_handle_t)command->queue);
  ze_context_handle_t context = l ? l->context : NULL;
  pthread_mutex_unlock(&ze_lock);
  ze_memory_allocation_properties_t props = {
      .stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, .type = ZE_MEMORY_TYPE_UNKNOWN};
  ze_depth++;
  if (context && zeMemGetAllocProperties(context, pointer, &props, NULL) != ZE_RESULT_SUCCESS)
    props.type = ZE_MEMORY_TYPE_UNKNOWN;
  ze_depth--;
  switch (props.type) {
  case ZE_MEMORY_TYPE_HOST: return TRACER_MEMORY_HOST;
  case ZE_MEMORY_TYPE_DEVICE: return TRACER_MEMORY_DEVICE;
  case ZE_MEMORY_TYPE_SHARED: return TRACER_MEMORY_SHARED;
  /* A driver that does not know (the null driver answers nothing): the app's own
   * allocations say it. */
  default: return tracer_allocation_memory("ze", pointer);
  }
}

bool ze_kernel_name(const struct tracer_command *command, char *name, size_t size) {
  ze_kernel_handle_t kernel = (ze_kernel_handle_t)command->kernel;
  size_t length = 0;
  name[0] = '\0';
  ze_depth++;
  if (zeKernelGetName(kernel, &length, NULL) == ZE_RESULT_SUCCESS && length > 1 && length <= size)
    zeKernelGetName(kernel, &length, name);
  ze_depth--;
  return name[0] != '\0';
}

/* ---- commands ---- */

static enum tracer_pending_state ze_read(struct tracer_pending *pending, bool wait, unsigned drain,
                                         uint64_t *start, uint64_t *end);
static void ze_release(struct tracer_pending *pending);
static const struct tracer_pending_ops ze_pending_ops = {"ze", sizeof(struct ze_pending), ze_read,
                                                         ze_release, false};

void ze_command_begin(struct tracer_command *command) {
  ze_event_handle_t *slot = (ze_event_handle_t *)command->completion;
  if (!slot || *slot)
    return;
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  const struct list *l = list_find((ze_command_list_handle_t)command->queue);
  struct own_event *own = calloc(1, sizeof *own);
  if (l && own && own_event_take(l->context, own, slot)) {
    command->hook_event = own;
    command->hook_owns_event = 1;
  } else {
    free(own);
  }
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
}

void ze_command_end(struct tracer_command *command, int64_t status) {
  ze_event_handle_t *slot = (ze_event_handle_t *)command->completion;
  struct ze_pending c = {.event = slot ? *slot : NULL};
  tracer_pending_init(&c.base, command);
  if (command->hook_owns_event) {
    c.own = *(struct own_event *)command->hook_event;
    free(command->hook_event);
    *slot = NULL; /* the app passed none: its arguments are recorded as they were */
  }
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  struct list *l = list_find((ze_command_list_handle_t)command->queue);
  bool immediate = status == ZE_RESULT_SUCCESS && c.event && l && l->immediate;
  struct ze_pending *recorded = NULL;
  if (l) {
    c.device = l->device;
    c.give_back = immediate;
  }
  if (status == ZE_RESULT_SUCCESS && c.event && l && !immediate &&
      (recorded = vec_push(&l->recorded)))
    *recorded = c;
  else if (!immediate)
    own_event_give_back(&c.own);
  pthread_mutex_unlock(&ze_lock);
  if (immediate)
    tracer_pending_add(&ze_pending_ops, &c.base);
  ze_depth--;
}

void ze_hook_zeCommandQueueExecuteCommandLists_after(
    struct ze_zeCommandQueueExecuteCommandLists_args *args) {
  if (args->tracer_result != ZE_RESULT_SUCCESS || !args->phCommandLists)
    return;
  struct vec run = {.size = sizeof(struct ze_pending)};
  pthread_mutex_lock(&ze_lock);
  for (uint32_t i = 0; i < args->numCommandLists; i++) {
    const struct list *l = list_find(args->phCommandLists[i]);
    for (size_t k = 0; l && k < l->recorded.count; k++) {
      struct ze_pending *p = vec_push(&run);
      if (p) /* the list keeps its own events: it may run again */
        *p = *(struct ze_pending *)vec_at(&l->recorded, k);
    }
  }
  pthread_mutex_unlock(&ze_lock);
  for (size_t k = 0; k < run.count; k++)
    tracer_pending_add(&ze_pending_ops, vec_at(&run, k));
  free(run.items);
}

/* ---- device times ---- */

/* A device's clock against the host's (zeDeviceGetGlobalTimestamps). */
static bool clock_sync(ze_device_handle_t device, struct tracer_device_clock *clock) {
  ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
  if (zeDeviceGetProperties(device, &props) != ZE_RESULT_SUCCESS)
    return false;
  *clock = (struct tracer_device_clock){.valid_bits = props.kernelTimestampValidBits};
  /* A driver that answers with the older structure gives nanoseconds per tick. */
  if (props.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2)
    clock->ticks_per_second = props.timerResolution;
  else if (props.timerResolution)
    clock->ticks_per_second = 1000000000u / props.timerResolution;
  return zeDeviceGetGlobalTimestamps(device, &clock->host_ns, &clock->device_ticks) ==
         ZE_RESULT_SUCCESS;
}

/* A command's times once its event has signalled; the clock is synced once per drain and
 * device. Runs with the pending commands locked. */
static enum tracer_pending_state ze_read(struct tracer_pending *pending, bool wait, unsigned drain,
                                         uint64_t *start, uint64_t *end) {
  static struct {
    ze_device_handle_t device;
    unsigned drain;
    bool synced;
    struct tracer_device_clock clock;
  } sync;
  struct ze_pending *p = (struct ze_pending *)pending;
  enum tracer_pending_state state = TRACER_PENDING_RUNNING;
  (void)wait; /* only ever asked for what is done */
  ze_depth++;
  if (zeEventQueryStatus(p->event) == ZE_RESULT_SUCCESS) {
    if (!sync.synced || sync.device != p->device || sync.drain != drain) {
      sync.device = p->device, sync.drain = drain;
      sync.synced = clock_sync(p->device, &sync.clock);
    }
    ze_kernel_timestamp_result_t ts = {0};
    state = sync.synced && zeEventQueryKernelTimestamp(p->event, &ts) == ZE_RESULT_SUCCESS
                ? TRACER_PENDING_READ
                : TRACER_PENDING_LOST;
    if (state == TRACER_PENDING_READ)
      tracer_device_span(&sync.clock, ts.global.kernelStart, ts.global.kernelEnd, start, end);
  }
  ze_depth--;
  return state;
}

static void ze_release(struct tracer_pending *pending) {
  struct ze_pending *p = (struct ze_pending *)pending;
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  if (p->give_back)
    own_event_give_back(&p->own);
  else if (p->own.pool)
    zeEventHostReset(p->event); /* ready for the list's next run */
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
}

void ze_hook_zeEventQueryStatus_after(struct ze_zeEventQueryStatus_args *args) {
  if (args->tracer_result == ZE_RESULT_SUCCESS)
    tracer_pending_drain("ze", false);
}

/* A list reset or destroyed: its commands are read if done, then its events go back. */
static void list_forget(ze_command_list_handle_t handle, bool destroy) {
  tracer_pending_drain("ze", false);
  tracer_pending_forget("ze", (uintptr_t)handle); /* never ran: their events go back */
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  struct list *l = list_find(handle);
  if (l) {
    give_back_recorded(l);
    if (destroy) {
      free(l->recorded.items);
      vec_remove(&lists, (size_t)(l - (struct list *)lists.items));
    }
  }
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
}

void ze_hook_zeCommandListReset_before(struct ze_zeCommandListReset_args *args) {
  list_forget(args->hCommandList, false);
}

void ze_hook_zeCommandListDestroy_before(struct ze_zeCommandListDestroy_args *args) {
  list_forget(args->hCommandList, true);
}

void ze_hook_zeContextDestroy_before(struct ze_zeContextDestroy_args *args) {
  tracer_pending_drain("ze", false);
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  pools_destroy(args->hContext);
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
}

/* Event pools of the app record kernel timestamps too. The copy must outlive the hook
 * (the real call comes after), so it lives in thread-local storage. */
void ze_hook_zeEventPoolCreate_before(struct ze_zeEventPoolCreate_args *args) {
  static __thread ze_event_pool_desc_t with_timestamps;
  if (!args->desc)
    return;
  with_timestamps = *args->desc;
  with_timestamps.flags |= ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
  args->desc = &with_timestamps;
}

/* ---- extension functions ---- */

void ze_hook_zeDriverGetExtensionFunctionAddress_after(
    struct ze_zeDriverGetExtensionFunctionAddress_args *args) {
  if (args->tracer_result != ZE_RESULT_SUCCESS || !args->name || !args->ppFunctionAddress ||
      !*args->ppFunctionAddress)
    return;
  /* The wrapper calls the loader's export of that name: replace only when there is one. */
  void *loader = tracer_loaded_library("libze_loader.so.1");
  Dl_info self;
  void *own = NULL;
  if (dladdr((const void *)ze_hook_zeDriverGetExtensionFunctionAddress_after, &self))
    own = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  void *wrapper = own ? dlsym(own, args->name) : NULL;
  if (wrapper && loader && dlsym(loader, args->name))
    *args->ppFunctionAddress = wrapper;
  if (own)
    dlclose(own);
}
