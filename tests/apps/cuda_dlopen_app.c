/* A program that reaches the CUDA driver as Triton's launcher does: it dlopens libcuda and
 * resolves each function with dlsym on that handle (no link to libcuda at all), then also
 * asks for one through cuGetProcAddress. Run against the null driver; counts its calls
 * (manifest.h) by the names it resolved.
 */
#include <cuda.h>
#include <dlfcn.h>

#include "manifest.h"

/* Resolves function on the handle, with its own type. */
#define RESOLVE(handle, function) ((__typeof__(function) *)resolve(handle, #function))
#define CALL(name, call) MANIFEST_CALL(name, (call) == CUDA_SUCCESS)

static void *resolve(void *handle, const char *name) {
  void *function = dlsym(handle, name);
  if (!function) {
    fprintf(stderr, "cuda_dlopen_app: %s: %s\n", name, dlerror());
    exit(1);
  }
  return function;
}

int main(void) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    fprintf(stderr, "cuda_dlopen_app: %s\n", dlerror());
    return 1;
  }
  __typeof__(cuInit) *init = RESOLVE(driver, cuInit);
  __typeof__(cuDeviceGet) *device_get = RESOLVE(driver, cuDeviceGet);
  __typeof__(cuDevicePrimaryCtxRetain) *retain = RESOLVE(driver, cuDevicePrimaryCtxRetain);
  __typeof__(cuCtxSetCurrent) *set_current = RESOLVE(driver, cuCtxSetCurrent);
  __typeof__(cuModuleLoadData) *load = RESOLVE(driver, cuModuleLoadData);
  __typeof__(cuModuleGetFunction) *get_function = RESOLVE(driver, cuModuleGetFunction);
  __typeof__(cuLaunchKernelEx) *launch = RESOLVE(driver, cuLaunchKernelEx);
  __typeof__(cuCtxSynchronize) *synchronize = RESOLVE(driver, cuCtxSynchronize);
  __typeof__(cuGetProcAddress_v2) *get_proc = RESOLVE(driver, cuGetProcAddress_v2);
  __typeof__(cuMemcpyHtoD_v2) *copy = RESOLVE(driver, cuMemcpyHtoD_v2);

  CUdevice device;
  CUcontext context;
  CUmodule module;
  CUfunction kernel;
  CALL(cuInit, init(0));
  CALL(cuDeviceGet, device_get(&device, 0));
  CALL(cuDevicePrimaryCtxRetain, retain(&context, device));
  CALL(cuCtxSetCurrent, set_current(context));
  CALL(cuModuleLoadData, load(&module, "not a cubin"));
  CALL(cuModuleGetFunction, get_function(&kernel, module, "vadd_bs128_w4_s2"));
  CUlaunchConfig config = {.gridDimX = 32, .gridDimY = 1, .gridDimZ = 1,
                           .blockDimX = 128, .blockDimY = 1, .blockDimZ = 1};
  for (int i = 0; i < 3; i++) {
    CALL(cuLaunchKernelEx, launch(&config, kernel, NULL, NULL));
    manifest_kernel("vadd_bs128_w4_s2");
  }
  /* An entry point found through one found by dlsym. */
  __typeof__(cuMemAlloc_v2) *alloc = NULL;
  CALL(cuGetProcAddress_v2, get_proc("cuMemAlloc", (void **)&alloc, 13000, 0, NULL));
  CUdeviceptr memory;
  CALL(cuMemAlloc_v2, alloc(&memory, 1 << 20));
  static char host[1 << 20];
  CALL(cuMemcpyHtoD_v2, copy(memory, host, sizeof host));
  manifest_transfer("cuMemcpyHtoD_v2(H2D pageable)", sizeof host);
  CALL(cuCtxSynchronize, synchronize());
  manifest_write();
  printf("cuda_dlopen_app: done\n");
  return 0;
}
