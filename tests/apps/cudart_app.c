/* A CUDA runtime program for the tracer's CUDA test: copies of each kind, pinned and
 * pageable, kernels launched by host stub on two streams, a driver function obtained with
 * cudaGetDriverEntryPointByVersion. It runs against the null runtime, which reaches the null
 * driver through cuGetProcAddress as the real one does (tests/backends/
 * cudart_null_behaviour.c). It counts (manifest.h) its runtime calls, and the device work
 * as the driver's table names it; the driver calls it makes itself go to
 * $APP_MANIFEST.driver. cudaGetDevice, which the specs count rather than record one event
 * each (trace.counted), is called many times from three threads; cudaPeekAtLastError, also
 * counted, 100 times, each taking 20 us in the null runtime.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>

#include "manifest.h"

#define CUDA(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == cudaSuccess)

enum { N = 4096 };

/* Kernels as nvcc names their host stubs: by the device function's mangled name (here
 * given with asm labels, as a C program cannot spell them). Exported (-rdynamic), as the
 * runtime finds a stub's name from its registration. */
void vadd_stub(float *c, const float *a, const float *b) __asm__("_Z4vaddPfPKfS1_");
void vadd_stub(float *c, const float *a, const float *b) { (void)c, (void)a, (void)b; }
void scale_stub(float *x, float s) __asm__("_Z5scalePff");
void scale_stub(float *x, float s) { (void)x, (void)s; }

enum { GET_DEVICE_CALLS = 1000, GET_DEVICE_THREADS = 2 };

static void *get_device_loop(void *unused) {
  (void)unused;
  for (int i = 0; i < GET_DEVICE_CALLS; i++) {
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess || device != 0)
      return (void *)1;
  }
  return NULL;
}

int main(void) {
  static float pageable[N];
  int devices = -1;
  CUDA(cudaGetDeviceCount, &devices);
  CUDA(cudaSetDevice, 0);
  cudaStream_t streams[2];
  CUDA(cudaStreamCreate, &streams[0]);
  CUDA(cudaStreamCreate, &streams[1]);
  float *a, *b, *pinned;
  CUDA(cudaMalloc, (void **)&a, sizeof pageable);
  CUDA(cudaMalloc, (void **)&b, sizeof pageable);
  CUDA(cudaMallocHost, (void **)&pinned, sizeof pageable);

  CUDA(cudaMemcpy, a, pageable, sizeof pageable, cudaMemcpyHostToDevice);
  manifest_transfer("cuMemcpyHtoD_v2(H2D pageable)", sizeof pageable);
  CUDA(cudaMemcpyAsync, b, pinned, sizeof pageable, cudaMemcpyHostToDevice, streams[1]);
  manifest_transfer("cuMemcpyHtoDAsync_v2(H2D pinned)", sizeof pageable);
  CUDA(cudaMemset, a, 0, sizeof pageable);
  manifest_transfer("cuMemsetD8_v2", sizeof pageable);

  dim3 grid = {N / 256, 1, 1}, block = {256, 1, 1};
  void *vadd_args[] = {&a, &a, &b};
  float s = 2;
  void *scale_args[] = {&a, &s};
  for (int i = 0; i < 4; i++) {
    CUDA(cudaLaunchKernel, (const void *)vadd_stub, grid, block, vadd_args, 0, streams[i % 2]);
    manifest_kernel("vadd(float*, float const*, float const*)");
  }
  CUDA(cudaLaunchKernel, (const void *)scale_stub, grid, block, scale_args, 0, streams[0]);
  manifest_kernel("scale(float*, float)");

  CUDA(cudaMemcpyAsync, pinned, b, sizeof pageable, cudaMemcpyDeviceToHost, streams[0]);
  manifest_transfer("cuMemcpyDtoHAsync_v2(D2H pinned)", sizeof pageable);
  CUDA(cudaMemcpy, b, a, sizeof pageable, cudaMemcpyDeviceToDevice);
  manifest_transfer("cuMemcpyDtoD_v2(D2D)", sizeof pageable);
  CUDA(cudaMemcpy, pageable, b, sizeof pageable, cudaMemcpyDeviceToHost);
  manifest_transfer("cuMemcpyDtoH_v2(D2H pageable)", sizeof pageable);

  /* A driver function from the runtime, called by the app: traced at the driver level. */
  CUresult (*driver_version)(int *) = NULL;
  enum cudaDriverEntryPointQueryResult found;
  CUDA(cudaGetDriverEntryPointByVersion, "cuDriverGetVersion", (void **)&driver_version, 13000,
       cudaEnableDefault, &found);
  int version = 0;
  if (driver_version(&version) != CUDA_SUCCESS)
    return 1;

  /* Counted calls, here and on other threads, whose entries are written as they end. */
  pthread_t threads[GET_DEVICE_THREADS];
  for (int t = 0; t < GET_DEVICE_THREADS; t++)
    if (pthread_create(&threads[t], NULL, get_device_loop, NULL) != 0)
      return 1;
  void *failed = get_device_loop(NULL);
  for (int t = 0; t < GET_DEVICE_THREADS; t++) {
    void *result;
    pthread_join(threads[t], &result);
    failed = failed ? failed : result;
  }
  if (failed)
    return 1;
  manifest_add(&manifest_calls, "cudaGetDevice", GET_DEVICE_CALLS * (GET_DEVICE_THREADS + 1));
  manifest_threads = GET_DEVICE_THREADS + 1;
  for (int i = 0; i < 100; i++)
    CUDA(cudaPeekAtLastError);

  CUDA(cudaStreamQuery, streams[1]);
  CUDA(cudaStreamSynchronize, streams[0]);
  CUDA(cudaDeviceSynchronize);
  CUDA(cudaFree, a);
  CUDA(cudaFree, b);
  CUDA(cudaFreeHost, pinned);
  CUDA(cudaStreamDestroy, streams[0]);
  CUDA(cudaStreamDestroy, streams[1]);
  manifest_write();
  const char *path = getenv("APP_MANIFEST");
  if (path) {
    char driver_path[4096];
    snprintf(driver_path, sizeof driver_path, "%s.driver", path);
    FILE *f = fopen(driver_path, "w");
    if (!f)
      return 1;
    /* One call, made by the main thread itself (the runtime's calls on every thread
     * reach the driver too, inside the runtime's). */
    fputs("{\"calls\": {\"cuDriverGetVersion\": 1}, \"threads\": 1}\n", f);
    fclose(f);
  }
  printf("cudart_app: %d devices, done\n", devices);
  return 0;
}
