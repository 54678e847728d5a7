/* CUDA driver hooks: what no spec can say about the driver's device work.
 *
 * - cuGetProcAddress hands out driver entry points (the CUDA runtime reaches the driver
 *   only this way): each comes back as the interposer's wrapper of the same function,
 *   found by the name the driver exports at that address (tracer_wrappers.h).
 * - Kernels and copies become device_command events with device start and end times,
 *   from one of two sources (docs/cuda.md compares them):
 *   - CUPTI's activity API (the default), compiled only where cupti.h exists and used
 *     where libcupti loads: CUPTI reads the trace clock's raw source itself, and no event
 *     is recorded;
 *   - CUDA events (where CUPTI cannot be loaded, TRACER_CUDA_TIMING=events, or once the
 *     app runs a CUPTI client of its own, which gets CUPTI to itself): a pair recorded
 *     around the command on the app's stream, pending (tracer_pending.h) until read,
 *     placed on the host's clock through a reference event whose host time is known.
 * - Each command's device: the current context's (cuCtxGetDevice), or CUPTI's deviceId,
 *   named by cuDeviceGetName.
 * - Kernel names as the device knows them (cuFuncGetName, cuKernelGetName), demangled;
 *   copies named by kind from the pointers' attributes (cuda_memory_of, the spec's
 *   trace.copy_kinds): "cuMemcpyAsync(H2D pageable)".
 *
 * Calls the hooks make to the driver go through cuda_depth, so they are not traced. One
 * lock guards the event pool and the references; the pending commands' lock, when both
 * are taken, is taken first.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_args.h"
#include "tracer_device_clock.h"
#include "tracer_notice.h"
#include "tracer_pending.h"
#include "tracer_wrappers.h"

#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#include <cupti_driver_cbid.h>
#define CUDA_HOOKS_CUPTI 1
#endif

/* ---- entry points ---- */

void cuda_hook_cuGetProcAddress_v2_after(struct cuda_cuGetProcAddress_v2_args *args) {
  if (args->tracer_status != CUDA_SUCCESS || !args->pfn || !*args->pfn)
    return;
  *args->pfn = tracer_wrapper_of(*args->pfn, args->symbol);
}

/* ---- names ---- */

/* A kernel's name, looked up and demangled once per function: demangling one of PyTorch's
 * template names takes microseconds, more than the launch itself. Unloading a module or
 * library may free a function whose handle comes back for another kernel: the names are
 * forgotten then. */
bool cuda_kernel_name(const struct tracer_command *command, char *name, size_t size) {
  CUfunction function = (CUfunction)command->kernel;
  if (tracer_kernel_name_of("cuda", command->kernel, name, size))
    return true;
  const char *device = NULL;
  cuda_depth++;
  if (cuFuncGetName(&device, function) != CUDA_SUCCESS || !device || !*device) {
    device = NULL; /* a library kernel (cuLibraryGetKernel) launched as a function */
    if (cuKernelGetName(&device, (CUkernel)function) != CUDA_SUCCESS || !device || !*device)
      device = NULL;
  }
  cuda_depth--;
  if (!device)
    return false;
  tracer_demangle(device, name, size);
  tracer_kernel_named("cuda", command->kernel, name);
  return true;
}

void cuda_hook_cuModuleUnload_before(struct cuda_cuModuleUnload_args *args) {
  (void)args;
  tracer_kernel_names_forget("cuda");
}
void cuda_hook_cuLibraryUnload_before(struct cuda_cuLibraryUnload_args *args) {
  (void)args;
  tracer_kernel_names_forget("cuda");
}

/* ---- devices ---- */

/* The device's ordinal, named once (cuDeviceGetName). CUdevice is the ordinal. */
static int32_t cuda_device_named(CUdevice device) {
  char name[TRACER_DEVICE_NAME];
  if (device < 0)
    return TRACER_DEVICE_UNKNOWN;
  if (!tracer_device_name_of("cuda", device, name, sizeof name)) {
    cuda_depth++;
    if (cuDeviceGetName(name, sizeof name, device) != CUDA_SUCCESS)
      name[0] = '\0';
    cuda_depth--;
    tracer_device_named("cuda", device, name);
  }
  return device;
}

/* A command runs on the device of the context current where it is submitted. */
static int32_t cuda_device_of(const struct tracer_command *command) {
  (void)command;
  CUdevice device = -1;
  cuda_depth++;
  CUresult known = cuCtxGetDevice(&device);
  cuda_depth--;
  return known == CUDA_SUCCESS ? cuda_device_named(device) : TRACER_DEVICE_UNKNOWN;
}

