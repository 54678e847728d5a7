/* CUDA driver hooks: what no spec can say about the driver's device work.
 *
 * - Kernels and copies become device_command events with device start and end times,
 *   from CUPTI's activity records (runtime/cupti/, which also chooses the source) or from
 *   CUDA events: a pair recorded around the command on the app's stream, pending
 *   (tracer_pending.h) until read, placed on the host's clock through a reference event
 *   whose host time is known.
 * - Each command's device: the current context's (cuCtxGetDevice), named by
 *   cuDeviceGetName (trace.devices).
 * - Kernel names as the device knows them (cuFuncGetName, cuKernelGetName), demangled;
 *   copies named by kind from the pointers' attributes (cuda_memory_of, the spec's
 *   trace.copy_kinds): "cuMemcpyAsync(H2D pageable)".
 *
 * Calls the hooks make to the driver go through cuda_depth, so they are not traced. One
 * lock guards the event pool and the references; the pending commands' lock, when both
 * are taken, is taken first.
 */
#include <pthread.h>

#include "cuda_args.h"
#include "cupti_source.h"
#include "tracer_device_clock.h"
#include "tracer_pending.h"

/* ---- names and devices ---- */

/* A kernel's name, looked up and demangled once per function: demangling one of PyTorch's
 * template names takes microseconds, more than the launch itself. Unloading a module or
 * library may free a function whose handle comes back for another kernel: the names are
 * forgotten then (trace.forget_kernel_names). */
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
  if (cuda_timing() != CUDA_TIMING_EVENTS)
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
void cuda_hook_cuInit_after(struct cuda_cuInit_args *args) {
  if (args->tracer_status == CUDA_SUCCESS)
    cuda_timing_choose();
}

/* ---- commands ---- */

/* The events of the command being launched on this thread, when they time it. */
static __thread struct {
  CUcontext context;
  CUevent start, end;
} recording;

void cuda_command_begin(struct tracer_command *command) {
  recording.start = recording.end = NULL;
  /* CUPTI or no device times: no events to record around the command, and no lock to
   * take at every launch. */
  enum cuda_timing timing = cuda_timing_choose();
  if (timing == CUDA_TIMING_CUPTI)
    cupti_launch_begin(command);
  if (timing != CUDA_TIMING_EVENTS)
    return;
  pthread_mutex_lock(&cuda_lock);
  CUcontext context = NULL;
  if (cuCtxGetCurrent(&context) == CUDA_SUCCESS) {
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
  cupti_launch_end(status);
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
