/* A CUDA driver program with a CUPTI activity client of its own, as a training script
 * running torch.profiler has, for the tracer's test of two CUPTI clients in one process
 * (tests/backends/cupti_client_test.sh). On the null driver with the stand-in CUPTI
 * (tests/backends/cupti_standin.c):
 *   WARMUP kernels "warmup" launched before its client starts, then its client (buffer
 *   callbacks, kernel records enabled), PROFILED kernels "profiled", a flush.
 * Its client must get exactly the PROFILED kernels, in buffers it asked for itself, with
 * times on CUPTI's own clock (CLOCK_REALTIME: no timestamp callback of its own); it says
 * what it got and exits 1 when that is not so. APP_CUPTI_FIRST=1 registers the callbacks
 * before cuInit. The manifest (manifest.h) counts its driver calls and kernels.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cuda.h>
#include <cupti_activity.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "manifest.h"

#define CU(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == CUDA_SUCCESS)
#define CUPTI(call)                                                                                \
  do {                                                                                             \
    if ((call) != CUPTI_SUCCESS) {                                                                 \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call);                            \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

enum { WARMUP = 3, PROFILED = 5, BUFFER_BYTES = 4096, BUFFERS_MAX = 64 };

static uint8_t *mine[BUFFERS_MAX]; /* the buffers the client asked for, not yet completed */
static unsigned records, profiled, unknown_buffers, off_clock;
static uint64_t realtime_at_start;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max) {
  *buffer = aligned_alloc(8, BUFFER_BYTES);
  *size = *buffer ? BUFFER_BYTES : 0;
  *max = 0;
  for (size_t i = 0; i < BUFFERS_MAX && *buffer; i++)
    if (!mine[i]) {
      mine[i] = *buffer;
      break;
    }
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid) {
  (void)context, (void)stream, (void)size;
  bool known = false;
  for (size_t i = 0; i < BUFFERS_MAX && !known; i++)
    if (buffer && mine[i] == buffer)
      mine[i] = NULL, known = true;
  if (!known) { /* PyTorch: "bufferCompleted called with unknown buffer" */
    unknown_buffers++;
    return;
  }
  CUpti_Activity *record = NULL;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    records++;
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
      continue;
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
    profiled += k->name && strcmp(k->name, "profiled") == 0;
    /* CUPTI's clock, as without the tracer: within a minute of the wall clock. */
    off_clock += k->start < realtime_at_start || k->start > realtime_at_start + 60000000000ull;
  }
  free(buffer);
}

static void client_start(void) {
  CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
}

static void launch(CUfunction f, const char *name, CUstream stream) {
  CU(cuLaunchKernel, f, 1, 1, 1, 32, 1, 1, 0, stream, NULL, NULL);
  manifest_kernel(name);
}

int main(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  realtime_at_start = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
  const char *first = getenv("APP_CUPTI_FIRST");
  bool client_first = first && strcmp(first, "1") == 0;
  if (client_first)
    client_start();

  CU(cuInit, 0);
  CUdevice device;
  CU(cuDeviceGet, &device, 0);
  CUcontext context;
  CU(cuDevicePrimaryCtxRetain, &context, device);
  CU(cuCtxSetCurrent, context);
  CUstream stream;
  CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  static const char image[] = "not a cubin: the null driver never reads it";
  CUmodule module;
  CUfunction warmup, profile;
  CU(cuModuleLoadData, &module, image);
  CU(cuModuleGetFunction, &warmup, module, "warmup");
  CU(cuModuleGetFunction, &profile, module, "profiled");

  for (int i = 0; i < WARMUP; i++)
    launch(warmup, "warmup", stream);
  CU(cuStreamSynchronize, stream);

  /* The profiler starts: kernel records into its own buffers. */
  if (!client_first)
    client_start();
  CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  for (int i = 0; i < PROFILED; i++)
    launch(profile, "profiled", stream);
  CU(cuStreamSynchronize, stream);
  CUPTI(cuptiActivityFlushAll(0));
  CUPTI(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));

  CU(cuModuleUnload, module);
  CU(cuStreamDestroy, stream);
  CU(cuDevicePrimaryCtxRelease, device);
  (void)manifest_transfer; /* no copies here */
  manifest_write();
  printf("cupti_client_app: its CUPTI client got %u of %d profiled kernels (%u records), "
         "%u unknown buffers, %u records off CUPTI's clock\n",
         profiled, PROFILED, records, unknown_buffers, off_clock);
  return profiled == PROFILED && records == PROFILED && !unknown_buffers && !off_clock ? 0 : 1;
}
