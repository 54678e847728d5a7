/* A HIP program for the tracer's HIP test: allocations, copies of each kind, kernels
 * launched by host symbol and from a module, synchronization. It runs against the null
 * library apigen makes from api-specs/hip.yaml (every call succeeds and does nothing),
 * so it checks only that each call succeeds, and counts what it did (manifest.h).
 */
#include <hip/hip_runtime_api.h>

#include "manifest.h"

#define HIP(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == hipSuccess)

enum { N = 4096 };

/* Kernels as HIP-Clang names them on the host: a symbol whose address the launch passes.
 * Exported (-rdynamic) so that their names can be found, as a real HIP app's are. */
void vadd_kernel(float *c, const float *a, const float *b);
void vadd_kernel(float *c, const float *a, const float *b) { (void)c, (void)a, (void)b; }
void scale_kernel(float *x);
void scale_kernel(float *x) { (void)x; }

static void launch(const void *kernel, const char *name, void **args, hipStream_t stream) {
  dim3 grid = {N / 256, 1, 1}, block = {256, 1, 1};
  HIP(hipLaunchKernel, kernel, grid, block, args, 0, stream);
  manifest_kernel(name);
}

int main(void) {
  static float host_a[N], host_b[N], host_c[N];
  int devices = -1;
  HIP(hipGetDeviceCount, &devices);
  HIP(hipSetDevice, 0);
  hipStream_t stream;
  HIP(hipStreamCreate, &stream);
  void *a, *b, *c;
  HIP(hipMalloc, &a, sizeof host_a);
  HIP(hipMalloc, &b, sizeof host_b);
  HIP(hipMalloc, &c, sizeof host_c);

  HIP(hipMemcpy, a, host_a, sizeof host_a, hipMemcpyHostToDevice);
  manifest_transfer("hipMemcpy(H2D)", sizeof host_a);
  HIP(hipMemcpyHtoD, (hipDeviceptr_t)b, host_b, sizeof host_b);
  manifest_transfer("hipMemcpyHtoD", sizeof host_b);
  HIP(hipMemset, c, 0, sizeof host_c);
  manifest_transfer("hipMemset", sizeof host_c);

  void *vadd_args[] = {&c, &a, &b};
  launch((const void *)vadd_kernel, "vadd_kernel", vadd_args, stream);
  launch((const void *)vadd_kernel, "vadd_kernel", vadd_args, stream);
  void *scale_args[] = {&c};
  launch((const void *)scale_kernel, "scale_kernel", scale_args, stream);

  /* A kernel from a module, named by hipModuleGetFunction. */
  static const char image[] = "not a code object: the null library never reads it";
  hipModule_t module;
  hipFunction_t function;
  HIP(hipModuleLoadData, &module, image);
  HIP(hipModuleGetFunction, &function, module, "module_kernel");
  HIP(hipModuleLaunchKernel, function, N / 256, 1, 1, 256, 1, 1, 0, stream, scale_args, NULL);
  manifest_kernel("module_kernel");

  HIP(hipMemcpyAsync, host_c, c, sizeof host_c / 2, hipMemcpyDeviceToHost, stream);
  HIP(hipMemcpyAsync, host_c + N / 2, c, sizeof host_c / 2, hipMemcpyDeviceToHost, stream);
  manifest_transfer("hipMemcpyAsync(D2H)", sizeof host_c / 2);
  manifest_transfer("hipMemcpyAsync(D2H)", sizeof host_c / 2);
  HIP(hipMemcpy, b, a, sizeof host_a, hipMemcpyDeviceToDevice);
  manifest_transfer("hipMemcpy(D2D)", sizeof host_a);
  HIP(hipStreamSynchronize, stream);
  HIP(hipDeviceSynchronize);

  HIP(hipModuleUnload, module);
  HIP(hipFree, a);
  HIP(hipFree, b);
  HIP(hipFree, c);
  HIP(hipStreamDestroy, stream);
  manifest_write();
  printf("hip_app: %d devices, done\n", devices);
  return 0;
}
