/* Level Zero hooks: what no template can know about timing Level Zero commands.
 *
 * - Device times come from kernel timestamps. Every event pool the app creates gets
 *   ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP; a command appended without a signal event gets
 *   one of the hooks' own, from a timestamp pool per context, released when its times
 *   are read (immediate lists) or when the command list is reset or destroyed (regular
 *   lists, whose commands run once per zeCommandQueueExecuteCommandLists). Pools are
 *   destroyed with their context, so the app leaks nothing.
 * - Commands on an immediate list are pending from the append, those on a regular list
 *   from each execution. Pending commands whose event has signalled are read after the
 *   app's synchronizing calls and event queries, and recorded as device_command events.
 * - Device ticks go onto the trace clock through zeDeviceGetGlobalTimestamps (sampled at
 *   each read) and the device's timer frequency; its host side is CLOCK_MONOTONIC_RAW
 *   nanoseconds, which the runtime converts.
 * - Kernels are named by zeKernelGetName, else by the name given to zeKernelCreate;
 *   copies by where their ends live (zeMemGetAllocProperties, else the allocations the
 *   app made through the traced zeMemAlloc* calls): "zeCommandListAppendMemoryCopy(H2D)"
 *   with H host, D device, S shared, M other (malloc'd) memory.
 * - Extension functions from zeDriverGetExtensionFunctionAddress are replaced by the
 *   interposer's wrapper of the same name when the loader exports that name too.
 *   (ze_dispatch.c, generated, does the same for the ze*GetProcAddrTable tables.)
 *
 * Calls the hooks make to Level Zero go through ze_depth, so they are not traced. One
 * lock guards the hooks' tables; none of them is on the path of untraced calls.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ze_args.h"
#include "tracer_runtime.h"

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

/* ---- what is known about handles ---- */

/* A command appended to a list: what its device_command event will say. */
struct command {
  ze_event_handle_t event;
  struct own_event own; /* pool NULL when the app gave the event */
  enum tracer_command_kind kind;
  uint64_t bytes;
  uintptr_t queue;
  ze_device_handle_t device;
  struct tracer_call_id call; /* the append call */
  char name[128];
};

struct list {
  ze_command_list_handle_t handle;
  ze_context_handle_t context;
  ze_device_handle_t device;
  bool immediate;
  struct vec recorded; /* struct command: a regular list's commands since its reset */
};

struct kernel_name {
  ze_kernel_handle_t kernel;
  char name[128];
};

struct allocation {
  uintptr_t start;
  size_t size;
  ze_memory_type_t type;
};

/* A command that runs or has run on the device, not yet read. */
struct pending {
  struct command command;
  bool give_back; /* the own event goes back to its pool once read */
};

static struct vec lists = {.size = sizeof(struct list)};
static struct vec kernel_names = {.size = sizeof(struct kernel_name)};
static struct vec allocations = {.size = sizeof(struct allocation)};
static struct vec pending = {.size = sizeof(struct pending)};

static struct list *list_find(ze_command_list_handle_t handle) {
  for (size_t i = 0; i < lists.count; i++) {
    struct list *l = vec_at(&lists, i);
    if (l->handle == handle)
      return l;
  }
  return NULL;
}

