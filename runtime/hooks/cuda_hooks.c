/* CUDA driver hooks: what no template can know about the driver's device work.
 *
 * - cuGetProcAddress hands out driver entry points (the CUDA runtime reaches the driver
 *   only this way): each comes back as the interposer's wrapper of the same function,
 *   found by the name the driver exports at that address (tracer_wrappers.h).
 * - Kernels and copies become device_command events with device start and end times,
 *   from one of two sources (docs/cuda.md compares them):
 *   - CUDA events (where CUPTI cannot be loaded, or TRACER_CUDA_TIMING=events): a pair
 *     recorded around the command on the app's stream,
 *     read once complete (at the app's synchronizations, or when many are pending, or at
 *     exit), placed on the trace clock through a reference event whose host time is
 *     known;
 *   - CUPTI's activity API (the default), compiled only where cupti.h exists and used
 *     where libcupti loads: CUPTI reads the trace clock's raw source itself, and no event
 *     is recorded.
 * - Kernel names as the device knows them (cuFuncGetName, cuKernelGetName), demangled;
 *   copies named by kind, from the pointers' attributes: "cuMemcpyAsync(H2D pageable)".
 *
 * Calls the hooks make to the driver go through cuda_depth, so they are not traced. One
 * lock guards the pending commands and the event pool.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_args.h"
#include "tracer_runtime.h"
#include "tracer_wrappers.h"

#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#define CUDA_HOOKS_CUPTI 1
#endif

/* ---- entry points ---- */

void cuda_hook_cuGetProcAddress_v2_after(struct cuda_cuGetProcAddress_v2_args *args) {
  if (args->tracer_status != CUDA_SUCCESS || !args->pfn || !*args->pfn)
    return;
  *args->pfn = tracer_wrapper_of(*args->pfn, args->symbol);
}

/* ---- kernel names ---- */

/* C++ names demangled by the C++ runtime's demangler (every CUDA C++ app has it loaded;
 * a C app gets it loaded at its first mangled kernel name); a name it cannot demangle
 * (Triton's vadd_bs128_w4_s2, a C name) is kept as it is. */
typedef char *cxa_demangle_fn(const char *, char *, size_t *, int *);

static void demangle(const char *name, char *out, size_t size) {
  static cxa_demangle_fn *cxa_demangle;
  static int looked;
  if (strncmp(name, "_Z", 2) != 0) {
    snprintf(out, size, "%s", name);
    return;
  }
  if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
    void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (!cxx)
      cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (cxx)
      cxa_demangle = (cxa_demangle_fn *)tracer_real_dlsym(cxx, "__cxa_demangle");
    __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  }
  int status = -1;
  char *plain = NULL;
  if (cxa_demangle)
    plain = cxa_demangle(name, NULL, NULL, &status);
  snprintf(out, size, "%s", plain && status == 0 ? plain : name);
  free(plain);
}

static void kernel_name_lookup(CUfunction function, const char *fallback, char *out,
                               size_t size) {
  const char *name = NULL;
  if (cuFuncGetName(&name, function) != CUDA_SUCCESS || !name || !*name) {
    /* A library kernel (cuLibraryGetKernel) launched as a function. */
    name = NULL;
    if (cuKernelGetName(&name, (CUkernel)function) != CUDA_SUCCESS || !name || !*name)
      name = fallback;
  }
  demangle(name, out, size);
}

/* Names by function, so that a kernel launched a million times is looked up and
 * demangled once: demangling one of PyTorch's template names takes microseconds, more
 * than the launch itself. Open addressing; a full table just stops caching. Unloading a
 * module or library may free a function whose handle comes back for another kernel: the
 * table is emptied then. */
enum { NAME_SLOTS = 4096 };
static struct kernel_name_slot {
  CUfunction function;
  char name[160];
} kernel_names[NAME_SLOTS];
static pthread_mutex_t kernel_names_lock = PTHREAD_MUTEX_INITIALIZER;

