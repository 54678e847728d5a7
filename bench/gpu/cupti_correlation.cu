// Does CUPTI join a launch's external correlation id to the kernel's record, and what
// must be enabled for it? Launches an empty kernel N times through the driver
// (cuLaunchKernel and cuLaunchKernelEx, as NCCL does), each inside its own pushed CUSTOM2
// id, with CUPTI set up as MODE says, and counts:
//   kernels=<kernel records> external=<CUSTOM2 external correlation records>
//   joined=<kernel records whose correlationId one of those records names, with the id
//   pushed around that very launch> api=<driver API records> launched=<N> us_per_launch=<..>
// MODE: none (no CUPTI: the launch's own cost), kernel (the kernel kinds and
// EXTERNAL_CORRELATION, as the tracer's CUDA hooks first did), driver (and every driver
// API's record), launch_api (and the records of the two launch APIs only:
// cuptiActivityEnableDriverApi).
// Exits 77 without a device, 1 when a call fails.
//
// nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -o cupti_correlation cupti_correlation.cu -lcupti -lcuda
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <chrono>
#include <cstring>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

__global__ void empty_kernel() {}

static std::vector<uint32_t> kernel_correlations;
static std::map<uint32_t, uint64_t> external_of; // correlation id -> external id
static unsigned external_records, api_records;

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max) {
  *buffer = static_cast<uint8_t *>(aligned_alloc(8, 1 << 20));
  *size = 1 << 20;
  *max = 0;
}

static void CUPTIAPI completed(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid) {
  CUpti_Activity *record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
      kernel_correlations.push_back(((CUpti_ActivityKernel10 *)record)->correlationId);
    else if (record->kind == CUPTI_ACTIVITY_KIND_DRIVER)
      api_records++;
    else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      auto *c = (CUpti_ActivityExternalCorrelation *)record;
      if (c->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2) {
        external_records++;
        external_of[c->correlationId] = c->externalId;
      }
    }
  }
  free(buffer);
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != 0) {                                                                             \
      fprintf(stderr, "%s failed\n", #call);                                                       \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  int launches = argc > 1 ? atoi(argv[1]) : 1000, devices = 0;
  const char *mode = argc > 2 ? argv[2] : "kernel";
  bool cupti = strcmp(mode, "none") != 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    return 77;
  if (cupti) {
    CHECK(cuptiActivityRegisterCallbacks(requested, completed));
    CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  }
  if (strcmp(mode, "driver") == 0)
    CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
  if (strcmp(mode, "launch_api") == 0) {
    CHECK(cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 1));
    CHECK(cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, 1));
  }
  CHECK(cudaFree(nullptr));
  cudaFunction_t function;
  CHECK(cudaGetFuncBySymbol(&function, (const void *)empty_kernel));
  CUfunction f = (CUfunction)function;
  std::map<uint64_t, int> pushed; // external id -> launch
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; i++) {
    uint64_t id = 1000 + i;
    if (cupti)
      CHECK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, id));
    if (i % 2) {
      CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
    } else {
      CUlaunchConfig config = {};
      config.gridDimX = config.gridDimY = config.gridDimZ = 1;
      config.blockDimX = 32, config.blockDimY = config.blockDimZ = 1;
      CHECK(cuLaunchKernelEx(&config, f, nullptr, nullptr));
    }
    uint64_t last = 0;
    if (cupti)
      CHECK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &last));
    pushed[id] = i;
  }
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  CHECK(cudaDeviceSynchronize());
  if (cupti)
    CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  unsigned joined = 0;
  for (uint32_t c : kernel_correlations) {
    auto e = external_of.find(c);
    joined += e != external_of.end() && pushed.count(e->second);
  }
  printf("mode=%s kernels=%zu external=%u joined=%u api=%u launched=%d us_per_launch=%.2f\n", mode,
         kernel_correlations.size(), external_records, joined, api_records, launches,
         us / launches);
  return 0;
}