__attribute__((constructor)) static void cuda_devices_register(void) {
  tracer_device_of_register("cuda", cuda_device_of);
}

/* Where a pointer lives, from the driver's attributes; ordinary (pageable) host memory is
 * what the driver does not know. */
enum tracer_memory cuda_memory_of(const struct tracer_command *command, const void *pointer) {
  (void)command;
  unsigned type = 0, managed = 0;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void *values[] = {&type, &managed};
  cuda_depth++;
  CUresult known = cuPointerGetAttributes(2, attributes, values, (CUdeviceptr)(uintptr_t)pointer);
  cuda_depth--;
  if (known != CUDA_SUCCESS)
    return TRACER_MEMORY_PAGEABLE;
  if (managed)
    return TRACER_MEMORY_SHARED;
  switch (type) {
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_ARRAY: return TRACER_MEMORY_DEVICE;
  case CU_MEMORYTYPE_HOST: return TRACER_MEMORY_HOST;
  case CU_MEMORYTYPE_UNIFIED: return TRACER_MEMORY_SHARED;
  default: return TRACER_MEMORY_PAGEABLE; /* unregistered host memory: type 0 */
  }
}

/* ---- device times from CUDA events ---- */

/* A command whose events are recorded and not yet read. */
struct cuda_pending {
  struct tracer_pending base;
  CUcontext context;
  CUevent start, end;
};

/* The reference of one context: an event whose CLOCK_MONOTONIC_RAW time is known. The
 * latest command read becomes the next reference, so offsets stay short and precise. */
struct reference {
  CUcontext context;
  CUevent event;
  uint64_t raw_ns;
};

enum { MAX_CONTEXTS = 64, POOL = 256 };
static struct reference references[MAX_CONTEXTS];
static size_t reference_count;
/* Events of the current context, kept for reuse; an event belongs to the context that
 * was current when it was made, so the pool is emptied when the context changes. */
static CUevent pool[POOL];
static CUcontext pool_context;
static size_t pool_count;
static pthread_mutex_t cuda_lock = PTHREAD_MUTEX_INITIALIZER;

enum timing { TIMING_UNSET, TIMING_EVENTS, TIMING_CUPTI, TIMING_NONE };
static enum timing timing;

/* Called with cuda_lock held, as event_give. */
static CUevent event_take(CUcontext context) {
  if (context != pool_context) {
    while (pool_count)
      cuEventDestroy_v2(pool[--pool_count]);
    pool_context = context;
  }
  if (pool_count)
    return pool[--pool_count];
  CUevent event = NULL;
  return cuEventCreate(&event, CU_EVENT_DEFAULT) == CUDA_SUCCESS ? event : NULL;
}

static void event_give(CUcontext context, CUevent event) {
  if (event && pool_count < POOL && context == pool_context)
    pool[pool_count++] = event;
  else if (event)
    cuEventDestroy_v2(event);
}

/* The context's reference, made on first use: an event recorded on a stream of the
 * tracer's own, which is idle, so that it completes at once; its host time is read
 * right after it is known complete. Called with cuda_lock held. */
