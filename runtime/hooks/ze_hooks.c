/* Level Zero hooks: what no spec can say about timing Level Zero commands.
 *
 * - Device times come from kernel timestamps. Every event pool the app creates gets
 *   ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP (trace.add_flags); a command appended without a
 *   signal event gets one of the hooks' own, from a timestamp pool per context, given
 *   back when its times are read (immediate lists) or when the command list is reset or
 *   destroyed (regular lists, whose commands run once per
 *   zeCommandQueueExecuteCommandLists). Pools are destroyed with their context, so the
 *   app leaks nothing.
 * - Commands on an immediate list are pending (tracer_pending.h) from the append, those
 *   on a regular list from each execution (the spec's trace.command_lists). Pending
 *   commands whose event has signalled are read after the spec's synchronizing calls and
 *   event queries (trace.drain_after).
 * - Device ticks go onto the host's clock through zeDeviceGetGlobalTimestamps (sampled
 *   once per drain and device) and the device's timer frequency (tracer_device_clock.h).
 * - Kernels are named by zeKernelGetName (else by the name they were created with:
 *   trace.kernel_names); copies by where their ends live, from zeMemGetAllocProperties
 *   (else the allocations the runtime keeps from the spec's trace.calls).
 * Extension functions come back as the interposer's wrappers (trace.entry_points), the
 * ze*GetProcAddrTable tables' entries too (trace.dispatch_tables).
 *
 * Calls the hooks make to Level Zero go through ze_depth, so they are not traced. One
 * lock guards the hooks' pools; the pending commands' lock, when both are taken, is taken
 * first. Neither is on the path of untraced calls.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_device_clock.h"
#include "tracer_pending.h"
#include "ze_args.h"

static pthread_mutex_t ze_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* ---- commands ---- */

/* A command appended to a list, pending once it runs (tracer_pending.h). */
struct ze_pending {
  struct tracer_pending base;
  ze_event_handle_t event;
  struct own_event own; /* pool NULL when the app gave the event */
  ze_device_handle_t device;
};

/* The context and device of a command's list (trace.command_lists). */
static ze_context_handle_t list_context(const struct tracer_command *command,
                                        ze_device_handle_t *device) {
  uintptr_t context = 0, on = 0;
  tracer_list_of("ze", command->queue, &context, &on);
  if (device)
    *device = (ze_device_handle_t)on;
  return (ze_context_handle_t)context;
}

/* ---- naming ---- */

/* A device's index among its driver's devices, named by zeDeviceGetProperties. */
int32_t ze_device_find(uintptr_t handle, char *name, size_t size) {
  enum { MAX_DEVICES = 64, MAX_DRIVERS = 8 };
  ze_device_handle_t device = (ze_device_handle_t)handle;
  ze_driver_handle_t drivers[MAX_DRIVERS];
  ze_device_handle_t devices[MAX_DEVICES];
  uint32_t driver_count = 0;
  int32_t ordinal = TRACER_DEVICE_UNKNOWN;
  ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  ze_device_properties_t other = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  ze_depth++;
  bool named = zeDeviceGetProperties(device, &props) == ZE_RESULT_SUCCESS;
  /* Counts first, as the loader wants them (a larger count is not taken by all). */
  if (zeDriverGet(&driver_count, NULL) == ZE_RESULT_SUCCESS &&
      (driver_count = driver_count < MAX_DRIVERS ? driver_count : MAX_DRIVERS) &&
      zeDriverGet(&driver_count, drivers) == ZE_RESULT_SUCCESS)
    for (uint32_t d = 0; d < driver_count && ordinal < 0; d++) {
      uint32_t count = 0;
      if (zeDeviceGet(drivers[d], &count, NULL) == ZE_RESULT_SUCCESS &&
          (count = count < MAX_DEVICES ? count : MAX_DEVICES) &&
          zeDeviceGet(drivers[d], &count, devices) == ZE_RESULT_SUCCESS)
        /* The same handle, or (a driver whose handles are made afresh at each query, as
         * the null driver's) the same UUID. */
        for (uint32_t i = 0; i < count && ordinal < 0; i++)
          if (devices[i] == device ||
              (named && zeDeviceGetProperties(devices[i], &other) == ZE_RESULT_SUCCESS &&
               memcmp(&other.uuid, &props.uuid, sizeof props.uuid) == 0))
            ordinal = (int32_t)i;
    }
  ze_depth--;
  snprintf(name, size, "%s", named ? props.name : "");
  return ordinal;
}

