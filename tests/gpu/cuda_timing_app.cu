// A CUDA program that measures the tracer's device timing against the app's own CUDA
// events, and the tracer's cost per kernel launch (docs/cuda.md, issue 20). Two modes:
//
//   cuda_timing_app accuracy
//     Eight kernels of distinct names (busy_1 .. busy_8), each spinning a different
//     amount (about 5 us to 2 ms of device time), each launched once on a stream of the
//     app's own between its own cudaEventRecord pair, one at a time. Writes
//     {"kernels": {"busy_1": ms, ...}} (cudaEventElapsedTime) to $APP_TIMES (default
//     cuda_times.json), for bench/gpu/compare_timing.py against the tracer's device table.
//     Before each pair the stream gets a padding kernel (pad_kernel, about 0.5 ms), so that
//     the start event, the kernel and the end event are all queued while the GPU is still
//     busy: the events then bracket the kernel alone, not the host's launch latency.
//     One cudaMemsetAsync first: its device row names the timing path the tracer used
//     ("memset" with CUPTI, "cuMemsetD8Async" with CUDA events).
//
//   cuda_timing_app launches N
//     An empty kernel launched N times (<<<1, 32>>>) on one stream, after 1000 untimed
//     launches. Only the host side of the launch calls is timed (CLOCK_MONOTONIC around
//     batches of 256 launches; the stream is synchronized between batches, untimed, so the
//     launch queue never fills). Prints "launch_ns=<mean ns per launch> launches=N".
//
// Exits 77 when there is no CUDA device, 2 on a bad command line, 1 when a call fails.
// Built by tests/gpu/CMakeLists.txt where nvcc exists, or by bench/gpu/run_gpu.sh.
#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t status_ = (call);                                                          \
    if (status_ != cudaSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,            \
              cudaGetErrorName(status_), cudaGetErrorString(status_));                     \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

enum { BLOCKS = 132, THREADS = 128, BATCH = 256, WARMUP_LAUNCHES = 1000 };

// A chain of dependent multiply-adds whose result is stored: the compiler can neither
// drop nor shorten it (no fast-math, so no reassociation), and its length sets the time.
__device__ __forceinline__ void spin(float *out, int iterations, float seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = seed + (float)i;
  for (int k = 0; k < iterations; k++)
    x = x * 0.999999f + 0.5f;
  out[i] = x;
}

// One kernel per name, so that each has its own row in the tracer's device table.
#define BUSY_KERNEL(name)                                                                  \
  extern "C" __global__ void name(float *out, int iterations, float seed) {                \
    spin(out, iterations, seed);                                                           \
  }

BUSY_KERNEL(busy_1)
BUSY_KERNEL(busy_2)
BUSY_KERNEL(busy_3)
BUSY_KERNEL(busy_4)
BUSY_KERNEL(busy_5)
BUSY_KERNEL(busy_6)
BUSY_KERNEL(busy_7)
BUSY_KERNEL(busy_8)
BUSY_KERNEL(pad_kernel)

extern "C" __global__ void empty_kernel(void) {}

typedef void (*busy_function)(float *, int, float);

// Iterations: about 400 per microsecond on an H100 (one dependent FMA every 4 cycles);
// the app measures what they really take.
static const struct {
  const char *name;
  busy_function function;
  int iterations;
} busy[] = {
    {"busy_1", busy_1, 2000},    {"busy_2", busy_2, 6000},     {"busy_3", busy_3, 16000},
    {"busy_4", busy_4, 40000},   {"busy_5", busy_5, 100000},   {"busy_6", busy_6, 240000},
    {"busy_7", busy_7, 480000},  {"busy_8", busy_8, 800000},
};
enum { BUSY_KERNELS = sizeof busy / sizeof busy[0], PAD_ITERATIONS = 200000 };

static void launch_busy(busy_function function, float *out, int iterations, float seed,
                        cudaStream_t stream) {
  void *args[] = {&out, &iterations, &seed};
  CHECK(cudaLaunchKernel((const void *)function, dim3(BLOCKS), dim3(THREADS), args, 0, stream));
}

