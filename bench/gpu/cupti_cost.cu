// What CUPTI's activity tracing costs by itself, without the tracer: the host time of a
// kernel launch and of two getters the CUDA runtime and PyTorch call hundreds of times a
// step, with CUPTI set up one way or another (issue 20: is a cheaper set-up than the
// tracer's own there to be had?).
//
//   cupti_cost CONFIG [LAUNCHES]
//
// CONFIG:
//   off        no CUPTI at all (the baseline)
//   tracer     as runtime/hooks/cuda_hooks.c sets it up: concurrent kernels, memcpy and
//              memset records, the timestamp callback (CLOCK_MONOTONIC_RAW)
//   kernels    concurrent kernel records only, CUPTI's own timestamps
//   pinned     as kernels, with CUPTI's profiling buffers in pinned host memory
//              (CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED) instead of device memory
//   serial     CUPTI_ACTIVITY_KIND_KERNEL (kernels serialized), for reference
//   hes        as kernels, with cuptiActivityEnableHWTrace(1) (Blackwell's hardware
//              events); says so and goes on as kernels where it is not supported
//   launchapi  as tracer, with the launch APIs' own activity records and external
//              correlation records on (runtime/cupti/cupti_records.c), nothing pushed
//   correlate  as launchapi, with an external id pushed and popped around each launch,
//              as the tracer's cupti_launch_begin/end do: the whole of the tie's CUPTI cost
//
// Prints one line: config=... launch_ns=<median over rounds of the mean host ns of one
// launch> getdevice_ns=... ctxgetcurrent_ns=... records=<kernel records CUPTI delivered>
// launched=<kernels launched>. An empty kernel (<<<1, 32>>>) is launched in batches of
// 256 timed on CLOCK_MONOTONIC, the stream synchronized between batches, untimed, so the
// launch queue never fills. Exits 77 without a device, 1 when a call fails.
//
// nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -o cupti_cost cupti_cost.cu -lcupti -lcuda
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_activity.h>
#include <cupti_driver_cbid.h>

#include <algorithm>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t status_ = (call);                                                          \
    if (status_ != cudaSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                       \
              cudaGetErrorString(status_));                                                \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

#define CHECK_CUPTI(call)                                                                  \
  do {                                                                                     \
    CUptiResult status_ = (call);                                                          \
    if (status_ != CUPTI_SUCCESS) {                                                        \
      const char *why_ = "";                                                               \
      cuptiGetResultString(status_, &why_);                                                \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, why_);               \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

__global__ void empty_kernel() {}

static uint64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t kernel_records;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max) {
  enum { BUFFER = 8 << 20 };
  *buffer = (uint8_t *)aligned_alloc(8, BUFFER);
  *size = *buffer ? BUFFER : 0;
  *max = 0;
}

static void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t *buffer, size_t,
                                      size_t valid) {
  CUpti_Activity *record = NULL;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
      kernel_records++;
  free(buffer);
}

static uint64_t CUPTIAPI raw_timestamp(void) { return now_ns(CLOCK_MONOTONIC_RAW); }

/* CUPTI set up before the first CUDA call, as the tracer does at cuInit. */
static void cupti_setup(const char *config) {
  if (strcmp(config, "off") == 0)
    return;
  if (strcmp(config, "pinned") == 0) {
    uint8_t pinned = 1;
    size_t size = sizeof pinned;
    CHECK_CUPTI(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED,
                                          &size, &pinned));
  }
  if (strcmp(config, "hes") == 0) {
    if (cuInit(0) != CUDA_SUCCESS)
      exit(77);
    CUptiResult status = cuptiActivityEnableHWTrace(1);
    if (status != CUPTI_SUCCESS) {
      const char *why = "";
      cuptiGetResultString(status, &why);
      printf("hes: cuptiActivityEnableHWTrace: %s; measuring as kernels\n", why);
    }
  }
  bool tracer_like = strcmp(config, "tracer") == 0 || strcmp(config, "launchapi") == 0 ||
                     strcmp(config, "correlate") == 0;
  if (tracer_like)
    CHECK_CUPTI(cuptiActivityRegisterTimestampCallback(raw_timestamp));
  CHECK_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  if (strcmp(config, "serial") == 0) {
    CHECK_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL));
    return;
  }
  CHECK_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  if (tracer_like) {
    CHECK_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    CHECK_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
  }
  if (strcmp(config, "launchapi") == 0 || strcmp(config, "correlate") == 0) {
    static const CUpti_CallbackId launch_apis[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
    for (CUpti_CallbackId id : launch_apis)
      CHECK_CUPTI(cuptiActivityEnableDriverApi(id, 1));
    CHECK_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  }
}

