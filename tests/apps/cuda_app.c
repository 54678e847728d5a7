/* A CUDA driver program for the tracer's CUDA test: a context, allocations, copies of
 * each kind (pinned and pageable host memory), kernels from a module on two streams,
 * cuLaunchKernelEx, a library kernel, and driver functions obtained through
 * cuGetProcAddress, as the CUDA runtime obtains them. It runs against the null driver
 * (generated/cuda/cuda_null_library.c with tests/backends/cuda_null_behaviour.c), so it
 * checks only that each call succeeds, and counts what it did (manifest.h): calls by the
 * name the driver exports, kernels by their demangled names, copies by kind and bytes.
 */
#include <cuda.h>

#include "manifest.h"

#define CU(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == CUDA_SUCCESS)

enum { N = 4096 };

static void launch(CUfunction f, const char *name, CUstream stream, void **args) {
  CU(cuLaunchKernel, f, N / 256, 1, 1, 256, 1, 1, 0, stream, args, NULL);
  manifest_kernel(name);
}

int main(void) {
  static float pageable[N];
  CU(cuInit, 0);
  int devices = -1;
  CU(cuDeviceGetCount, &devices);
  CUdevice device;
  CU(cuDeviceGet, &device, 0);
  CUcontext context;
  CU(cuDevicePrimaryCtxRetain, &context, device);
  CU(cuCtxSetCurrent, context);
  CUstream streams[2];
  CU(cuStreamCreate, &streams[0], CU_STREAM_NON_BLOCKING);
  CU(cuStreamCreate, &streams[1], CU_STREAM_NON_BLOCKING);

  CUdeviceptr a, b;
  float *pinned;
  CU(cuMemAlloc, &a, sizeof pageable);
  CU(cuMemAlloc, &b, sizeof pageable);
  CU(cuMemAllocHost, (void **)&pinned, sizeof pageable);

  CU(cuMemcpyHtoD, a, pageable, sizeof pageable);
  manifest_transfer("cuMemcpyHtoD_v2(H2D pageable)", sizeof pageable);
  CU(cuMemcpyHtoDAsync, b, pinned, sizeof pageable, streams[1]);
  manifest_transfer("cuMemcpyHtoDAsync_v2(H2D pinned)", sizeof pageable);
  CU(cuMemcpy, b, (CUdeviceptr)pageable, sizeof pageable / 2);
  manifest_transfer("cuMemcpy(H2D pageable)", sizeof pageable / 2);
  CU(cuMemsetD32, a, 0, N);
  manifest_transfer("cuMemsetD32_v2", sizeof pageable);

  /* Kernels from a module: a C++ kernel (named by its mangled name, shown demangled) and
   * a Triton specialization (its name is its own). */
  static const char image[] = "not a cubin: the null driver never reads it";
  CUmodule module;
  CUfunction vadd, triton;
  CU(cuModuleLoadData, &module, image);
  CU(cuModuleGetFunction, &vadd, module, "_Z4vaddPfPKfS1_");
  CU(cuModuleGetFunction, &triton, module, "vadd_bs128_w4_s2");
  void *args[] = {&a, &b, &b};
  launch(vadd, "vadd(float*, float const*, float const*)", streams[0], args);
  launch(vadd, "vadd(float*, float const*, float const*)", streams[1], args);
  launch(triton, "vadd_bs128_w4_s2", streams[0], args);

  CUlaunchConfig config = {.gridDimX = N / 128, .gridDimY = 1, .gridDimZ = 1,
                           .blockDimX = 128, .blockDimY = 1, .blockDimZ = 1,
                           .hStream = streams[1]};
  CU(cuLaunchKernelEx, &config, triton, args, NULL);
  manifest_kernel("vadd_bs128_w4_s2");

  /* A library kernel, named by cuKernelGetName, launched as a function. */
  CUlibrary library;
  CUkernel scale;
  CU(cuLibraryLoadData, &library, image, NULL, NULL, 0, NULL, NULL, 0);
  CU(cuLibraryGetKernel, &scale, library, "_Z5scalePff");
  launch((CUfunction)scale, "scale(float*, float)", streams[0], args);

  /* Through cuGetProcAddress, as the CUDA runtime calls the driver. */
  CUresult (*get_alloc)(CUdeviceptr *, size_t) = NULL;
  CUresult (*get_copy)(void *, CUdeviceptr, size_t, CUstream) = NULL;
  CUdriverProcAddressQueryResult found;
  CU(cuGetProcAddress, "cuMemAlloc", (void **)&get_alloc, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &found);
  CU(cuGetProcAddress, "cuMemcpyDtoHAsync", (void **)&get_copy, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &found);
  CUdeviceptr c;
  MANIFEST_CALL(cuMemAlloc_v2, get_alloc(&c, sizeof pageable) == CUDA_SUCCESS);
  MANIFEST_CALL(cuMemcpyDtoHAsync_v2, get_copy(pinned, c, sizeof pageable, streams[0]) == CUDA_SUCCESS);
  manifest_transfer("cuMemcpyDtoHAsync_v2(D2H pinned)", sizeof pageable);

  CU(cuMemcpyDtoD, c, a, sizeof pageable);
  manifest_transfer("cuMemcpyDtoD_v2(D2D)", sizeof pageable);
  CU(cuMemcpyDtoH, pageable, c, sizeof pageable);
  manifest_transfer("cuMemcpyDtoH_v2(D2H pageable)", sizeof pageable);
  /* cudaErrorNotReady-like statuses are results, not failures; the null driver's streams
   * are always idle. */
  CU(cuStreamQuery, streams[1]);
  CU(cuStreamSynchronize, streams[0]);
  CU(cuCtxSynchronize);

  CU(cuModuleUnload, module);
  CU(cuLibraryUnload, library);
  CU(cuMemFree, a);
  CU(cuMemFree, b);
  CU(cuMemFree, c);
  CU(cuMemFreeHost, pinned);
  CU(cuStreamDestroy, streams[0]);
  CU(cuStreamDestroy, streams[1]);
  CU(cuDevicePrimaryCtxRelease, device);
  manifest_write();
  printf("cuda_app: %d devices, done\n", devices);
  return 0;
}