static struct reference *reference_of(CUcontext context) {
  for (size_t i = 0; i < reference_count; i++)
    if (references[i].context == context)
      return &references[i];
  if (reference_count == MAX_CONTEXTS)
    return NULL;
  /* Made in that context, whichever is current on the thread that reads. */
  CUcontext previous = NULL;
  if (cuCtxPushCurrent_v2(context) != CUDA_SUCCESS)
    return NULL;
  CUstream stream = NULL;
  CUevent event = NULL;
  bool ok = cuEventCreate(&event, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
            cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
  uint64_t before = tracer_clock_raw_now();
  ok = ok && cuEventRecord(event, stream) == CUDA_SUCCESS &&
       cuEventSynchronize(event) == CUDA_SUCCESS;
  uint64_t after = tracer_clock_raw_now();
  if (stream)
    cuStreamDestroy_v2(stream);
  if (!ok && event)
    cuEventDestroy_v2(event);
  cuCtxPopCurrent_v2(&previous);
  if (!ok)
    return NULL;
  struct reference *r = &references[reference_count++];
  *r = (struct reference){context, event, before + (after - before) / 2};
  return r;
}

static enum tracer_pending_state cuda_read(struct tracer_pending *pending, bool wait,
                                           unsigned drain, uint64_t *start, uint64_t *end) {
  struct cuda_pending *p = (struct cuda_pending *)pending;
  (void)drain;
  cuda_depth++;
  CUresult done = wait ? cuEventSynchronize(p->end) : cuEventQuery(p->end);
  enum tracer_pending_state state =
      done == CUDA_ERROR_NOT_READY ? TRACER_PENDING_RUNNING : TRACER_PENDING_LOST;
  pthread_mutex_lock(&cuda_lock);
  struct reference *r = done == CUDA_SUCCESS ? reference_of(p->context) : NULL;
  float to_start = 0, duration = 0;
  if (r && cuEventElapsedTime_v2(&to_start, r->event, p->start) == CUDA_SUCCESS &&
      cuEventElapsedTime_v2(&duration, p->start, p->end) == CUDA_SUCCESS) {
    tracer_device_span_ms(r->raw_ns, to_start, duration, start, end);
    state = TRACER_PENDING_READ;
    if (*start > r->raw_ns) { /* the start event becomes the reference */
      event_give(p->context, r->event);
      r->event = p->start, r->raw_ns = *start;
      p->start = NULL;
    }
  }
  pthread_mutex_unlock(&cuda_lock);
  cuda_depth--;
  return state;
}

static void cuda_release(struct tracer_pending *pending, bool last) {
  (void)last; /* CUDA's commands are not recorded on lists */
  struct cuda_pending *p = (struct cuda_pending *)pending;
  cuda_depth++;
  pthread_mutex_lock(&cuda_lock);
  event_give(p->context, p->start);
  event_give(p->context, p->end);
  pthread_mutex_unlock(&cuda_lock);
  cuda_depth--;
}

/* Commands still pending when the process exits are read then (tracer_pending.h). */
static const struct tracer_pending_ops cuda_pending_ops = {"cuda", sizeof(struct cuda_pending),
                                                           cuda_read, cuda_release, true};

/* A context about to go takes its events with it: read what it ran first. */
static void forget_context(CUcontext context) {
  if (timing != TIMING_EVENTS)
    return;
  tracer_pending_drain("cuda", true);
  cuda_depth++;
  pthread_mutex_lock(&cuda_lock);
  for (size_t i = 0; i < reference_count; i++)
    if (references[i].context == context || !context) {
      cuEventDestroy_v2(references[i].event);
      references[i--] = references[--reference_count];
    }
  while (pool_count)
    cuEventDestroy_v2(pool[--pool_count]);
  pthread_mutex_unlock(&cuda_lock);
  cuda_depth--;
}

void cuda_hook_cuCtxDestroy_v2_before(struct cuda_cuCtxDestroy_v2_args *args) {
  forget_context(args->ctx);
}
void cuda_hook_cuDevicePrimaryCtxRelease_v2_before(
    struct cuda_cuDevicePrimaryCtxRelease_v2_args *args) {
  (void)args; /* the primary context's handle is not at hand: forget every context */
  forget_context(NULL);
}

/* Timing is chosen when the driver starts, so that CUPTI sees the contexts created. */
static enum timing timing_choice(void);
void cuda_hook_cuInit_after(struct cuda_cuInit_args *args) {
  if (args->tracer_status != CUDA_SUCCESS)
    return;
  pthread_mutex_lock(&cuda_lock);
  if (timing == TIMING_UNSET)
    __atomic_store_n(&timing, timing_choice(), __ATOMIC_RELEASE);
  pthread_mutex_unlock(&cuda_lock);
}

/* ---- device times from CUPTI ---- */

#ifdef CUDA_HOOKS_CUPTI
/* CUPTI's activity records carry device start and end times on the clock the tracer
 * gives it (CLOCK_MONOTONIC_RAW, converted to the trace clock as they are read). The
 * library is opened at run time, so the interposer never depends on it. Records have no
 * API function: transfers are named "memcpy(H2D pageable)" and "memset". */
static struct {
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*enable)(CUpti_ActivityKind);
  CUptiResult (*disable)(CUpti_ActivityKind);
  CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
  CUptiResult (*flush_all)(uint32_t);
  CUptiResult (*register_timestamp)(CUpti_TimestampCallbackFunc);
  /* Optional: without them, commands carry no submitting call (docs/cuda.md). */
  CUptiResult (*push_external)(CUpti_ExternalCorrelationKind, uint64_t);
  CUptiResult (*pop_external)(CUpti_ExternalCorrelationKind, uint64_t *);
  CUptiResult (*enable_driver_api)(CUpti_CallbackId, uint8_t);
} cupti;

