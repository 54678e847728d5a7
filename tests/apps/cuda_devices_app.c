/* A CUDA driver program on two devices, for the tracer's per-device test: each device's
 * primary context made current in turn, kernels and a copy on a stream of each. It runs
 * against the null driver (tests/backends/cuda_null_behaviour.c: two devices named
 * "Null GPU 0" and "Null GPU 1") and prints, per device, its name and the kernels (by
 * the name the module gives them) and copies it put there, which the test holds the
 * report, the timeline and the OTF2 archive to:
 *   device 0 (Null GPU 0): 3 kernels of kernel_on_first, 1 copies
 * The second device's kernel has a C++ template's mangled name, whose demangled form is
 * longer than the tables show by default (docs/analysis-output.md).
 */
#include <cuda.h>
#include <stdio.h>

#define CU(call)                                                                                   \
  do {                                                                                             \
    if ((call) != CUDA_SUCCESS) {                                                                  \
      fprintf(stderr, "cuda_devices_app: %s failed\n", #call);                                     \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

enum { N = 1024, DEVICES = 2 };

int main(void) {
  static float host[N];
  static const char image[] = "not a cubin: the null driver never reads it";
  /* void (anonymous namespace)::verifyPrepared<unsigned int>(unsigned int*, int) */
  static const char *kernel_of[DEVICES] = {"kernel_on_first",
                                           "_ZN12_GLOBAL__N_114verifyPreparedIjEEvPT_i"};
  static const int launches[DEVICES] = {3, 2};
  CU(cuInit(0));
  int count = 0;
  CU(cuDeviceGetCount(&count));
  if (count < DEVICES) {
    fprintf(stderr, "cuda_devices_app: %d devices, %d needed\n", count, DEVICES);
    return 1;
  }
  for (int d = 0; d < DEVICES; d++) {
    CUdevice device;
    CUcontext context;
    CUstream stream;
    CUmodule module;
    CUfunction kernel;
    CUdeviceptr buffer;
    char name[64];
    CU(cuDeviceGet(&device, d));
    CU(cuDeviceGetName(name, sizeof name, device));
    CU(cuDevicePrimaryCtxRetain(&context, device));
    CU(cuCtxSetCurrent(context));
    CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CU(cuModuleLoadData(&module, image));
    CU(cuModuleGetFunction(&kernel, module, kernel_of[d]));
    CU(cuMemAlloc(&buffer, sizeof host));
    CU(cuMemcpyHtoDAsync(buffer, host, sizeof host, stream));
    void *args[] = {&buffer};
    for (int i = 0; i < launches[d]; i++)
      CU(cuLaunchKernel(kernel, N / 256, 1, 1, 256, 1, 1, 0, stream, args, NULL));
    CU(cuStreamSynchronize(stream));
    CU(cuMemFree(buffer));
    CU(cuStreamDestroy(stream));
    printf("device %d (%s): %d kernels of %s, 1 copies\n", d, name, launches[d], kernel_of[d]);
  }
  return 0;
}