static void kernel_name(CUfunction function, const char *fallback, char *out, size_t size) {
  if (!function) {
    kernel_name_lookup(function, fallback, out, size);
    return;
  }
  size_t home = ((uintptr_t)function >> 4) * 0x9E3779B97F4A7C15ull % NAME_SLOTS;
  pthread_mutex_lock(&kernel_names_lock);
  for (size_t probe = 0; probe < NAME_SLOTS; probe++) {
    struct kernel_name_slot *slot = &kernel_names[(home + probe) % NAME_SLOTS];
    if (slot->function == function) {
      snprintf(out, size, "%s", slot->name);
      pthread_mutex_unlock(&kernel_names_lock);
      return;
    }
    if (!slot->function) {
      kernel_name_lookup(function, fallback, slot->name, sizeof slot->name);
      if (fallback && strcmp(slot->name, fallback) != 0) /* a name worth keeping */
        slot->function = function;
      snprintf(out, size, "%s", slot->name);
      pthread_mutex_unlock(&kernel_names_lock);
      return;
    }
  }
  pthread_mutex_unlock(&kernel_names_lock);
  kernel_name_lookup(function, fallback, out, size);
}

static void kernel_names_forget(void) {
  pthread_mutex_lock(&kernel_names_lock);
  memset(kernel_names, 0, sizeof kernel_names);
  pthread_mutex_unlock(&kernel_names_lock);
}

void cuda_hook_cuModuleUnload_before(struct cuda_cuModuleUnload_args *args) {
  (void)args;
  kernel_names_forget();
}
void cuda_hook_cuLibraryUnload_before(struct cuda_cuLibraryUnload_args *args) {
  (void)args;
  kernel_names_forget();
}

/* ---- copy kinds ---- */

/* What a pointer is, from the driver's attributes: device (or array) memory, pinned host
 * memory, managed memory, or ordinary (pageable) host memory the driver does not know. */
enum memory_kind { MEMORY_DEVICE, MEMORY_PINNED, MEMORY_MANAGED, MEMORY_PAGEABLE };

static enum memory_kind memory_kind_of(CUdeviceptr pointer) {
  unsigned type = 0, managed = 0;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void *values[] = {&type, &managed};
  if (cuPointerGetAttributes(2, attributes, values, pointer) != CUDA_SUCCESS)
    return MEMORY_PAGEABLE;
  if (managed)
    return MEMORY_MANAGED;
  switch (type) {
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_ARRAY: return MEMORY_DEVICE;
  case CU_MEMORYTYPE_HOST: return MEMORY_PINNED;
  case CU_MEMORYTYPE_UNIFIED: return MEMORY_MANAGED;
  default: return MEMORY_PAGEABLE; /* unregistered host memory: type 0 */
  }
}

static char side_of(enum memory_kind kind) {
  return kind == MEMORY_DEVICE ? 'D' : kind == MEMORY_MANAGED ? 'M' : 'H';
}

/* "H2D pinned", "D2H pageable", "D2D", "M2D": the host side's kind follows when a copy
 * has one, since pageable copies are staged by the driver and run slower. */
void cuda_copy_kind(enum memory_kind src, enum memory_kind dst, char *out, size_t size);
void cuda_copy_kind(enum memory_kind src, enum memory_kind dst, char *out, size_t size) {
  const char *host = src == MEMORY_PAGEABLE || dst == MEMORY_PAGEABLE ? " pageable"
                     : src == MEMORY_PINNED || dst == MEMORY_PINNED   ? " pinned"
                                                                      : "";
  snprintf(out, size, "%c2%c%s", side_of(src), side_of(dst), host);
}

/* The copy in flight on this thread, set by a before hook or by the command's begin;
 * commands of one thread never nest. */
static __thread struct {
  CUdeviceptr src, dst;
  CUstream stream; /* cuLaunchKernelEx's stream, from its config */
} current;