/* The launch APIs whose activity records CUPTI writes for the tracer: an external
 * correlation record comes only before an API's own record (seen on H200 with CUPTI 13:
 * none at all with the kernel kinds alone, bench/gpu-runs/run7), and only these, not
 * every driver call, are worth a record each. */
static const CUpti_CallbackId cupti_launch_apis[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

/* Turns the launch APIs' records on or off; true when every one took the setting. */
static bool cupti_launch_records(bool on) {
  bool all = cupti.enable_driver_api != NULL;
  for (size_t i = 0; all && i < sizeof cupti_launch_apis / sizeof *cupti_launch_apis; i++)
    all = cupti.enable_driver_api(cupti_launch_apis[i], on) == CUPTI_SUCCESS;
  return all;
}
static bool cupti_correlates; /* external correlation records enabled */

/* ---- each CUPTI record's submitting call ----
 *
 * A launch timed by CUPTI pushes an external correlation id of its own (a sequence
 * number) around the real call; CUPTI then writes an external correlation record joining
 * it to its correlation id, which the command's record carries. Two maps, kept under
 * origins_lock: external id -> the call (made at the launch), then correlation id -> the
 * call (made when the external correlation record is read). A command record read before
 * its external correlation record waits (held) until it comes, or until the last flush:
 * at most HELD_MAX wait, and a graph's kernels after its first (one correlation id for
 * the graph's launch) wait until then and name no call. */
struct origin_entry {
  uint64_t key; /* 0: free */
  struct tracer_call_id call;
};
struct origin_map {
  struct origin_entry *slots;
  size_t capacity, used; /* capacity: a power of two */
};
enum { ORIGIN_MAP_MAX = 1 << 22, HELD_MAX = 1 << 16 };
static struct origin_map by_external, by_correlation;
static pthread_mutex_t origins_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t external_sequence;

static size_t origin_slot(const struct origin_map *m, uint64_t key) {
  size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull) & (m->capacity - 1);
  while (m->slots[i].key && m->slots[i].key != key)
    i = (i + 1) & (m->capacity - 1);
  return i;
}

/* false when the map is full at its bound (that command then carries no call). */
static bool origin_put(struct origin_map *m, uint64_t key, struct tracer_call_id call) {
  if (2 * (m->used + 1) > m->capacity) {
    size_t capacity = m->capacity ? 2 * m->capacity : 1024;
    if (capacity > ORIGIN_MAP_MAX)
      return false;
    struct origin_entry *slots = calloc(capacity, sizeof *slots);
    if (!slots)
      return false;
    struct origin_map grown = {slots, capacity, 0};
    for (size_t i = 0; i < m->capacity; i++)
      if (m->slots[i].key)
        grown.slots[origin_slot(&grown, m->slots[i].key)] = m->slots[i], grown.used++;
    free(m->slots);
    *m = grown;
  }
  size_t i = origin_slot(m, key);
  m->used += !m->slots[i].key;
  m->slots[i] = (struct origin_entry){key, call};
  return true;
}

/* Takes the key's call out of the map (linear probing: the run after it moves back). */
static bool origin_take(struct origin_map *m, uint64_t key, struct tracer_call_id *call) {
  if (!m->capacity)
    return false;
  size_t i = origin_slot(m, key);
  if (!m->slots[i].key)
    return false;
  *call = m->slots[i].call;
  m->slots[i].key = 0, m->used--;
  for (size_t j = (i + 1) & (m->capacity - 1); m->slots[j].key; j = (j + 1) & (m->capacity - 1)) {
    struct origin_entry e = m->slots[j];
    m->slots[j].key = 0;
    m->slots[origin_slot(m, e.key)] = e;
  }
  return true;
}

/* A command record waiting for its external correlation record. */
struct held_record {
  uint32_t correlation;
  int32_t device;
  enum tracer_command_kind kind;
  char name[160];
  uint64_t bytes;
  uint32_t stream;
  uint64_t start, end; /* trace clock */
};
static struct held_record *held;
static size_t held_count, held_capacity;
static struct origin_map held_at; /* correlation id -> index in held (as call.start) */
static uint64_t joins;            /* external correlation records joined to their launch */

/* Room for one more held record, within HELD_MAX. Called with origins_lock held. */
static bool held_room(void) {
  if (held_count < held_capacity)
    return true;
  size_t capacity = held_capacity ? 2 * held_capacity : 64;
  struct held_record *grown = capacity <= HELD_MAX ? realloc(held, capacity * sizeof *held) : NULL;
  if (!grown)
    return false;
  held = grown, held_capacity = capacity;
  return true;
}

