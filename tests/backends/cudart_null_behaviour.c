/* A behaviour for the null CUDA runtime (generated/cudart/cudart_null_library.c), for the
 * tracer's tests: like the real runtime, it reaches the driver only through
 * cuGetProcAddress, itself found with dlsym on a handle of libcuda.so.1. Each runtime call
 * below makes the driver calls the real runtime would make for it; every driver call is
 * counted, and the count written at exit to $APP_MANIFEST.runtime (calls by the name the
 * driver exports), so that a test can check the driver's table independently.
 * Every other runtime function is the generated null one.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the count ---- */

enum { COUNTED_MAX = 64 };
static struct {
  const char *name;
  unsigned long count;
} counted[COUNTED_MAX];
static size_t counted_names;
static pthread_mutex_t counted_lock = PTHREAD_MUTEX_INITIALIZER; /* apps call from threads */

static void count_call(const char *name) {
  pthread_mutex_lock(&counted_lock);
  size_t i = 0;
  while (i < counted_names && strcmp(counted[i].name, name) != 0)
    i++;
  if (i < COUNTED_MAX && i == counted_names)
    counted[counted_names++].name = name;
  if (i < COUNTED_MAX)
    counted[i].count++;
  pthread_mutex_unlock(&counted_lock);
}

static void write_count(void) {
  const char *manifest = getenv("APP_MANIFEST");
  if (!manifest)
    return;
  char path[4096];
  snprintf(path, sizeof path, "%s.runtime", manifest);
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fputs("{\"calls\": {", f);
  for (size_t i = 0; i < counted_names; i++)
    fprintf(f, "%s\"%s\": %lu", i ? ", " : "", counted[i].name, counted[i].count);
  fputs("}}\n", f);
  fclose(f);
}

/* ---- the driver, as the runtime finds it ---- */

static struct {
  __typeof__(cuGetProcAddress_v2) *get_proc;
  __typeof__(cuInit) *init;
  __typeof__(cuDeviceGetCount) *device_count;
  __typeof__(cuDevicePrimaryCtxRetain) *retain;
  __typeof__(cuCtxSetCurrent) *set_current;
  __typeof__(cuCtxSynchronize) *synchronize;
  __typeof__(cuMemAlloc_v2) *alloc;
  __typeof__(cuMemFree_v2) *free;
  __typeof__(cuMemAllocHost_v2) *alloc_host;
  __typeof__(cuMemFreeHost) *free_host;
  __typeof__(cuMemcpy) *copy;
  __typeof__(cuMemcpyAsync) *copy_async;
  __typeof__(cuMemcpyHtoD_v2) *copy_htod;
  __typeof__(cuMemcpyDtoH_v2) *copy_dtoh;
  __typeof__(cuMemcpyDtoD_v2) *copy_dtod;
  __typeof__(cuMemcpyHtoDAsync_v2) *copy_htod_async;
  __typeof__(cuMemcpyDtoHAsync_v2) *copy_dtoh_async;
  __typeof__(cuMemsetD8_v2) *set;
  __typeof__(cuModuleGetFunction) *get_function;
  __typeof__(cuLaunchKernel) *launch;
  __typeof__(cuStreamCreate) *stream_create;
  __typeof__(cuStreamDestroy_v2) *stream_destroy;
  __typeof__(cuStreamQuery) *stream_query;
  __typeof__(cuStreamSynchronize) *stream_synchronize;
  __typeof__(cuCtxGetDevice) *context_device;
} driver;
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static CUresult driver_status = CUDA_ERROR_NOT_INITIALIZED;

static void entry(const char *symbol, void *slot) {
  count_call("cuGetProcAddress_v2");
  if (driver.get_proc(symbol, (void **)slot, 13000, CU_GET_PROC_ADDRESS_DEFAULT, NULL) !=
      CUDA_SUCCESS)
    driver_status = CUDA_ERROR_NOT_FOUND;
}

static void driver_load(void) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  driver.get_proc = library ? dlsym(library, "cuGetProcAddress_v2") : NULL;
  if (!driver.get_proc)
    return;
  driver_status = CUDA_SUCCESS;
  entry("cuInit", &driver.init);
  entry("cuDeviceGetCount", &driver.device_count);
  entry("cuDevicePrimaryCtxRetain", &driver.retain);
  entry("cuCtxSetCurrent", &driver.set_current);
  entry("cuCtxSynchronize", &driver.synchronize);
  entry("cuMemAlloc", &driver.alloc);
  entry("cuMemFree", &driver.free);
  entry("cuMemAllocHost", &driver.alloc_host);
  entry("cuMemFreeHost", &driver.free_host);
  entry("cuMemcpy", &driver.copy);
  entry("cuMemcpyAsync", &driver.copy_async);
  entry("cuMemcpyHtoD", &driver.copy_htod);
  entry("cuMemcpyDtoH", &driver.copy_dtoh);
  entry("cuMemcpyDtoD", &driver.copy_dtod);
  entry("cuMemcpyHtoDAsync", &driver.copy_htod_async);
  entry("cuMemcpyDtoHAsync", &driver.copy_dtoh_async);
  entry("cuMemsetD8", &driver.set);
  entry("cuModuleGetFunction", &driver.get_function);
  entry("cuLaunchKernel", &driver.launch);
  entry("cuStreamCreate", &driver.stream_create);
  entry("cuStreamDestroy", &driver.stream_destroy);
  entry("cuStreamQuery", &driver.stream_query);
  entry("cuStreamSynchronize", &driver.stream_synchronize);
  entry("cuCtxGetDevice", &driver.context_device);
  if (driver_status != CUDA_SUCCESS)
    return;
  /* The primary context of device 0, current on every thread that uses the runtime. */
  CUcontext context;
  count_call("cuInit");
  count_call("cuDevicePrimaryCtxRetain");
  count_call("cuCtxSetCurrent");
  if (driver.init(0) != CUDA_SUCCESS || driver.retain(&context, 0) != CUDA_SUCCESS ||
      driver.set_current(context) != CUDA_SUCCESS)
    driver_status = CUDA_ERROR_NOT_INITIALIZED;
  atexit(write_count);
}