void cuda_hook_cuMemcpy_before(struct cuda_cuMemcpy_args *args) {
  current.src = args->src, current.dst = args->dst;
}
void cuda_hook_cuMemcpyAsync_before(struct cuda_cuMemcpyAsync_args *args) {
  current.src = args->src, current.dst = args->dst;
}
void cuda_hook_cuMemcpyPeer_before(struct cuda_cuMemcpyPeer_args *args) {
  current.src = args->srcDevice, current.dst = args->dstDevice;
}
void cuda_hook_cuMemcpyPeerAsync_before(struct cuda_cuMemcpyPeerAsync_args *args) {
  current.src = args->srcDevice, current.dst = args->dstDevice;
}
void cuda_hook_cuMemcpyHtoD_v2_before(struct cuda_cuMemcpyHtoD_v2_args *args) {
  current.src = (CUdeviceptr)args->srcHost, current.dst = args->dstDevice;
}
void cuda_hook_cuMemcpyHtoDAsync_v2_before(struct cuda_cuMemcpyHtoDAsync_v2_args *args) {
  current.src = (CUdeviceptr)args->srcHost, current.dst = args->dstDevice;
}
void cuda_hook_cuMemcpyDtoH_v2_before(struct cuda_cuMemcpyDtoH_v2_args *args) {
  current.src = args->srcDevice, current.dst = (CUdeviceptr)args->dstHost;
}
void cuda_hook_cuMemcpyDtoHAsync_v2_before(struct cuda_cuMemcpyDtoHAsync_v2_args *args) {
  current.src = args->srcDevice, current.dst = (CUdeviceptr)args->dstHost;
}
void cuda_hook_cuLaunchKernelEx_before(struct cuda_cuLaunchKernelEx_args *args) {
  current.stream = args->config ? args->config->hStream : NULL;
}

/* The name of a transfer: the function and the copy's kind. The explicit copies name
 * their direction; only the host side's kind is looked up. */
static void transfer_name(const char *function, char *out, size_t size) {
  char kind[32] = "";
  if (strstr(function, "HtoD"))
    cuda_copy_kind(memory_kind_of(current.src), MEMORY_DEVICE, kind, sizeof kind);
  else if (strstr(function, "DtoH"))
    cuda_copy_kind(MEMORY_DEVICE, memory_kind_of(current.dst), kind, sizeof kind);
  else if (strstr(function, "DtoD") || strstr(function, "Peer"))
    snprintf(kind, sizeof kind, "D2D");
  else if (strncmp(function, "cuMemcpy", 8) == 0)
    cuda_copy_kind(memory_kind_of(current.src), memory_kind_of(current.dst), kind, sizeof kind);
  if (kind[0])
    snprintf(out, size, "%s(%s)", function, kind);
  else
    snprintf(out, size, "%s", function);
}

/* ---- device times from CUDA events ---- */

/* Device time of a command from CUDA event times: ms_to_start is the time from the
 * reference event to the command's start event, ms_duration from its start event to its
 * end event (cuEventElapsedTime, about 0.5 us resolution), ref_raw_ns the reference
 * event's time on CLOCK_MONOTONIC_RAW. The duration is read on its own so that its
 * precision does not depend on how far the reference lies. */
struct cuda_span {
  uint64_t start_raw_ns, end_raw_ns;
};
struct cuda_span cuda_event_span(uint64_t ref_raw_ns, float ms_to_start, float ms_duration);
struct cuda_span cuda_event_span(uint64_t ref_raw_ns, float ms_to_start, float ms_duration) {
  double offset = (double)ms_to_start * 1e6, duration = (double)ms_duration * 1e6;
  if (offset < 0 && (uint64_t)(-offset) > ref_raw_ns)
    offset = -(double)ref_raw_ns;
  if (duration < 0)
    duration = 0;
  struct cuda_span span;
  int64_t rounded = (int64_t)(offset < 0 ? offset - 0.5 : offset + 0.5); /* to nearest */
  span.start_raw_ns = (uint64_t)((int64_t)ref_raw_ns + rounded);
  span.end_raw_ns = span.start_raw_ns + (uint64_t)(duration + 0.5);
  return span;
}

static uint64_t raw_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A command whose events are recorded and not yet read. */
struct pending {
  CUcontext context;
  CUevent start, end;
  enum tracer_command_kind kind;
  uint64_t bytes;
  uintptr_t queue;
  struct tracer_call_id call; /* the launch or copy call that submitted it */
  bool recorded; /* both events recorded: the command may be read */
  char name[160];
};

