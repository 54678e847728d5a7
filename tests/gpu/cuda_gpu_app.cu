// A CUDA program for the runs on an NVIDIA GPU (docs/cuda.md): what the tracer must see
// there, with known counts. Kernels (a C++ template, so its name is mangled, and a plain
// extern "C" one), copies of each kind with pinned and pageable host memory, several
// streams, events, a stream query that may say "not ready", and one call that fails on
// purpose. It counts its own calls (tests/apps/manifest.h, in $APP_MANIFEST), except the
// failing call and the stream query, which it prints. Exits 77 when there is no GPU.
//
// Built by tests/gpu/CMakeLists.txt only where nvcc exists; run it under the tracer:
//   tracer -j -o tally.json build/tests/gpu/cuda_gpu_app
#include <cuda_runtime_api.h>

#include "manifest.h"

#define CUDA(function, ...) MANIFEST_CALL(function, function(__VA_ARGS__) == cudaSuccess)

enum { N = 1 << 20, STREAMS = 4, ROUNDS = 8 };

template <typename T> __global__ void scale(T *x, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}

extern "C" __global__ void vadd(float *c, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("cuda_gpu_app: no CUDA device\n");
    return 77;
  }
  manifest_add(&manifest_calls, "cudaGetDeviceCount", 1);
  const size_t bytes = N * sizeof(float);
  static float pageable[N];
  float *pinned, *a, *b, *c;
  CUDA(cudaMallocHost, (void **)&pinned, bytes);
  CUDA(cudaMalloc, (void **)&a, bytes);
  CUDA(cudaMalloc, (void **)&b, bytes);
  CUDA(cudaMalloc, (void **)&c, bytes);
  cudaStream_t streams[STREAMS];
  for (int s = 0; s < STREAMS; s++)
    CUDA(cudaStreamCreate, &streams[s]);
  cudaEvent_t begin, end;
  CUDA(cudaEventCreate, &begin);
  CUDA(cudaEventCreate, &end);

  CUDA(cudaMemcpy, a, pageable, bytes, cudaMemcpyHostToDevice);
  manifest_transfer("cuMemcpyHtoD_v2(H2D pageable)", bytes);
  CUDA(cudaMemcpy, b, pinned, bytes, cudaMemcpyHostToDevice);
  manifest_transfer("cuMemcpyHtoD_v2(H2D pinned)", bytes);
  CUDA(cudaEventRecord, begin, streams[0]);
  for (int r = 0; r < ROUNDS; r++) {
    cudaStream_t s = streams[r % STREAMS];
    vadd<<<N / 256, 256, 0, s>>>(c, a, b, N);
    CUDA(cudaGetLastError);
    manifest_kernel("vadd");
    scale<float><<<N / 256, 256, 0, s>>>(c, 2.0f, N);
    CUDA(cudaGetLastError);
    manifest_kernel("void scale<float>(float*, float, int)");
  }
  CUDA(cudaMemcpyAsync, pinned, c, bytes, cudaMemcpyDeviceToHost, streams[1]);
  manifest_transfer("cuMemcpyDtoHAsync_v2(D2H pinned)", bytes);
  CUDA(cudaMemcpyAsync, b, c, bytes, cudaMemcpyDeviceToDevice, streams[2]);
  manifest_transfer("cuMemcpyDtoDAsync_v2(D2D)", bytes);
  CUDA(cudaMemsetAsync, a, 0, bytes, streams[3]);
  CUDA(cudaEventRecord, end, streams[0]);
  // May be cudaErrorNotReady: a result, not a failure.
  cudaError_t query = cudaStreamQuery(streams[1]);
  CUDA(cudaDeviceSynchronize);
  CUDA(cudaMemcpy, pageable, c, bytes, cudaMemcpyDeviceToHost);
  manifest_transfer("cuMemcpyDtoH_v2(D2H pageable)", bytes);
  float ms = 0;
  CUDA(cudaEventElapsedTime, &ms, begin, end);

  // Fails on purpose: no device has this number.
  cudaError_t failed = cudaSetDevice(devices + 100);

  for (int s = 0; s < STREAMS; s++)
    CUDA(cudaStreamDestroy, streams[s]);
  CUDA(cudaEventDestroy, begin);
  CUDA(cudaEventDestroy, end);
  CUDA(cudaFree, a);
  CUDA(cudaFree, b);
  CUDA(cudaFree, c);
  CUDA(cudaFreeHost, pinned);
  manifest_write();
  printf("cuda_gpu_app: %d devices, kernels took %.3f ms on stream 0's events; "
         "cudaStreamQuery: %s; cudaSetDevice(%d): %s (expected to fail)\n",
         devices, ms, cudaGetErrorName(query), devices + 100, cudaGetErrorName(failed));
  return failed == cudaSuccess ? 1 : 0;
}