static void emit_command(const struct held_record *r, const struct tracer_call_id *call) {
  tracer_device_command_on(call, "cuda", r->device, r->kind, r->name, r->bytes, r->stream,
                           r->start, r->end);
}

enum { CUPTI_BUFFER = 1 << 20 };

static void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max) {
  *buffer = aligned_alloc(8, CUPTI_BUFFER);
  *size = *buffer ? CUPTI_BUFFER : 0;
  *max = 0;
}

static enum tracer_memory cupti_memory(uint8_t kind) {
  switch ((CUpti_ActivityMemoryKind)kind) {
  case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return TRACER_MEMORY_PAGEABLE;
  case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return TRACER_MEMORY_HOST;
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return TRACER_MEMORY_SHARED;
  default: return TRACER_MEMORY_DEVICE;
  }
}

static void held_release(void);

/* A command record with its call where known; held for it where it may yet come. */
static void command_record(struct held_record *r) {
  struct tracer_call_id call = {0, 0};
  bool known = false;
  if (__atomic_load_n(&cupti_correlates, __ATOMIC_ACQUIRE) && r->correlation) {
    pthread_mutex_lock(&origins_lock);
    known = origin_take(&by_correlation, r->correlation, &call);
    if (!known && held_room() &&
        origin_put(&held_at, r->correlation, (struct tracer_call_id){0, held_count})) {
      held[held_count++] = *r;
      pthread_mutex_unlock(&origins_lock);
      return;
    }
    /* HELD_MAX records waited and no join ever came: this CUPTI writes no external
     * correlation records for the launches. Stop waiting; the readers match by order. */
    bool never = !known && !joins;
    pthread_mutex_unlock(&origins_lock);
    if (never) {
      __atomic_store_n(&cupti_correlates, false, __ATOMIC_RELEASE);
      held_release();
    }
  }
  emit_command(r, known ? &call : NULL);
}

/* A launch's call joined to its correlation id: the command held for it, if any, is
 * handed back to be recorded (true), else the call waits for it. Called with
 * origins_lock held. */
static bool joined(uint32_t correlation, struct tracer_call_id call, struct held_record *out) {
  struct tracer_call_id at;
  joins++;
  if (origin_take(&held_at, correlation, &at)) {
    size_t i = (size_t)at.start;
    *out = held[i], held[i] = held[--held_count];
    if (i < held_count) /* the last record moved to i */
      origin_put(&held_at, held[i].correlation, (struct tracer_call_id){0, i});
    return true;
  }
  origin_put(&by_correlation, correlation, call);
  return false;
}

/* A join read before its launch returned (CUPTI may complete a buffer on its own thread
 * meanwhile) waits in by_external as this marker: no thread has tid -1. */
enum { JOIN_FIRST = -1 };

/* An external correlation record: the launch's call, now by correlation id. */
static void correlation_record(const CUpti_ActivityExternalCorrelation *c) {
  if (c->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2)
    return;
  struct tracer_call_id call;
  struct held_record r;
  bool release = false;
  pthread_mutex_lock(&origins_lock);
  if (origin_take(&by_external, c->externalId, &call))
    release = joined(c->correlationId, call, &r);
  else
    origin_put(&by_external, c->externalId, (struct tracer_call_id){JOIN_FIRST, c->correlationId});
  pthread_mutex_unlock(&origins_lock);
  if (release)
    emit_command(&r, &call);
}

/* The commands still held at the last flush: their calls never came. */
static void held_release(void) {
  pthread_mutex_lock(&origins_lock);
  struct held_record *records = held;
  size_t count = held_count;
  held = NULL, held_count = held_capacity = 0;
  free(held_at.slots);
  held_at = (struct origin_map){0};
  pthread_mutex_unlock(&origins_lock);
  for (size_t i = 0; i < count; i++)
    emit_command(&records[i], NULL);
  free(records);
}

