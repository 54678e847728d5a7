/* A stand-in for CUPTI's activity API (libcupti.so.13) over the null CUDA driver, for the
 * tracer's tests: just what a CUPTI client (the tracer, an app's own profiler) sees.
 * - One set of buffer callbacks and one timestamp callback per process, as CUPTI has: a
 *   second registration replaces the first, and a buffer asked of the first client is
 *   completed to the second (the clash of two clients, docs/cuda.md).
 * - A kernel launched while CUPTI_ACTIVITY_KIND_(CONCURRENT_)KERNEL is enabled becomes a
 *   CUpti_ActivityKernel10 record of STANDIN_KERNEL_NS on the device of the launching
 *   thread's context, stamped by the timestamp callback
 *   (else CLOCK_REALTIME, CUPTI's own clock on Linux); the null driver tells of launches
 *   (null_cuda_observe_launches in cuda_null_behaviour.c). Other kinds record nothing.
 * - Each launch has a correlation id, which its kernel record carries. While
 *   CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION is enabled and so are the launch API's own
 *   records (CUPTI_ACTIVITY_KIND_DRIVER, or cuptiActivityEnableDriverApi for
 *   cuLaunchKernel or cuLaunchKernelEx: real CUPTI writes an external correlation record
 *   only before an API record, and none with the kernel kinds alone), a launch made with
 *   external ids pushed on its thread (cuptiActivityPushExternalCorrelationId) also gets
 *   one CUpti_ActivityExternalCorrelation record per kind pushed, joining the innermost id
 *   of that kind to its correlation id. As CUPTI may, the kernel's record comes first: it
 *   is written before them, so a client cannot rely on their order. The API records
 *   themselves are not written (a client skips kinds it does not read).
 * - A copy or memset of the null driver (null_cuda_observe_copies) becomes a
 *   CUpti_ActivityMemcpy6 or CUpti_ActivityMemset4 record while its kind is enabled, with
 *   a correlation id of its own, and external correlation records as a launch's, while
 *   its own API's records are on (cuptiActivityEnableDriverApi with its callback id, which
 *   cuptiGetCallbackName names for the functions the null driver tells of).
 * - As CUPTI 13 on the H200 did (bench/gpu-runs/run14), an API's records turned on after
 *   the process's first launch or copy are taken (CUPTI_SUCCESS) but never followed by
 *   external correlation records: a client must turn them on before its first command.
 * - Records lie in slots of one size in the client's buffers; cuptiActivityGetNextRecord
 *   walks them. A buffer is handed back when full, flushed, or every
 *   STANDIN_LAUNCHES_PER_BUFFER launches, on a thread of the stand-in's own.
 * - The PC sampling API: cupti_standin_pc_sampling.c.
 */
#define _GNU_SOURCE
#include <cupti.h>
#include <cupti_driver_cbid.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

enum { STANDIN_KERNEL_NS = 7000 };

void null_cuda_observe_launches(void (*observer)(const char *name, uintptr_t stream,
                                                 int device));
void null_cuda_observe_copies(void (*observer)(const char *api, uint64_t bytes,
                                               uintptr_t stream, int device));
/* The PC sampling API's side of a launch (cupti_standin_pc_sampling.c). */
void standin_pc_sampling_launch(const char *name);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static CUpti_TimestampCallbackFunc stamp;
static uint64_t enabled; /* bit per kind below 64 */
static uint8_t *buffer;  /* the buffer being filled, asked of whoever was registered */
static size_t buffer_size, buffer_used;
static uint32_t correlations; /* the last launch's correlation id */

/* External ids pushed on this thread, per kind: a stack of a few. */
enum { EXTERNAL_KINDS = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 + 1, EXTERNAL_DEPTH = 8 };
static __thread uint64_t pushed[EXTERNAL_KINDS][EXTERNAL_DEPTH];
static __thread unsigned pushed_depth[EXTERNAL_KINDS];

/* Every record takes one slot, of the largest record's size. */
enum { SLOT = sizeof(CUpti_ActivityKernel10) };

