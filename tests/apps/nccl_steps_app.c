/* nccl_steps_app: one process that drives two GPUs, as nccl-tests' `-g 2` does, for the
 * steps, windows and diff tests on the null CUDA driver and NCCL
 * (tests/backends/nccl_steps_test.sh):
 *
 *   nccl_steps_app [STEPS [VARIANT]]
 *
 * Set-up (cuInit, a context per device, a module, a communicator per device) happens
 * before the first step. Each step, an NVTX range "Step.N" (N from 1), puts on each
 * device a kernel `compute` of KERNEL_BLOCKS blocks and an ncclAllReduce, then waits for
 * both streams (cuStreamSynchronize). VARIANT `slower` gives `compute` SLOWER_FACTOR times
 * the blocks (the null driver runs a kernel NULL_CUDA_KERNEL_NS_PER_BLOCK ns a block);
 * `extra` adds a cuMemsetD32Async to each device's step.
 *
 * Writes to $APP_MANIFEST the calls it made in each step (by function) and its kernels per
 * step; exits 77 when no NVTX tool is named (NVTX_INJECTION64_PATH).
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <nccl.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

#define CU(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == CUDA_SUCCESS)
#define NCCL(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == ncclSuccess)

enum { DEVICES = 2, MAX_STEPS = 32, KERNEL_BLOCKS = 2, SLOWER_FACTOR = 5, COUNT = 1 << 16 };

struct snapshot {
  uint64_t value[MANIFEST_NAMES];
  size_t count;
};

static void snap(struct snapshot *s) {
  s->count = manifest_calls.count;
  memcpy(s->value, manifest_calls.value, sizeof s->value);
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 6;
  const char *variant = argc > 2 ? argv[2] : "";
  if (steps < 1 || steps > MAX_STEPS)
    return 2;
  if (!getenv("NVTX_INJECTION64_PATH")) {
    fprintf(stderr, "nccl_steps_app: no NVTX tool (NVTX_INJECTION64_PATH)\n");
    return 77;
  }
  int slower = strcmp(variant, "slower") == 0, extra = strcmp(variant, "extra") == 0;
  static const char image[] = "not a cubin: the null driver never reads it";
  CUcontext context[DEVICES];
  CUstream stream[DEVICES];
  CUfunction compute[DEVICES];
  CUdeviceptr buffer[DEVICES];
  ncclComm_t comm[DEVICES];
  CU(cuInit, 0);
  for (int d = 0; d < DEVICES; d++) {
    CUdevice device;
    CUmodule module;
    CU(cuDeviceGet, &device, d);
    CU(cuDevicePrimaryCtxRetain, &context[d], device);
    CU(cuCtxSetCurrent, context[d]);
    CU(cuModuleLoadData, &module, image);
    CU(cuModuleGetFunction, &compute[d], module, "compute");
    CU(cuStreamCreate, &stream[d], 0);
    CU(cuMemAlloc, &buffer[d], COUNT * sizeof(float));
    ncclUniqueId id = {{0}};
    NCCL(ncclCommInitRank, &comm[d], DEVICES, id, d);
  }
  static struct snapshot before[MAX_STEPS], after[MAX_STEPS];
  for (int s = 1; s <= steps; s++) {
    char name[32];
    snprintf(name, sizeof name, "Step.%d", s);
    snap(&before[s - 1]);
    nvtxRangePushA(name);
    for (int d = 0; d < DEVICES; d++) {
      CU(cuCtxSetCurrent, context[d]);
      unsigned blocks = KERNEL_BLOCKS * (slower ? SLOWER_FACTOR : 1);
      CU(cuLaunchKernel, compute[d], blocks, 1, 1, 64, 1, 1, 0, stream[d], NULL, NULL);
      manifest_kernel("compute");
      if (extra)
        CU(cuMemsetD32Async, buffer[d], 0, COUNT, stream[d]);
      NCCL(ncclAllReduce, (const void *)buffer[d], (void *)buffer[d], COUNT, ncclFloat32, ncclSum,
           comm[d], (cudaStream_t)stream[d]);
      manifest_kernel("ncclDevKernel_AllReduce_Sum_f32");
    }
    for (int d = 0; d < DEVICES; d++) {
      CU(cuCtxSetCurrent, context[d]);
      CU(cuStreamSynchronize, stream[d]);
    }
    nvtxRangePop();
    snap(&after[s - 1]);
  }
  for (int d = 0; d < DEVICES; d++) {
    NCCL(ncclCommDestroy, comm[d]);
    CU(cuCtxSetCurrent, context[d]);
    CU(cuMemFree, buffer[d]);
    CU(cuStreamDestroy, stream[d]);
  }
  (void)manifest_write; /* this app writes its steps instead of manifest.h's totals */
  (void)manifest_transfer;
  const char *path = getenv("APP_MANIFEST");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (f) {
    fputs("{\"devices\": 2, \"steps\": [", f);
    for (int s = 0; s < steps; s++) {
      fprintf(f, "%s\n  {\"name\": \"Step.%d\", \"kernels\": %d, \"calls\": {", s ? "," : "", s + 1,
              2 * DEVICES);
      const char *sep = "";
      for (size_t i = 0; i < after[s].count; i++) {
        uint64_t was = i < before[s].count ? before[s].value[i] : 0;
        if (after[s].value[i] > was) {
          fprintf(f, "%s\"%s\": %llu", sep, manifest_calls.name[i],
                  (unsigned long long)(after[s].value[i] - was));
          sep = ", ";
        }
      }
      fputs("}}", f);
    }
    fputs("\n]}\n", f);
    fclose(f);
  }
  return 0;
}