static void cupti_record(const CUpti_Activity *record) {
  static const struct tracer_copy_names names = {'H', 'H', 'D', 'M', true};
  char kind[32];
  struct held_record r = {0};
  if (record->kind == CUPTI_ACTIVITY_KIND_KERNEL ||
      record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
    r = (struct held_record){k->correlationId, cuda_device_named((CUdevice)k->deviceId),
                             TRACER_COMMAND_KERNEL, "", 0, k->streamId,
                             tracer_clock_raw_to_trace(k->start), tracer_clock_raw_to_trace(k->end)};
    tracer_demangle(k->name ? k->name : "kernel", r.name, sizeof r.name);
  } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)record;
    r = (struct held_record){m->correlationId, cuda_device_named((CUdevice)m->deviceId),
                             TRACER_COMMAND_TRANSFER, "", m->bytes, m->streamId,
                             tracer_clock_raw_to_trace(m->start), tracer_clock_raw_to_trace(m->end)};
    tracer_copy_kind(&names, cupti_memory(m->srcKind), cupti_memory(m->dstKind), kind, sizeof kind);
    snprintf(r.name, sizeof r.name, "memcpy(%s)", kind);
  } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)record;
    r = (struct held_record){m->correlationId, cuda_device_named((CUdevice)m->deviceId),
                             TRACER_COMMAND_TRANSFER, "memset", m->bytes, m->streamId,
                             tracer_clock_raw_to_trace(m->start), tracer_clock_raw_to_trace(m->end)};
  } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
    correlation_record((const CUpti_ActivityExternalCorrelation *)record);
    return;
  } else {
    return;
  }
  command_record(&r);
}

static void CUPTIAPI cupti_buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                            size_t size, size_t valid) {
  (void)context, (void)stream, (void)size;
  CUpti_Activity *record = NULL;
  while (cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS)
    cupti_record(record);
  free(buffer);
}

static uint64_t CUPTIAPI cupti_timestamp(void) { return tracer_clock_raw_now(); }

/* CUPTI's own clock on Linux (CLOCK_REALTIME), for an app given CUPTI that sets none. */
static uint64_t CUPTIAPI cupti_default_timestamp(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static bool cupti_start(void) {
  void *library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    library = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return false;
  void **slots[] = {(void **)&cupti.register_callbacks,
                    (void **)&cupti.enable,
                    (void **)&cupti.disable,
                    (void **)&cupti.next_record,
                    (void **)&cupti.flush_all,
                    (void **)&cupti.register_timestamp};
  const char *names[] = {
      "cuptiActivityRegisterCallbacks", "cuptiActivityEnable",
      "cuptiActivityDisable",           "cuptiActivityGetNextRecord",
      "cuptiActivityFlushAll",          "cuptiActivityRegisterTimestampCallback"};
  for (size_t i = 0; i < sizeof slots / sizeof *slots; i++)
    if (!(*slots[i] = tracer_real_dlsym(library, names[i])))
      return false;
  cupti.push_external = tracer_real_dlsym(library, "cuptiActivityPushExternalCorrelationId");
  cupti.pop_external = tracer_real_dlsym(library, "cuptiActivityPopExternalCorrelationId");
  cupti.enable_driver_api = tracer_real_dlsym(library, "cuptiActivityEnableDriverApi");
  bool started = cupti.register_timestamp(cupti_timestamp) == CUPTI_SUCCESS &&
                 cupti.register_callbacks(cupti_buffer_requested, cupti_buffer_completed) ==
                     CUPTI_SUCCESS &&
                 cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS &&
                 cupti.enable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS &&
                 cupti.enable(CUPTI_ACTIVITY_KIND_MEMSET) == CUPTI_SUCCESS;
  /* The submitting calls, where this CUPTI correlates external ids. */
  cupti_correlates = started && cupti.push_external && cupti.pop_external &&
                     cupti_launch_records(true) &&
                     cupti.enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) == CUPTI_SUCCESS;
  return started;
}

/* CUPTI's last records at exit: an atexit handler, registered once timing starts, so
 * that it runs before any library's destructors (the driver's teardown among them). Not
 * once the app has CUPTI: its buffers are the app's, and so is their last flush. */
static bool app_has_cupti;
static void cupti_stop(void) {
  if (!__atomic_load_n(&app_has_cupti, __ATOMIC_ACQUIRE))
    cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  held_release();
}

/* ---- the app's own CUPTI client (torch.profiler, Nsight's injection, ...) ----
 *
 * CUPTI takes one set of buffer callbacks and one timestamp callback per process: a
 * second registration replaces the first, and the buffers the first client asked for are
 * then completed to the second (PyTorch: "bufferCompleted called with unknown buffer"),
 * so both lose their records. The app's profiler must keep working, so CUPTI becomes the
 * app's alone: the first call the app makes that sets CUPTI's activity state (buffer or
 * timestamp callbacks, enabling or disabling a kind) first hands CUPTI over. The tracer
 * flushes its own records, disables its kinds, puts back CUPTI's default clock, and times
 * the device work that follows with CUDA events, saying so in a notice. The app then sees
 * exactly what it would see without the tracer. (Sharing one registration, copying records
 * into the app's buffers, would rely on the layout of CUPTI's buffers, which is CUPTI's
 * own, and on both sides agreeing on one clock: docs/cuda.md.) */
