/* clock: calls of known durations, to check the trace clock. clWaitForEvents waits on a
 * user event that another thread completes after WAIT_MS; a kernel runs in between.
 * Prints the wall clock (CLOCK_REALTIME, seconds) before its first and after its last
 * OpenCL call, so a test can check that the trace's times fall in between.
 *
 * usage: clock [WAIT_MS]   (default 300) */
#define _POSIX_C_SOURCE 200809L
#include "cl_util.h"

#include <pthread.h>
#include <time.h>

static const char *source =
    "__kernel void spin(__global float *x) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = x[i];\n"
    "  for (int k = 0; k < 1000; k++) v = v * 0.999f + 1.0f;\n"
    "  x[i] = v;\n"
    "}\n";

struct completer {
  cl_event event;
  long wait_ms;
};

static void *complete_later(void *arg) {
  struct completer *c = arg;
  struct timespec pause = {c->wait_ms / 1000, (c->wait_ms % 1000) * 1000000L};
  while (nanosleep(&pause, &pause) != 0)
    ;
  clu_check(CL(clSetUserEventStatus, c->event, CL_COMPLETE), "clSetUserEventStatus");
  return NULL;
}

static void print_wall_clock(const char *what) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  printf("%s=%lld.%09ld\n", what, (long long)ts.tv_sec, ts.tv_nsec);
}

int main(int argc, char **argv) {
  long wait_ms = argc > 1 ? atol(argv[1]) : 300;
  if (wait_ms <= 0 || argc > 2)
    clu_fail("usage: clock [WAIT_MS]");
  print_wall_clock("wall_start");
  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_context context = clu_context(device);
  cl_int err;
  cl_command_queue queue;
  CL_OBJ(queue, &err, clCreateCommandQueueWithProperties, context, device, NULL);
  clu_check(err, "clCreateCommandQueueWithProperties");
  cl_program program = clu_program(context, device, source);
  cl_kernel kernel = clu_kernel(program, "spin");
  size_t n = 1 << 16;
  cl_mem x = clu_buffer(context, CL_MEM_READ_WRITE, n * sizeof(float));
  clu_check(CL(clSetKernelArg, kernel, 0, sizeof x, &x), "clSetKernelArg");
  clu_check(CL(clEnqueueNDRangeKernel, queue, kernel, 1, NULL, &n, NULL, 0, NULL, NULL),
            "clEnqueueNDRangeKernel");
  clu_check(CL(clFinish, queue), "clFinish");

  struct completer completer = {.wait_ms = wait_ms};
  CL_OBJ(completer.event, &err, clCreateUserEvent, context);
  clu_check(err, "clCreateUserEvent");
  pthread_t thread;
  if (pthread_create(&thread, NULL, complete_later, &completer) != 0)
    clu_fail("pthread_create");
  clu_check(CL(clWaitForEvents, 1, &completer.event), "clWaitForEvents");
  pthread_join(thread, NULL);

  CL(clReleaseEvent, completer.event);
  CL(clReleaseMemObject, x);
  CL(clReleaseKernel, kernel);
  CL(clReleaseProgram, program);
  CL(clReleaseCommandQueue, queue);
  CL(clReleaseContext, context);
  print_wall_clock("wall_end");
  return clc_finish(0);
}