/* The reference of one context: an event whose CLOCK_MONOTONIC_RAW time is known. The
 * latest command read becomes the next reference, so offsets stay short and precise. */
struct reference {
  CUcontext context;
  CUevent event;
  uint64_t raw_ns;
};

enum { MAX_PENDING = 4096, MAX_CONTEXTS = 64, POOL = 256, DRAIN_AT = 512 };
static struct pending pending[MAX_PENDING];
static size_t pending_count;
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

static CUevent event_take(CUcontext context) {
  if (context != pool_context) {
    while (pool_count)
      cuEventDestroy_v2(pool[--pool_count]);
    pool_context = context;
  }
  if (pool_count)
    return pool[--pool_count];
  CUevent event = NULL;
  if (cuEventCreate(&event, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
    return NULL;
  return event;
}

static void event_give(CUcontext context, CUevent event) {
  if (!event)
    return;
  if (pool_count < POOL && context == pool_context)
    pool[pool_count++] = event;
  else
    cuEventDestroy_v2(event);
}

/* The context's reference, made on first use: an event recorded on a stream of the
 * tracer's own, which is idle, so that it completes at once; its host time is read
 * right after it is known complete. */
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
  uint64_t before = raw_now();
  ok = ok && cuEventRecord(event, stream) == CUDA_SUCCESS &&
       cuEventSynchronize(event) == CUDA_SUCCESS;
  uint64_t after = raw_now();
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

/* Reads every pending command that has completed (all of them when wait is set) and
 * records it. Called with the lock held. */
static void drain(bool wait) {
  size_t kept = 0;
  for (size_t i = 0; i < pending_count; i++) {
    struct pending *p = &pending[i];
    CUresult done = !p->recorded ? CUDA_ERROR_NOT_READY
                    : wait       ? cuEventSynchronize(p->end)
                                 : cuEventQuery(p->end);
    if (done == CUDA_ERROR_NOT_READY) {
      pending[kept++] = *p;
      continue;
    }
    struct reference *r = done == CUDA_SUCCESS ? reference_of(p->context) : NULL;
    float to_start = 0, duration = 0;
    if (r && cuEventElapsedTime_v2(&to_start, r->event, p->start) == CUDA_SUCCESS &&
        cuEventElapsedTime_v2(&duration, p->start, p->end) == CUDA_SUCCESS) {
      struct cuda_span span = cuda_event_span(r->raw_ns, to_start, duration);
      tracer_device_command_of(&p->call, "cuda", p->kind, p->name, p->bytes, p->queue,
                               tracer_clock_raw_to_trace(span.start_raw_ns),
                               tracer_clock_raw_to_trace(span.end_raw_ns));
      if (span.start_raw_ns > r->raw_ns) { /* the start event becomes the reference */
        event_give(p->context, r->event);
        r->event = p->start, r->raw_ns = span.start_raw_ns;
        p->start = NULL;
      }
    }
    event_give(p->context, p->start);
    event_give(p->context, p->end);
  }
  pending_count = kept;
}

static void drain_now(bool wait) {
  if (timing != TIMING_EVENTS)
    return;
  cuda_depth++;
  pthread_mutex_lock(&cuda_lock);
  drain(wait);
  pthread_mutex_unlock(&cuda_lock);
  cuda_depth--;
}

/* The app's synchronizations are where its commands are known complete. */
void cuda_hook_cuCtxSynchronize_after(struct cuda_cuCtxSynchronize_args *args) {
  (void)args;
  drain_now(false);
}
void cuda_hook_cuStreamSynchronize_after(struct cuda_cuStreamSynchronize_args *args) {
  (void)args;
  drain_now(false);
}
void cuda_hook_cuEventSynchronize_after(struct cuda_cuEventSynchronize_args *args) {
  (void)args;
  drain_now(false);
}

/* A context about to go takes its events with it: read what it ran first. */
static void forget_context(CUcontext context) {
  if (timing != TIMING_EVENTS)
    return;
  cuda_depth++;
  pthread_mutex_lock(&cuda_lock);
  drain(true);
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

/* Commands still pending when the process exits are read then: an atexit handler,
 * registered once timing starts, so that it runs before any library's destructors (the
 * driver's teardown among them). */
static void cuda_hooks_exit(void);

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
  CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
  CUptiResult (*flush_all)(uint32_t);
  CUptiResult (*register_timestamp)(CUpti_TimestampCallbackFunc);
} cupti;

enum { CUPTI_BUFFER = 1 << 20 };

static void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max) {
  *buffer = aligned_alloc(8, CUPTI_BUFFER);
  *size = *buffer ? CUPTI_BUFFER : 0;
  *max = 0;
}

static const char *cupti_side(CUpti_ActivityMemoryKind kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "H";
  case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "H";
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "M";
  default: return "D";
  }
}