static int accuracy(void) {
  const char *path = getenv("APP_TIMES");
  if (!path || !*path)
    path = "cuda_times.json";
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *out;
  const size_t bytes = (size_t)BLOCKS * THREADS * sizeof(float);
  CHECK(cudaMalloc((void **)&out, bytes));
  cudaEvent_t start, end;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&end));
  CHECK(cudaMemsetAsync(out, 0, bytes, stream));
  CHECK(cudaStreamSynchronize(stream));

  // Load every kernel now (lazy loading would load it in its first launch, between the
  // app's two events), and run the padding kernel once so that it is loaded too.
  cudaFuncAttributes attributes;
  for (int k = 0; k < BUSY_KERNELS; k++)
    CHECK(cudaFuncGetAttributes(&attributes, (const void *)busy[k].function));
  CHECK(cudaFuncGetAttributes(&attributes, (const void *)pad_kernel));
  launch_busy(pad_kernel, out, 1, 0.0f, stream);
  CHECK(cudaStreamSynchronize(stream));

  float ms[BUSY_KERNELS];
  for (int k = 0; k < BUSY_KERNELS; k++) {
    launch_busy(pad_kernel, out, PAD_ITERATIONS, 1.0f, stream);
    CHECK(cudaEventRecord(start, stream));
    launch_busy(busy[k].function, out, busy[k].iterations, (float)k, stream);
    CHECK(cudaEventRecord(end, stream));
    CHECK(cudaEventSynchronize(end));
    CHECK(cudaEventElapsedTime(&ms[k], start, end));
  }
  CHECK(cudaStreamSynchronize(stream));

  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cuda_timing_app: cannot write %s: ", path);
    perror(NULL);
    return 1;
  }
  fputs("{\"kernels\": {", f);
  for (int k = 0; k < BUSY_KERNELS; k++)
    fprintf(f, "%s\"%s\": %.6f", k ? ", " : "", busy[k].name, ms[k]);
  fputs("}}\n", f);
  if (fclose(f) != 0) {
    fprintf(stderr, "cuda_timing_app: cannot write %s\n", path);
    return 1;
  }
  for (int k = 0; k < BUSY_KERNELS; k++)
    printf("%-8s %7d iterations  %10.4f ms (app's events)\n", busy[k].name, busy[k].iterations,
           ms[k]);
  printf("cuda_timing_app: %d kernels timed, written to %s\n", (int)BUSY_KERNELS, path);

  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(end));
  CHECK(cudaFree(out));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int launches(long count) {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < WARMUP_LAUNCHES; i++) {
    empty_kernel<<<1, 32, 0, stream>>>();
    if (i % BATCH == BATCH - 1)
      CHECK(cudaStreamSynchronize(stream));
  }
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));

  long long total_ns = 0;
  for (long done = 0; done < count;) {
    long batch = count - done < BATCH ? count - done : BATCH;
    long long begin = now_ns();
    for (long i = 0; i < batch; i++)
      empty_kernel<<<1, 32, 0, stream>>>();
    total_ns += now_ns() - begin;
    done += batch;
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));
  }
  CHECK(cudaStreamDestroy(stream));
  printf("launch_ns=%.1f launches=%ld\n", (double)total_ns / (double)count, count);
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: cuda_timing_app accuracy\n"
                  "       cuda_timing_app launches N   (N > 0)\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  long count = 0;
  if (strcmp(argv[1], "launches") == 0) {
    char *end = NULL;
    count = argc == 3 ? strtol(argv[2], &end, 10) : 0;
    if (argc != 3 || !end || *end != '\0' || count <= 0)
      return usage();
  } else if (strcmp(argv[1], "accuracy") != 0 || argc != 2) {
    return usage();
  }
  int devices = 0;
  cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    printf("cuda_timing_app: no CUDA device (%s)\n", cudaGetErrorName(status));
    return 77;
  }
  return count ? launches(count) : accuracy();
}