static bool push_pop; /* correlate: an external id around each launch */
static uint64_t external_id;

/* The median over rounds of the mean ns of one call of `call`, `count` calls a round. */
template <typename Call> static double median_call_ns(int rounds, int count, Call call) {
  double means[16];
  for (int r = 0; r < rounds; r++) {
    uint64_t t0 = now_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < count; i++)
      call();
    means[r] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / count;
  }
  std::sort(means, means + rounds);
  return means[rounds / 2];
}

int main(int argc, char **argv) {
  static const char *configs[] = {"off",    "tracer", "kernels",   "pinned",
                                  "serial", "hes",    "launchapi", "correlate"};
  const char *config = argc > 1 ? argv[1] : "";
  bool known = false;
  for (const char *c : configs)
    known = known || strcmp(c, config) == 0;
  long launches = argc > 2 ? strtol(argv[2], NULL, 10) : 100000;
  if (!known || launches < 256) {
    fprintf(stderr, "usage: cupti_cost off|tracer|kernels|pinned|serial|hes|launchapi|correlate "
                    "[LAUNCHES >= 256]\n");
    return 2;
  }
  cupti_setup(config);
  push_pop = strcmp(config, "correlate") == 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    return 77;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < 1000; i++) /* warm-up: module load, CUPTI's buffers */
    empty_kernel<<<1, 32, 0, stream>>>();
  CHECK(cudaStreamSynchronize(stream));

  enum { BATCH = 256, ROUNDS = 7 };
  long batches = launches / BATCH;
  double round_ns[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    uint64_t host_ns = 0;
    for (long b = 0; b < batches; b++) {
      uint64_t t0 = now_ns(CLOCK_MONOTONIC);
      if (push_pop)
        for (int i = 0; i < BATCH; i++) {
          cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2,
                                                 ++external_id);
          empty_kernel<<<1, 32, 0, stream>>>();
          cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, NULL);
        }
      else
        for (int i = 0; i < BATCH; i++)
          empty_kernel<<<1, 32, 0, stream>>>();
      host_ns += now_ns(CLOCK_MONOTONIC) - t0;
      CHECK(cudaStreamSynchronize(stream));
    }
    CHECK(cudaGetLastError());
    round_ns[r] = (double)host_ns / (double)(batches * BATCH);
  }
  std::sort(round_ns, round_ns + ROUNDS);

  int device = -1;
  double getdevice = median_call_ns(ROUNDS, 200000, [&] { cudaGetDevice(&device); });
  CUcontext context = NULL;
  double ctxgetcurrent = median_call_ns(ROUNDS, 200000, [&] { cuCtxGetCurrent(&context); });

  if (strcmp(config, "off") != 0)
    CHECK_CUPTI(cuptiActivityFlushAll(1));
  printf("config=%s launch_ns=%.0f getdevice_ns=%.1f ctxgetcurrent_ns=%.1f records=%llu "
         "launched=%ld\n",
         config, round_ns[ROUNDS / 2], getdevice, ctxgetcurrent,
         (unsigned long long)kernel_records, 1000 + ROUNDS * batches * BATCH);
  return 0;
}