static void cupti_record(const CUpti_Activity *record) {
  char name[160];
  if (record->kind == CUPTI_ACTIVITY_KIND_KERNEL ||
      record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
    demangle(k->name ? k->name : "kernel", name, sizeof name);
    tracer_device_command("cuda", TRACER_COMMAND_KERNEL, name, 0, k->streamId,
                          tracer_clock_raw_to_trace(k->start), tracer_clock_raw_to_trace(k->end));
  } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)record;
    CUpti_ActivityMemoryKind src = (CUpti_ActivityMemoryKind)m->srcKind,
                             dst = (CUpti_ActivityMemoryKind)m->dstKind;
    const char *host = src == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE ||
                               dst == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
                           ? " pageable"
                       : src == CUPTI_ACTIVITY_MEMORY_KIND_PINNED ||
                               dst == CUPTI_ACTIVITY_MEMORY_KIND_PINNED
                           ? " pinned"
                           : "";
    snprintf(name, sizeof name, "memcpy(%s2%s%s)", cupti_side(src), cupti_side(dst), host);
    tracer_device_command("cuda", TRACER_COMMAND_TRANSFER, name, m->bytes, m->streamId,
                          tracer_clock_raw_to_trace(m->start), tracer_clock_raw_to_trace(m->end));
  } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)record;
    tracer_device_command("cuda", TRACER_COMMAND_TRANSFER, "memset", m->bytes, m->streamId,
                          tracer_clock_raw_to_trace(m->start), tracer_clock_raw_to_trace(m->end));
  }
}

static void CUPTIAPI cupti_buffer_completed(CUcontext context, uint32_t stream,
                                            uint8_t *buffer, size_t size, size_t valid) {
  (void)context, (void)stream, (void)size;
  CUpti_Activity *record = NULL;
  while (cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS)
    cupti_record(record);
  free(buffer);
}

static uint64_t CUPTIAPI cupti_timestamp(void) { return raw_now(); }

static bool cupti_start(void) {
  void *library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    library = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return false;
  void **slots[] = {(void **)&cupti.register_callbacks, (void **)&cupti.enable,
                    (void **)&cupti.next_record, (void **)&cupti.flush_all,
                    (void **)&cupti.register_timestamp};
  const char *names[] = {"cuptiActivityRegisterCallbacks", "cuptiActivityEnable",
                         "cuptiActivityGetNextRecord", "cuptiActivityFlushAll",
                         "cuptiActivityRegisterTimestampCallback"};
  for (size_t i = 0; i < sizeof slots / sizeof *slots; i++)
    if (!(*slots[i] = tracer_real_dlsym(library, names[i])))
      return false;
  return cupti.register_timestamp(cupti_timestamp) == CUPTI_SUCCESS &&
         cupti.register_callbacks(cupti_buffer_requested, cupti_buffer_completed) ==
             CUPTI_SUCCESS &&
         cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS &&
         cupti.enable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS &&
         cupti.enable(CUPTI_ACTIVITY_KIND_MEMSET) == CUPTI_SUCCESS;
}

static void cupti_stop(void) { cupti.flush_all(1); }
#endif

/* CUPTI where it loads (on the H100 it cost 2.2 us a launch against 4.7 us for a pair of
 * CUDA events, with the same accuracy: docs/cuda.md), else CUDA events. */