static pthread_mutex_t hand_over_lock = PTHREAD_MUTEX_INITIALIZER;

static bool cupti_wanted(void);

static void cupti_hand_over(void) {
  if (__atomic_load_n(&app_has_cupti, __ATOMIC_ACQUIRE))
    return;
  pthread_mutex_lock(&hand_over_lock);
  if (!app_has_cupti) {
    /* Under cuda_lock, so that a timing chosen later (cuInit) sees the app's CUPTI. A
     * launch on another thread during the hand-over may be timed both ways. */
    pthread_mutex_lock(&cuda_lock);
    bool had = timing == TIMING_CUPTI, would_have = timing == TIMING_UNSET && cupti_wanted();
    if (had)
      __atomic_store_n(&timing, TIMING_EVENTS, __ATOMIC_RELEASE);
    __atomic_store_n(&app_has_cupti, true, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&cuda_lock);
    if (had) { /* the records CUPTI holds are the tracer's: read them first */
      cupti.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      cupti.disable(CUPTI_ACTIVITY_KIND_MEMCPY);
      cupti.disable(CUPTI_ACTIVITY_KIND_MEMSET);
      cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      if (cupti_correlates) {
        cupti.disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
        cupti_launch_records(false);
      }
      held_release();
      cupti.register_timestamp(cupti_default_timestamp);
    }
    if (had || would_have)
      tracer_notice("cuda",
                    "the app runs its own CUPTI activity client (torch.profiler or another "
                    "profiler): the tracer leaves CUPTI to it and times device work with CUDA "
                    "events%s",
                    had ? " from then on" : "");
  }
  pthread_mutex_unlock(&hand_over_lock);
}

/* The real CUPTI function the app asked for: the next definition after the interposer's
 * (the libcupti the app links), else the one the tracer's own dlopen finds. */
static void *cupti_real(const char *name, const void *wrapper) {
  void *real = tracer_find_elsewhere(name, wrapper);
  if (!real) {
    void *library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      library = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
    real = library ? tracer_real_dlsym(library, name) : NULL;
  }
  return real;
}

/* One wrapper per CUPTI function that sets the activity state: hand over, then call. */
#define CUPTI_APP_CALL(function, params, args)                                                     \
  CUptiResult CUPTIAPI function params {                                                           \
    static CUptiResult(CUPTIAPI *real) params;                                                     \
    if (!real)                                                                                     \
      real = (CUptiResult(CUPTIAPI *) params)cupti_real(#function, (const void *)function);        \
    if (!real)                                                                                     \
      return CUPTI_ERROR_NOT_INITIALIZED;                                                          \
    cupti_hand_over();                                                                             \
    return real args;                                                                              \
  }
CUPTI_APP_CALL(cuptiActivityRegisterCallbacks,
               (CUpti_BuffersCallbackRequestFunc requested,
                CUpti_BuffersCallbackCompleteFunc completed),
               (requested, completed))
CUPTI_APP_CALL(cuptiActivityRegisterTimestampCallback, (CUpti_TimestampCallbackFunc stamp), (stamp))
CUPTI_APP_CALL(cuptiActivityEnable, (CUpti_ActivityKind kind), (kind))
CUPTI_APP_CALL(cuptiActivityEnableAndDump, (CUpti_ActivityKind kind), (kind))
CUPTI_APP_CALL(cuptiActivityDisable, (CUpti_ActivityKind kind), (kind))
CUPTI_APP_CALL(cuptiActivityEnableContext, (CUcontext context, CUpti_ActivityKind kind),
               (context, kind))
CUPTI_APP_CALL(cuptiActivityDisableContext, (CUcontext context, CUpti_ActivityKind kind),
               (context, kind))
#undef CUPTI_APP_CALL
#endif

/* CUPTI where it loads (on the H100 it cost 2.2 us a launch against 4.7 us for a pair of
 * CUDA events, with the same accuracy: docs/cuda.md), else CUDA events. */
static enum timing timing_choice(void) {
  const char *wanted = getenv("TRACER_CUDA_TIMING");
  if (wanted && strcmp(wanted, "none") == 0)
    return TIMING_NONE;
  if (wanted && strcmp(wanted, "events") == 0)
    return TIMING_EVENTS;
#ifdef CUDA_HOOKS_CUPTI
  if (__atomic_load_n(&app_has_cupti, __ATOMIC_ACQUIRE))
    return TIMING_EVENTS; /* the app's own CUPTI client came first (cupti_hand_over) */
  if (cupti_start()) {
    atexit(cupti_stop);
    return TIMING_CUPTI;
  }
#endif
  tracer_debug("CUPTI is not available: device times from CUDA events");
  return TIMING_EVENTS;
}

#ifdef CUDA_HOOKS_CUPTI
static bool cupti_wanted(void) {
  const char *wanted = getenv("TRACER_CUDA_TIMING");
  return !wanted || (strcmp(wanted, "none") != 0 && strcmp(wanted, "events") != 0);
}
#endif

/* ---- commands ---- */

/* The events of the command being launched on this thread, when it is timed. */
static __thread struct {
  CUcontext context;
  CUevent start, end;
  uint64_t external; /* the external correlation id pushed around the call; 0: none */
} recording;

/* CUPTI's records name the call through an external correlation id of its own kind
 * (CUSTOM2; PyTorch's profiler, Kineto, pushes CUSTOM0 and CUSTOM1) pushed around the real call. */
static void cupti_command_begin(const struct tracer_command *command) {
  (void)command;
#ifdef CUDA_HOOKS_CUPTI
  /* Launches only: no other API writes the record an external id needs (cupti_launch_apis). */
  if (command->kind != TRACER_COMMAND_KERNEL ||
      !__atomic_load_n(&cupti_correlates, __ATOMIC_ACQUIRE) ||
      __atomic_load_n(&app_has_cupti, __ATOMIC_ACQUIRE))
    return;
  uint64_t id = __atomic_add_fetch(&external_sequence, 1, __ATOMIC_RELAXED);
  if (cupti.push_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, id) == CUPTI_SUCCESS)
    recording.external = id;
#endif
}

