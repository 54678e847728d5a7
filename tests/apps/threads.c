/* threads: the main thread sets up the context and program; 4 pthreads each create their
 * own queue, kernel and buffer and make ITERATIONS small rounds of write, kernel, read on
 * it, then clFinish and release. Each thread checks its data.
 *
 * usage: threads [ITERATIONS]   (default 25) */
#include "cl_util.h"

enum { NTHREADS = 4, N = 64 };

static const char *source =
    "__kernel void inc(__global int *a, const int by) { a[get_global_id(0)] += by; }\n";

static cl_context context;
static cl_device_id device;
static cl_program program;
static int iterations = 25;

static void *worker(void *arg) {
  int id = (int)(size_t)arg;
  cl_int err = CL_SUCCESS;
  cl_command_queue queue;
  CL_OBJ(queue, &err, clCreateCommandQueue, context, device, 0);
  clu_check(err, "clCreateCommandQueue");
  cl_kernel kernel = clu_kernel(program, "inc");
  cl_mem buffer = clu_buffer(context, CL_MEM_READ_WRITE, N * sizeof(int));
  clu_check(CL(clSetKernelArg, kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
  clu_check(CL(clSetKernelArg, kernel, 1, sizeof id, &id), "clSetKernelArg");
  int data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
  size_t global = N;
  for (int it = 0; it < iterations; it++) {
    clu_check(CL_XFER(sizeof data, clEnqueueWriteBuffer, queue, buffer, CL_TRUE, 0, sizeof data,
                      data, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
    clu_check(CL_LAUNCH("inc", clEnqueueNDRangeKernel, queue, kernel, 1, NULL, &global, NULL, 0,
                        NULL, NULL),
              "clEnqueueNDRangeKernel");
    clu_check(CL_XFER(sizeof data, clEnqueueReadBuffer, queue, buffer, CL_TRUE, 0, sizeof data,
                      data, 0, NULL, NULL),
              "clEnqueueReadBuffer");
  }
  clu_check(CL(clFinish, queue), "clFinish");
  for (int i = 0; i < N; i++)
    if (data[i] != i + iterations * id)
      clu_fail("thread %d: data[%d] = %d, expected %d", id, i, data[i], i + iterations * id);
  CL(clReleaseMemObject, buffer);
  CL(clReleaseKernel, kernel);
  CL(clReleaseCommandQueue, queue);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1 && (iterations = atoi(argv[1])) <= 0)
    clu_fail("usage: threads [ITERATIONS]");
  cl_platform_id platform;
  clu_device(&platform, &device);
  context = clu_context(device);
  program = clu_program(context, device, source);
  pthread_t threads[NTHREADS];
  for (int t = 0; t < NTHREADS; t++)
    if (pthread_create(&threads[t], NULL, worker, (void *)(size_t)t) != 0)
      clu_fail("pthread_create");
  for (int t = 0; t < NTHREADS; t++)
    pthread_join(threads[t], NULL);
  printf("threads: %d threads x %d rounds: ok\n", NTHREADS, iterations);
  CL(clReleaseProgram, program);
  CL(clReleaseContext, context);
  return clc_finish(0);
}