static enum timing timing_choice(void) {
  atexit(cuda_hooks_exit);
  const char *wanted = getenv("TRACER_CUDA_TIMING");
  if (wanted && strcmp(wanted, "none") == 0)
    return TIMING_NONE;
  if (wanted && strcmp(wanted, "events") == 0)
    return TIMING_EVENTS;
#ifdef CUDA_HOOKS_CUPTI
  if (cupti_start())
    return TIMING_CUPTI;
#endif
  tracer_debug("CUPTI is not available: device times from CUDA events");
  return TIMING_EVENTS;
}

/* ---- commands ---- */

/* The events of the command being launched on this thread, when it is timed. */
static __thread CUevent recording_start, recording_end;

void cuda_command_begin(struct tracer_command *command) {
  recording_start = recording_end = NULL;
  if (command->kind == TRACER_COMMAND_KERNEL && !command->queue)
    command->queue = (uintptr_t)current.stream;
  /* CUPTI or no device times: nothing to record around the command, and no lock to take
   * at every launch (timing, once chosen, never changes). */
  enum timing chosen = __atomic_load_n(&timing, __ATOMIC_ACQUIRE);
  if (chosen == TIMING_CUPTI || chosen == TIMING_NONE)
    return;
  pthread_mutex_lock(&cuda_lock);
  if (timing == TIMING_UNSET)
    __atomic_store_n(&timing, timing_choice(), __ATOMIC_RELEASE);
  if (timing != TIMING_EVENTS) {
    pthread_mutex_unlock(&cuda_lock);
    return;
  }
  if (pending_count >= DRAIN_AT)
    drain(pending_count == MAX_PENDING);
  CUcontext context = NULL;
  if (cuCtxGetCurrent(&context) == CUDA_SUCCESS && pending_count < MAX_PENDING) {
    struct pending *p = &pending[pending_count];
    p->context = context;
    p->recorded = false;
    p->start = event_take(context);
    p->end = event_take(context);
    if (p->start && p->end &&
        cuEventRecord(p->start, (CUstream)command->queue) == CUDA_SUCCESS) {
      recording_start = p->start, recording_end = p->end;
      pending_count++;
    } else {
      event_give(context, p->start);
      event_give(context, p->end);
    }
  }
  pthread_mutex_unlock(&cuda_lock);
}

void cuda_command_end(struct tracer_command *command, int64_t status) {
  struct tracer_call_id call = tracer_call_returned(); /* before any hook's own call */
  CUevent start = recording_start, end = recording_end;
  recording_start = recording_end = NULL;
  /* The end event first, so that nothing the hooks do lies between the two. */
  bool recorded = start && status == CUDA_SUCCESS &&
                  cuEventRecord(end, (CUstream)command->queue) == CUDA_SUCCESS;
  char name[160] = "";
  if (recorded && command->kind == TRACER_COMMAND_KERNEL)
    kernel_name((CUfunction)command->kernel, command->name, name, sizeof name);
  else if (recorded)
    transfer_name(command->name, name, sizeof name);
  memset(&current, 0, sizeof current);
  if (!start)
    return;
  pthread_mutex_lock(&cuda_lock);
  /* Drains on other threads move pending commands: find this one by its start event,
   * from the newest, where it nearly always is. */
  size_t i = pending_count;
  while (i > 0 && pending[i - 1].start != start)
    i--;
  i = i ? i - 1 : pending_count;
  if (i < pending_count && recorded) {
    struct pending *p = &pending[i];
    p->kind = command->kind;
    p->bytes = command->bytes;
    p->queue = command->queue;
    p->call = call;
    p->recorded = true;
    snprintf(p->name, sizeof p->name, "%s", name);
  } else if (i < pending_count) {
    event_give(pending[i].context, pending[i].start);
    event_give(pending[i].context, pending[i].end);
    pending[i] = pending[--pending_count];
  }
  pthread_mutex_unlock(&cuda_lock);
}

static void cuda_hooks_exit(void) {
#ifdef CUDA_HOOKS_CUPTI
  if (timing == TIMING_CUPTI)
    cupti_stop();
#endif
  forget_context(NULL);
}