/* Calls the driver function slot as name, counted; the runtime's error when it fails. */
#define DRIVER(name, slot, ...)                                                           \
  (pthread_once(&driver_once, driver_load), driver_status != CUDA_SUCCESS                 \
                                                ? cudaErrorInitializationError            \
                                                : (count_call(name), driver.slot(__VA_ARGS__)) \
                                                      == CUDA_SUCCESS                     \
                                                      ? cudaSuccess                       \
                                                      : cudaErrorUnknown)

cudaError_t cudaGetDeviceCount(int *n) { return DRIVER("cuDeviceGetCount", device_count, n); }
/* As the real runtime does: the current context's device, asked of the driver. */
cudaError_t cudaGetDevice(int *device) {
  return DRIVER("cuCtxGetDevice", context_device, device);
}
/* A counted function (trace.counted) that takes a known time: 20 us of spinning, so that a
 * test can check the times of counted calls (read on the TSC, converted when written). */
cudaError_t cudaPeekAtLastError(void) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do
    clock_gettime(CLOCK_MONOTONIC, &now);
  while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 20000);
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  pthread_once(&driver_once, driver_load);
  return device == 0 && driver_status == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidDevice;
}
cudaError_t cudaDeviceSynchronize(void) { return DRIVER("cuCtxSynchronize", synchronize); }

cudaError_t cudaMalloc(void **devPtr, size_t size) {
  return DRIVER("cuMemAlloc_v2", alloc, (CUdeviceptr *)devPtr, size);
}
cudaError_t cudaFree(void *devPtr) { return DRIVER("cuMemFree_v2", free, (CUdeviceptr)devPtr); }
cudaError_t cudaMallocHost(void **ptr, size_t size) {
  return DRIVER("cuMemAllocHost_v2", alloc_host, ptr, size);
}
cudaError_t cudaFreeHost(void *ptr) { return DRIVER("cuMemFreeHost", free_host, ptr); }

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  switch (kind) {
  case cudaMemcpyHostToDevice:
    return DRIVER("cuMemcpyHtoD_v2", copy_htod, (CUdeviceptr)dst, src, count);
  case cudaMemcpyDeviceToHost:
    return DRIVER("cuMemcpyDtoH_v2", copy_dtoh, dst, (CUdeviceptr)src, count);
  case cudaMemcpyDeviceToDevice:
    return DRIVER("cuMemcpyDtoD_v2", copy_dtod, (CUdeviceptr)dst, (CUdeviceptr)src, count);
  default: return DRIVER("cuMemcpy", copy, (CUdeviceptr)dst, (CUdeviceptr)src, count);
  }
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  switch (kind) {
  case cudaMemcpyHostToDevice:
    return DRIVER("cuMemcpyHtoDAsync_v2", copy_htod_async, (CUdeviceptr)dst, src, count,
                  (CUstream)stream);
  case cudaMemcpyDeviceToHost:
    return DRIVER("cuMemcpyDtoHAsync_v2", copy_dtoh_async, dst, (CUdeviceptr)src, count,
                  (CUstream)stream);
  default:
    return DRIVER("cuMemcpyAsync", copy_async, (CUdeviceptr)dst, (CUdeviceptr)src, count,
                  (CUstream)stream);
  }
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  return DRIVER("cuMemsetD8_v2", set, (CUdeviceptr)devPtr, (unsigned char)value, count);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
  return DRIVER("cuStreamCreate", stream_create, (CUstream *)pStream, 0);
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return DRIVER("cuStreamDestroy_v2", stream_destroy, (CUstream)stream);
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return DRIVER("cuStreamSynchronize", stream_synchronize, (CUstream)stream);
}
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return DRIVER("cuStreamQuery", stream_query, (CUstream)stream);
}

/* A kernel's device function, found once per host stub by the stub's symbol name, as the
 * real runtime finds it from the name registered for the stub. */
enum { STUBS_MAX = 32 };
static struct {
  const void *stub;
  CUfunction function;
} stubs[STUBS_MAX];
static size_t stub_count;

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream) {
  size_t i = 0;
  while (i < stub_count && stubs[i].stub != func)
    i++;
  if (i == stub_count) {
    Dl_info info;
    if (i == STUBS_MAX || !dladdr(func, &info) || !info.dli_sname)
      return cudaErrorInvalidDeviceFunction;
    cudaError_t status =
        DRIVER("cuModuleGetFunction", get_function, &stubs[i].function, NULL, info.dli_sname);
    if (status != cudaSuccess)
      return status;
    stubs[stub_count++].stub = func;
  }
  return DRIVER("cuLaunchKernel", launch, stubs[i].function, gridDim.x, gridDim.y, gridDim.z,
                blockDim.x, blockDim.y, blockDim.z, (unsigned)sharedMem, (CUstream)stream,
                args, NULL);
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus) {
  cudaError_t status = DRIVER("cuGetProcAddress_v2", get_proc, symbol, funcPtr, 13000, flags,
                              (CUdriverProcAddressQueryResult *)driverStatus);
  return status;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                             unsigned int cudaVersion, unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus) {
  return DRIVER("cuGetProcAddress_v2", get_proc, symbol, funcPtr, (int)cudaVersion, flags,
                (CUdriverProcAddressQueryResult *)driverStatus);
}
