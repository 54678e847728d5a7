/* cupti_records: CUPTI's activity records of kernels, copies and memsets, read as CUPTI
 * hands its buffers back and recorded as device_command events (cupti_source.h).
 *
 * CUPTI reads device times on the clock the tracer gives it (CLOCK_MONOTONIC_RAW),
 * converted to the trace clock as they are read. Each command's device is CUPTI's
 * deviceId, named through the CUDA hooks (tracer_device_ordinal). Records have no API
 * function: transfers are named "memcpy(H2D pageable)" and "memset".
 */
#include "cupti_source.h"

#ifdef TRACER_CUPTI
#include <cupti_driver_cbid.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti_collector.h"
#include "tracer_device_clock.h"
#include "tracer_wrappers.h"

struct cupti_api cupti;
bool cupti_correlates;

void *cupti_library(void) {
  void *library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
  return library ? library : dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
}

/* The commands' APIs whose activity records CUPTI writes for the tracer: an external
 * correlation record comes only before an API's own record (seen on H200 with CUPTI 13:
 * none at all with the kernel kinds alone, bench/gpu-runs/run7), so each command function
 * (the spec's trace.commands: launches, copies, memsets) has its API's records on, found
 * by name among CUPTI's driver callbacks (cuptiGetCallbackName); no other driver call is
 * worth a record each. They must be on before the first command: turned on at a
 * function's first call, CUPTI 13 on the H200 wrote no external correlation record at all
 * (bench/gpu-runs/run14), so CUPTI starts with those of the driver's launch, copy and
 * memset families on (api_records_early), and a command of another name gets its own at
 * its first call. */
enum { API_RECORDS_MAX = 64 };
static struct {
  const char *function; /* the command's (a static string of the interposer) */
  bool on;
} api_records[API_RECORDS_MAX];
static unsigned api_record_count; /* published with release order, entries never change */
static bool records_on[CUPTI_DRIVER_TRACE_CBID_SIZE]; /* the APIs whose records the tracer turned on */
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;

/* CUPTI's id of a driver API by name; 0 when CUPTI names none so. */
static CUpti_CallbackId driver_cbid(const char *function) {
  for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++) {
    const char *name = NULL;
    if (cupti.callback_name(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS && name &&
        strcmp(name, function) == 0)
      return cbid;
  }
  return 0;
}

bool cupti_api_records(const char *function) {
  unsigned n = __atomic_load_n(&api_record_count, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++)
    if (api_records[i].function == function)
      return api_records[i].on;
  pthread_mutex_lock(&api_lock);
  bool on = false, found = false;
  for (unsigned i = 0; i < api_record_count && !found; i++)
    if (api_records[i].function == function)
      found = true, on = api_records[i].on;
  if (!found && api_record_count < API_RECORDS_MAX) {
    CUpti_CallbackId cbid = driver_cbid(function);
    on = cbid && cupti.enable_driver_api(cbid, 1) == CUPTI_SUCCESS;
    if (on)
      records_on[cbid] = true;
    api_records[api_record_count].function = function;
    api_records[api_record_count].on = on;
    __atomic_store_n(&api_record_count, api_record_count + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&api_lock);
  return on;
}

/* The driver API families the spec's commands come from (api-specs/cuda.yaml's
 * trace.commands): their records on, before any command. True when any took it: a
 * callback this CUPTI refuses (a deprecated API's) leaves the others' commands tied. */
static bool api_records_early(void) {
  static const char *const families[] = {"cuLaunch", "cuMemcpy", "cuMemset"};
  bool any = false;
  for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++) {
    const char *name = NULL;
    if (cupti.callback_name(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) != CUPTI_SUCCESS || !name)
      continue;
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
      if (strncmp(name, families[i], strlen(families[i])) == 0) {
        records_on[cbid] = cupti.enable_driver_api(cbid, 1) == CUPTI_SUCCESS;
        any |= records_on[cbid];
      }
  }
  return any;
}

/* Turns the commands' API records off (the app's CUPTI client comes). */
static void api_records_off(void) {
  pthread_mutex_lock(&api_lock);
  for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
    if (records_on[cbid])
      cupti.enable_driver_api(cbid, 0), records_on[cbid] = false;
  pthread_mutex_unlock(&api_lock);
}