static void cupti_command_end(int64_t status) {
#ifdef CUDA_HOOKS_CUPTI
  uint64_t id = recording.external;
  recording.external = 0;
  cupti.pop_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, NULL);
  if (status != CUDA_SUCCESS)
    return;
  struct tracer_call_id call = tracer_call_returned(), early;
  struct held_record r;
  bool release = false;
  pthread_mutex_lock(&origins_lock);
  if (origin_take(&by_external, id, &early) && early.tid == JOIN_FIRST)
    release = joined((uint32_t)early.start, call, &r);
  else
    origin_put(&by_external, id, call);
  pthread_mutex_unlock(&origins_lock);
  if (release)
    emit_command(&r, &call);
#else
  (void)status;
#endif
}

void cuda_command_begin(struct tracer_command *command) {
  recording.start = recording.end = NULL;
  recording.external = 0;
  /* CUPTI or no device times: nothing to record around the command, and no lock to take
   * at every launch (timing, once chosen, never changes). */
  enum timing chosen = __atomic_load_n(&timing, __ATOMIC_ACQUIRE);
  if (chosen == TIMING_CUPTI)
    cupti_command_begin(command);
  if (chosen == TIMING_CUPTI || chosen == TIMING_NONE)
    return;
  pthread_mutex_lock(&cuda_lock);
  if (timing == TIMING_UNSET)
    __atomic_store_n(&timing, timing_choice(), __ATOMIC_RELEASE);
  CUcontext context = NULL;
  if (timing == TIMING_EVENTS && cuCtxGetCurrent(&context) == CUDA_SUCCESS) {
    CUevent start = event_take(context), end = event_take(context);
    if (start && end && cuEventRecord(start, (CUstream)command->queue) == CUDA_SUCCESS) {
      recording.context = context, recording.start = start, recording.end = end;
    } else {
      event_give(context, start);
      event_give(context, end);
    }
  }
  pthread_mutex_unlock(&cuda_lock);
}

void cuda_command_end(struct tracer_command *command, int64_t status) {
  if (recording.external)
    cupti_command_end(status);
  if (!recording.start)
    return;
  struct cuda_pending p = {
      .context = recording.context, .start = recording.start, .end = recording.end};
  recording.start = recording.end = NULL;
  /* The end event first, so that nothing the hooks do lies between the two. */
  if (status == CUDA_SUCCESS && cuEventRecord(p.end, (CUstream)command->queue) == CUDA_SUCCESS) {
    tracer_pending_init(&p.base, command);
    tracer_pending_add(&cuda_pending_ops, &p.base);
  } else {
    cuda_release(&p.base, true);
  }
}