/* A command runs on its list's device. */
int32_t ze_device_of(const struct tracer_command *command) {
  ze_device_handle_t device = NULL;
  list_context(command, &device);
  return device ? tracer_device_ordinal("ze", (uintptr_t)device) : TRACER_DEVICE_UNKNOWN;
}

enum tracer_memory ze_memory_of(const struct tracer_command *command, const void *pointer) {
  ze_context_handle_t context = list_context(command, NULL);
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

static enum tracer_pending_state ze_read(struct tracer_pending *pending, bool wait, unsigned drain,
                                         uint64_t *start, uint64_t *end);
static void ze_release(struct tracer_pending *pending, bool last);
static const struct tracer_pending_ops ze_pending_ops = {"ze", sizeof(struct ze_pending), ze_read,
                                                         ze_release, false};

void ze_command_begin(struct tracer_command *command) {
  ze_event_handle_t *slot = (ze_event_handle_t *)command->completion;
  ze_context_handle_t context = slot && !*slot ? list_context(command, NULL) : NULL;
  if (!context)
    return;
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  struct own_event *own = calloc(1, sizeof *own);
  if (own && own_event_take(context, own, slot)) {
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
  if (status == ZE_RESULT_SUCCESS && c.event && list_context(command, &c.device))
    tracer_pending_add(&ze_pending_ops, &c.base);
  else
    ze_release(&c.base, true);
}

/* ---- device times ---- */

/* A device's clock against the host's (zeDeviceGetGlobalTimestamps). */
static bool clock_sync(uintptr_t device, struct tracer_device_clock *clock) {
  ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
  if (zeDeviceGetProperties((ze_device_handle_t)device, &props) != ZE_RESULT_SUCCESS)
    return false;
  *clock = (struct tracer_device_clock){.valid_bits = props.kernelTimestampValidBits};
  /* A driver that answers with the older structure gives nanoseconds per tick. */
  if (props.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2)
    clock->ticks_per_second = props.timerResolution;
  else if (props.timerResolution)
    clock->ticks_per_second = 1000000000u / props.timerResolution;
  return zeDeviceGetGlobalTimestamps((ze_device_handle_t)device, &clock->host_ns,
                                     &clock->device_ticks) == ZE_RESULT_SUCCESS;
}

/* A command's times once its event has signalled; the clock is synced once per drain and
 * device. Runs with the pending commands locked. */
static enum tracer_pending_state ze_read(struct tracer_pending *pending, bool wait, unsigned drain,
                                         uint64_t *start, uint64_t *end) {
  static struct tracer_device_clock_sync sync;
  struct ze_pending *p = (struct ze_pending *)pending;
  enum tracer_pending_state state = TRACER_PENDING_RUNNING;
  (void)wait; /* only ever asked for what is done */
  ze_depth++;
  if (zeEventQueryStatus(p->event) == ZE_RESULT_SUCCESS) {
    const struct tracer_device_clock *clock =
        tracer_device_clock_for(&sync, (uintptr_t)p->device, drain, clock_sync);
    ze_kernel_timestamp_result_t ts = {0};
    state = clock && zeEventQueryKernelTimestamp(p->event, &ts) == ZE_RESULT_SUCCESS
                ? TRACER_PENDING_READ
                : TRACER_PENDING_LOST;
    if (state == TRACER_PENDING_READ)
      tracer_device_span(clock, ts.global.kernelStart, ts.global.kernelEnd, start, end);
  }
  ze_depth--;
  return state;
}

/* A command done with gives its own event back; one run of a regular list's resets it for
 * the list's next run. */
static void ze_release(struct tracer_pending *pending, bool last) {
  struct ze_pending *p = (struct ze_pending *)pending;
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  if (last)
    own_event_give_back(&p->own);
  else if (p->own.pool)
    zeEventHostReset(p->event);
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
}

void ze_hook_zeContextDestroy_before(struct ze_zeContextDestroy_args *args) {
  tracer_pending_drain("ze", false);
  ze_depth++;
  pthread_mutex_lock(&ze_lock);
  pools_destroy(args->hContext);
  pthread_mutex_unlock(&ze_lock);
  ze_depth--;
}