static void list_add(ze_command_list_handle_t handle, ze_context_handle_t context,
                     ze_device_handle_t device, bool immediate) {
  pthread_mutex_lock(&ze_lock);
  struct list *l = list_find(handle); /* a handle the driver gives again */
  if (!l && (l = vec_push(&lists)))
    l->recorded.size = sizeof(struct command);
  if (l) {
    for (size_t i = 0; i < l->recorded.count; i++)
      own_event_give_back(&((struct command *)vec_at(&l->recorded, i))->own);
    l->recorded.count = 0;
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

void ze_hook_zeCommandListCreateImmediate_after(
    struct ze_zeCommandListCreateImmediate_args *args) {
  if (args->tracer_result == ZE_RESULT_SUCCESS && args->phCommandList)
    list_add(*args->phCommandList, args->hContext, args->hDevice, true);
}

void ze_hook_zeKernelCreate_after(struct ze_zeKernelCreate_args *args) {
  if (args->tracer_result != ZE_RESULT_SUCCESS || !args->phKernel || !args->desc ||
      !args->desc->pKernelName)
    return;
  pthread_mutex_lock(&ze_lock);
  struct kernel_name *k = NULL;
  for (size_t i = 0; i < kernel_names.count && !k; i++)
    if (((struct kernel_name *)vec_at(&kernel_names, i))->kernel == *args->phKernel)
      k = vec_at(&kernel_names, i);
  if (k || (k = vec_push(&kernel_names))) {
    k->kernel = *args->phKernel;
    snprintf(k->name, sizeof k->name, "%s", args->desc->pKernelName);
  }
  pthread_mutex_unlock(&ze_lock);
}

static void allocation_add(void **pptr, size_t size, ze_memory_type_t type) {
  if (!pptr || !*pptr)
    return;
  pthread_mutex_lock(&ze_lock);
  struct allocation *a = vec_push(&allocations);
  if (a)
    *a = (struct allocation){(uintptr_t)*pptr, size, type};
  pthread_mutex_unlock(&ze_lock);
}

void ze_hook_zeMemAllocDevice_after(struct ze_zeMemAllocDevice_args *args) {
  if (args->tracer_result == ZE_RESULT_SUCCESS)
    allocation_add(args->pptr, args->size, ZE_MEMORY_TYPE_DEVICE);
}

void ze_hook_zeMemAllocHost_after(struct ze_zeMemAllocHost_args *args) {
  if (args->tracer_result == ZE_RESULT_SUCCESS)
    allocation_add(args->pptr, args->size, ZE_MEMORY_TYPE_HOST);
}

void ze_hook_zeMemAllocShared_after(struct ze_zeMemAllocShared_args *args) {
  if (args->tracer_result == ZE_RESULT_SUCCESS)
    allocation_add(args->pptr, args->size, ZE_MEMORY_TYPE_SHARED);
}

void ze_hook_zeMemFree_before(struct ze_zeMemFree_args *args) {
  pthread_mutex_lock(&ze_lock);
  for (size_t i = 0; i < allocations.count; i++)
    if (((struct allocation *)vec_at(&allocations, i))->start == (uintptr_t)args->ptr) {
      vec_remove(&allocations, i);
      break;
    }
  pthread_mutex_unlock(&ze_lock);
}

/* ---- naming ---- */

/* Where memory lives: H, D, S, or M for memory Level Zero did not allocate. */
static char memory_letter(ze_context_handle_t context, const void *ptr) {
  ze_memory_allocation_properties_t props = {
      .stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES,
      .type = ZE_MEMORY_TYPE_UNKNOWN};
  ze_memory_type_t type = ZE_MEMORY_TYPE_UNKNOWN;
  if (context && zeMemGetAllocProperties(context, ptr, &props, NULL) == ZE_RESULT_SUCCESS)
    type = props.type;
  /* A driver that does not know (the null driver answers nothing): the app's own
   * allocations say it. Called with ze_lock held. */
  for (size_t i = 0; type == ZE_MEMORY_TYPE_UNKNOWN && i < allocations.count; i++) {
    const struct allocation *a = vec_at(&allocations, i);
    if ((uintptr_t)ptr >= a->start && (uintptr_t)ptr - a->start < a->size)
      type = a->type;
  }
  switch (type) {
  case ZE_MEMORY_TYPE_HOST: return 'H';
  case ZE_MEMORY_TYPE_DEVICE: return 'D';
  case ZE_MEMORY_TYPE_SHARED: return 'S';
  default: return 'M';
  }
}

/* The copy being appended on this thread, named by its before hook. */
static __thread char copy_name[64];

void ze_hook_zeCommandListAppendMemoryCopy_before(
    struct ze_zeCommandListAppendMemoryCopy_args *args) {
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  const struct list *l = list_find(args->hCommandList);
  ze_context_handle_t context = l ? l->context : NULL;
  char src = memory_letter(context, args->srcptr);
  char dst = memory_letter(context, args->dstptr);
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
  snprintf(copy_name, sizeof copy_name, "zeCommandListAppendMemoryCopy(%c2%c)", src, dst);
}

static void kernel_name(ze_kernel_handle_t kernel, char *name, size_t size) {
  size_t length = 0;
  name[0] = '\0';
  if (zeKernelGetName(kernel, &length, NULL) == ZE_RESULT_SUCCESS && length > 1 &&
      length <= size)
    zeKernelGetName(kernel, &length, name);
  if (name[0])
    return;
  pthread_mutex_lock(&ze_lock);
  for (size_t i = 0; i < kernel_names.count; i++) {
    const struct kernel_name *k = vec_at(&kernel_names, i);
    if (k->kernel == kernel)
      snprintf(name, size, "%s", k->name);
  }
  pthread_mutex_unlock(&ze_lock);
}

/* ---- commands ---- */

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
  struct command c = {.kind = command->kind, .bytes = command->bytes, .queue = command->queue,
                      .call = tracer_call_returned()};
  c.event = slot ? *slot : NULL;
  if (command->hook_owns_event) {
    c.own = *(struct own_event *)command->hook_event;
    free(command->hook_event);
    *slot = NULL; /* the app passed none: its arguments are recorded as they were */
  }
  ze_depth++;
  if (command->kind == TRACER_COMMAND_KERNEL)
    kernel_name((ze_kernel_handle_t)command->kernel, c.name, sizeof c.name);
  else if (strcmp(command->name, "zeCommandListAppendMemoryCopy") == 0 && copy_name[0])
    snprintf(c.name, sizeof c.name, "%s", copy_name);
  if (!c.name[0])
    snprintf(c.name, sizeof c.name, "%s", command->name);
  copy_name[0] = '\0';
  pthread_mutex_lock(&ze_lock);
  struct list *l = list_find((ze_command_list_handle_t)command->queue);
  if (status != ZE_RESULT_SUCCESS || !c.event || !l) {
    own_event_give_back(&c.own);
  } else if (l->immediate) {
    c.device = l->device;
    struct pending *p = vec_push(&pending);
    if (p)
      *p = (struct pending){c, true};
    else
      own_event_give_back(&c.own);
  } else {
    c.device = l->device;
    struct command *r = vec_push(&l->recorded);
    if (r)
      *r = c;
    else
      own_event_give_back(&c.own);
  }
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
}

void ze_hook_zeCommandQueueExecuteCommandLists_after(
    struct ze_zeCommandQueueExecuteCommandLists_args *args) {
  if (args->tracer_result != ZE_RESULT_SUCCESS || !args->phCommandLists)
    return;
  pthread_mutex_lock(&ze_lock);
  for (uint32_t i = 0; i < args->numCommandLists; i++) {
    const struct list *l = list_find(args->phCommandLists[i]);
    for (size_t k = 0; l && k < l->recorded.count; k++) {
      struct pending *p = vec_push(&pending);
      if (p) /* the list keeps its own events: it may run again */
        *p = (struct pending){*(struct command *)vec_at(&l->recorded, k), false};
    }
  }
  pthread_mutex_unlock(&ze_lock);
}

/* ---- device times ---- */

/* A device's clock against the host's at one moment (zeDeviceGetGlobalTimestamps), and
 * what converts its ticks. */
struct ze_clock_sync {
  uint64_t host_ns;          /* CLOCK_MONOTONIC_RAW */
  uint64_t device_ticks;
  uint64_t ticks_per_second; /* timerResolution of ze_device_properties_t (1.2 units) */
  uint32_t valid_bits;       /* kernelTimestampValidBits */
};

static uint64_t valid_mask(uint32_t bits) { return bits && bits < 64 ? (1ull << bits) - 1 : ~0ull; }

/* The host time of a kernel timestamp: ticks are counted from the sync point's device
 * time, modulo the valid bits, and may lie a little before it. */
static uint64_t ze_ticks_to_host_ns(const struct ze_clock_sync *sync, uint64_t ticks) {
  uint64_t mask = valid_mask(sync->valid_bits);
  uint64_t ahead = (ticks - sync->device_ticks) & mask;
  int64_t delta = ahead > mask / 2 ? -(int64_t)(((sync->device_ticks - ticks) & mask))
                                   : (int64_t)ahead;
  uint64_t rate = sync->ticks_per_second ? sync->ticks_per_second : 1000000000u;
  int64_t ns = (int64_t)((__int128)delta * 1000000000 / (__int128)rate);
  return sync->host_ns + (uint64_t)ns;
}

/* A command's start and end in host nanoseconds; an end past the counter's wrap is
 * after the start. */
static void ze_kernel_times(const struct ze_clock_sync *sync,
                            const ze_kernel_timestamp_result_t *ts, uint64_t *start,
                            uint64_t *end) {
  uint64_t mask = valid_mask(sync->valid_bits);
  uint64_t duration = (ts->global.kernelEnd - ts->global.kernelStart) & mask;
  uint64_t rate = sync->ticks_per_second ? sync->ticks_per_second : 1000000000u;
  *start = ze_ticks_to_host_ns(sync, ts->global.kernelStart);
  *end = *start + (uint64_t)((__int128)duration * 1000000000 / (__int128)rate);
}

static bool clock_sync(ze_device_handle_t device, struct ze_clock_sync *sync) {
  ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
  if (zeDeviceGetProperties(device, &props) != ZE_RESULT_SUCCESS)
    return false;
  *sync = (struct ze_clock_sync){.valid_bits = props.kernelTimestampValidBits};
  /* A driver that answers with the older structure gives nanoseconds per tick. */
  if (props.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2)
    sync->ticks_per_second = props.timerResolution;
  else if (props.timerResolution)
    sync->ticks_per_second = 1000000000u / props.timerResolution;
  return zeDeviceGetGlobalTimestamps(device, &sync->host_ns, &sync->device_ticks) ==
         ZE_RESULT_SUCCESS;
}

/* Records every pending command whose event has signalled. */
static void read_finished(void) {
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  ze_device_handle_t synced = NULL;
  struct ze_clock_sync sync = {0};
  bool have_sync = false;
  for (size_t i = 0; i < pending.count;) {
    struct pending *p = vec_at(&pending, i);
    if (zeEventQueryStatus(p->command.event) != ZE_RESULT_SUCCESS) {
      i++;
      continue;
    }
    if (p->command.device != synced || !have_sync) {
      synced = p->command.device;
      have_sync = clock_sync(synced, &sync);
    }
    ze_kernel_timestamp_result_t ts = {0};
    uint64_t start, end;
    if (have_sync &&
        zeEventQueryKernelTimestamp(p->command.event, &ts) == ZE_RESULT_SUCCESS) {
      ze_kernel_times(&sync, &ts, &start, &end);
      tracer_device_command_of(&p->command.call, "ze", p->command.kind, p->command.name,
                               p->command.bytes, p->command.queue,
                               tracer_clock_raw_to_trace(start), tracer_clock_raw_to_trace(end));
    } else {
      tracer_debug("no kernel timestamps for %s", p->command.name);
    }
    if (p->give_back)
      own_event_give_back(&p->command.own);
    else if (p->command.own.pool)
      zeEventHostReset(p->command.event); /* ready for the list's next run */
    vec_remove(&pending, i);
  }
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
}

void ze_hook_zeCommandQueueSynchronize_after(struct ze_zeCommandQueueSynchronize_args *args) {
  (void)args;
  read_finished();
}

void ze_hook_zeEventHostSynchronize_after(struct ze_zeEventHostSynchronize_args *args) {
  (void)args;
  read_finished();
}

void ze_hook_zeFenceHostSynchronize_after(struct ze_zeFenceHostSynchronize_args *args) {
  (void)args;
  read_finished();
}

void ze_hook_zeEventQueryStatus_after(struct ze_zeEventQueryStatus_args *args) {
  if (args->tracer_result == ZE_RESULT_SUCCESS)
    read_finished();
}

/* A list reset or destroyed: its commands are read if done, then its events go back. */
static void list_forget(ze_command_list_handle_t handle, bool destroy) {
  read_finished();
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  struct list *l = list_find(handle);
  if (l) {
    /* Pending commands of the list that never ran lose their event too. */
    for (size_t i = 0; i < pending.count;) {
      struct pending *p = vec_at(&pending, i);
      if (p->command.queue == (uintptr_t)handle) {
        if (p->give_back)
          own_event_give_back(&p->command.own);
        vec_remove(&pending, i);
      } else {
        i++;
      }
    }
    for (size_t i = 0; i < l->recorded.count; i++)
      own_event_give_back(&((struct command *)vec_at(&l->recorded, i))->own);
    l->recorded.count = 0;
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
  read_finished();
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