enum { BUFFER = 1 << 20 };

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max) {
  *buffer = aligned_alloc(8, BUFFER);
  *size = *buffer ? BUFFER : 0;
  *max = 0;
}

static enum tracer_memory memory_of(uint8_t kind) {
  switch ((CUpti_ActivityMemoryKind)kind) {
  case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return TRACER_MEMORY_PAGEABLE;
  case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return TRACER_MEMORY_HOST;
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return TRACER_MEMORY_SHARED;
  default: return TRACER_MEMORY_DEVICE;
  }
}

/* CUPTI's deviceId is CUDA's ordinal. */
static int32_t device_of(uint32_t id) { return tracer_device_ordinal("cuda", id); }

static void record(const CUpti_Activity *record) {
  static const struct tracer_copy_names names = {'H', 'H', 'D', 'M', true};
  char kind[32];
  struct cupti_command c = {0};
  if (record->kind == CUPTI_ACTIVITY_KIND_KERNEL ||
      record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
    c = (struct cupti_command){k->correlationId,
                               device_of(k->deviceId),
                               TRACER_COMMAND_KERNEL,
                               "",
                               0,
                               k->streamId,
                               k->start,
                               k->end};
    tracer_demangle(k->name ? k->name : "kernel", c.name, sizeof c.name);
  } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)record;
    c = (struct cupti_command){m->correlationId,
                               device_of(m->deviceId),
                               TRACER_COMMAND_TRANSFER,
                               "",
                               m->bytes,
                               m->streamId,
                               m->start,
                               m->end};
    tracer_copy_kind(&names, memory_of(m->srcKind), memory_of(m->dstKind), kind, sizeof kind);
    snprintf(c.name, sizeof c.name, "memcpy(%s)", kind);
  } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
    const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)record;
    c = (struct cupti_command){m->correlationId,
                               device_of(m->deviceId),
                               TRACER_COMMAND_TRANSFER,
                               "memset",
                               m->bytes,
                               m->streamId,
                               m->start,
                               m->end};
  } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
    cupti_correlation_record((const CUpti_ActivityExternalCorrelation *)record);
    return;
  } else {
    return;
  }
  tracer_clock_raw_span_to_trace(&c.start, &c.end);
  cupti_command_record(&c);
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid) {
  (void)context, (void)stream, (void)size;
  CUpti_Activity *next = NULL;
  while (cupti.next_record(buffer, valid, &next) == CUPTI_SUCCESS)
    record(next);
  free(buffer);
}

static uint64_t CUPTIAPI timestamp(void) { return tracer_clock_raw_now(); }

/* CUPTI's own clock on Linux (CLOCK_REALTIME), for an app given CUPTI that sets none. */
static uint64_t CUPTIAPI default_timestamp(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* CUPTI's last records at exit: an atexit handler, registered once CUPTI starts, so that
 * it runs before any library's destructors (the driver's teardown among them). Not once
 * the app has CUPTI: its buffers are the app's, and so is their last flush. */
static void records_stop(void) {
  if (!cupti_app_has_cupti()) {
    cupti_pc_sampling_stop(NULL);
    cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  cupti_held_release();
}

bool cupti_records_start(void) {
  void *library = cupti_library();
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
  cupti.callback_name = tracer_real_dlsym(library, "cuptiGetCallbackName");
  bool started = cupti.register_timestamp(timestamp) == CUPTI_SUCCESS &&
                 cupti.register_callbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS &&
                 cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS &&
                 cupti.enable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS &&
                 cupti.enable(CUPTI_ACTIVITY_KIND_MEMSET) == CUPTI_SUCCESS;
  /* The submitting calls, where this CUPTI correlates external ids. */
  cupti_correlates = started && cupti.push_external && cupti.pop_external &&
                     cupti.enable_driver_api && cupti.callback_name && api_records_early() &&
                     cupti.enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) == CUPTI_SUCCESS;
  if (started)
    atexit(records_stop);
  return started;
}

void cupti_records_hand_over(void) {
  cupti.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cupti.disable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cupti.disable(CUPTI_ACTIVITY_KIND_MEMSET);
  cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (cupti_correlates) {
    cupti.disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    api_records_off();
  }
  cupti_held_release();
  cupti.register_timestamp(default_timestamp);
}
#endif