static uint64_t now(void) {
  if (stamp)
    return stamp();
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static bool kernels_enabled(void) {
  return enabled &
         ((1ull << CUPTI_ACTIVITY_KIND_KERNEL) | (1ull << CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
}

enum { STANDIN_LAUNCHES_PER_BUFFER = 4 };

struct hand_over {
  CUpti_BuffersCallbackCompleteFunc to;
  uint8_t *buffer;
  size_t size, used;
};

static void *hand_over(void *arg) {
  struct hand_over *h = arg;
  h->to(NULL, 0, h->buffer, h->size, h->used);
  return NULL;
}

/* Hands the buffer being filled to the client registered now, on a thread of its own, as
 * CUPTI does from its worker thread: what the client writes there is not the launching
 * thread's. Called with lock held; returns with it held. */
static void complete_buffer(bool forced) {
  if (!buffer || (!buffer_used && !forced) || !completed)
    return;
  struct hand_over h = {completed, buffer, buffer_size, buffer_used};
  buffer = NULL, buffer_size = buffer_used = 0;
  pthread_mutex_unlock(&lock);
  pthread_t worker;
  if (pthread_create(&worker, NULL, hand_over, &h) == 0)
    pthread_join(worker, NULL);
  else
    hand_over(&h);
  pthread_mutex_lock(&lock);
}

/* A slot of the buffer being filled, asked of the client when needed; NULL when none
 * can be had. Called with lock held. */
static void *next_slot(void) {
  if (buffer && buffer_size - buffer_used < SLOT)
    complete_buffer(false);
  if (!buffer) {
    size_t max = 0;
    requested(&buffer, &buffer_size, &max);
    buffer_used = 0;
  }
  if (!buffer || buffer_size - buffer_used < SLOT)
    return NULL;
  void *slot = buffer + buffer_used;
  memset(slot, 0, SLOT);
  buffer_used += SLOT;
  return slot;
}

/* Driver APIs whose own records are on (cuptiActivityEnableDriverApi), by callback id. */
static bool api_records[CUPTI_DRIVER_TRACE_CBID_SIZE];
/* A launch or copy was made: API records turned on from now on write no external
 * correlation records (real CUPTI's behaviour, above). */
static bool commands_made;

/* The names of the driver APIs the null driver tells of (cuptiGetCallbackName). */
static const struct {
  CUpti_CallbackId cbid;
  const char *name;
} api_names[] = {
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel"},
    {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy, "cuMemcpy"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, "cuMemcpyDtoD_v2"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, "cuMemsetD32_v2"},
};

static bool api_records_on(const char *api) {
  for (size_t i = 0; i < sizeof api_names / sizeof *api_names; i++)
    if (strcmp(api_names[i].name, api) == 0)
      return api_records[api_names[i].cbid];
  return false;
}

/* The external correlation records of an API call with correlation id, one per kind
 * pushed on this thread, when its own records are on. Called with lock held. */
static void correlate(uint32_t correlation, bool api_record) {
  if ((enabled & (1ull << CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) && api_record && requested)
    for (unsigned kind = 0; kind < EXTERNAL_KINDS; kind++) {
      CUpti_ActivityExternalCorrelation *c = pushed_depth[kind] ? next_slot() : NULL;
      if (c) {
        c->kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
        c->externalKind = (CUpti_ExternalCorrelationKind)kind;
        c->externalId = pushed[kind][pushed_depth[kind] - 1];
        c->correlationId = correlation;
      }
    }
}

/* A copy or memset of the null driver: a record of its kind, when enabled, and the
 * external correlation records of its API (api: the driver function's name). */
static void copied(const char *api, uint64_t bytes, uintptr_t stream, int device) {
  pthread_mutex_lock(&lock);
  commands_made = true;
  uint32_t correlation = ++correlations;
  bool memset_api = strncmp(api, "cuMemset", 8) == 0;
  CUpti_ActivityKind kind = memset_api ? CUPTI_ACTIVITY_KIND_MEMSET : CUPTI_ACTIVITY_KIND_MEMCPY;
  if ((enabled & (1ull << kind)) && requested) {
    void *slot = next_slot();
    if (slot && memset_api) {
      CUpti_ActivityMemset4 *m = slot;
      m->kind = kind;
      m->start = now();
      m->end = m->start + STANDIN_KERNEL_NS;
      m->bytes = bytes;
      m->streamId = (uint32_t)stream;
      m->deviceId = (uint32_t)device;
      m->correlationId = correlation;
    } else if (slot) {
      CUpti_ActivityMemcpy6 *m = slot;
      m->kind = kind;
      m->copyKind = strstr(api, "HtoD")   ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD
                    : strstr(api, "DtoH") ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOH
                                          : CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
      m->srcKind = strstr(api, "HtoD") ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
                                       : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
      m->dstKind = strstr(api, "DtoH") ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
                                       : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
      m->start = now();
      m->end = m->start + STANDIN_KERNEL_NS;
      m->bytes = bytes;
      m->streamId = (uint32_t)stream;
      m->deviceId = (uint32_t)device;
      m->correlationId = correlation;
    }
  }
  correlate(correlation, api_records_on(api) || (enabled & (1ull << CUPTI_ACTIVITY_KIND_DRIVER)));
  pthread_mutex_unlock(&lock);
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char **name) {
  if (!name)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t i = 0; domain == CUPTI_CB_DOMAIN_DRIVER_API && i < sizeof api_names / sizeof *api_names; i++)
    if (api_names[i].cbid == cbid) {
      *name = api_names[i].name;
      return CUPTI_SUCCESS;
    }
  *name = "unknown";
  return domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE
             ? CUPTI_SUCCESS
             : CUPTI_ERROR_INVALID_PARAMETER;
}

static void launched(const char *name, uintptr_t stream, int device) {
  standin_pc_sampling_launch(name);
  pthread_mutex_lock(&lock);
  /* The buffer goes back every few launches, not only when full or flushed (CUPTI's
   * worker hands buffers over when it likes), here with the records of launches that
   * have returned. CUPTI may also hand one over while a launch is still in its call;
   * that case is not made here (with it, some NCCL kernels lost their tie: to look at). */
  if (correlations % STANDIN_LAUNCHES_PER_BUFFER == 0)
    complete_buffer(false);
  uint32_t correlation = ++correlations;
  commands_made = true;
  if (kernels_enabled() && requested) {
    CUpti_ActivityKernel10 *k = next_slot();
    if (k) {
      k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
      k->start = now();
      k->end = k->start + STANDIN_KERNEL_NS;
      k->streamId = (uint32_t)stream;
      k->deviceId = (uint32_t)device;
      k->correlationId = correlation;
      k->name = name; /* the null driver's names live as long as the process */
    }
  }
  bool api_record = api_records[CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel] ||
                    api_records[CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx] ||
                    (enabled & (1ull << CUPTI_ACTIVITY_KIND_DRIVER));
  correlate(correlation, api_record);
  pthread_mutex_unlock(&lock);
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  if (cbid >= CUPTI_DRIVER_TRACE_CBID_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&lock);
  if (!enable || !commands_made)
    api_records[cbid] = enable != 0;
  pthread_mutex_unlock(&lock);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                             uint64_t id) {
  if ((unsigned)kind >= EXTERNAL_KINDS || kind == CUPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      pushed_depth[kind] == EXTERNAL_DEPTH)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pushed[kind][pushed_depth[kind]++] = id;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                            uint64_t *last) {
  if ((unsigned)kind >= EXTERNAL_KINDS || kind == CUPTI_EXTERNAL_CORRELATION_KIND_INVALID)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (!pushed_depth[kind])
    return CUPTI_ERROR_QUEUE_EMPTY;
  uint64_t id = pushed[kind][--pushed_depth[kind]];
  if (last)
    *last = id;
  return CUPTI_SUCCESS;
}

__attribute__((constructor)) static void standin_start(void) {
  null_cuda_observe_launches(launched);
  null_cuda_observe_copies(copied);
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete) {
  if (!request || !complete)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&lock);
  requested = request, completed = complete;
  pthread_mutex_unlock(&lock);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc f) {
  pthread_mutex_lock(&lock);
  stamp = f;
  pthread_mutex_unlock(&lock);
  return CUPTI_SUCCESS;
}

static CUptiResult set_kind(CUpti_ActivityKind kind, bool on) {
  if ((unsigned)kind >= 64)
    return CUPTI_ERROR_INVALID_KIND;
  pthread_mutex_lock(&lock);
  enabled = on ? enabled | (1ull << kind) : enabled & ~(1ull << kind);
  pthread_mutex_unlock(&lock);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) { return set_kind(kind, true); }
CUptiResult CUPTIAPI cuptiActivityEnableAndDump(CUpti_ActivityKind kind) {
  return set_kind(kind, true);
}
CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) { return set_kind(kind, false); }
CUptiResult CUPTIAPI cuptiActivityEnableContext(CUcontext context, CUpti_ActivityKind kind) {
  (void)context;
  return set_kind(kind, true);
}
CUptiResult CUPTIAPI cuptiActivityDisableContext(CUcontext context, CUpti_ActivityKind kind) {
  (void)context;
  return set_kind(kind, false);
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
  pthread_mutex_lock(&lock);
  complete_buffer(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  pthread_mutex_unlock(&lock);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer_, size_t valid,
                                                CUpti_Activity **record) {
  uint8_t *next = *record ? (uint8_t *)*record + SLOT : buffer_;
  if (!buffer_ || next + SLOT > buffer_ + valid)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = (CUpti_Activity *)next;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp) {
  pthread_mutex_lock(&lock);
  *timestamp = now();
  pthread_mutex_unlock(&lock);
  return CUPTI_SUCCESS;
}
