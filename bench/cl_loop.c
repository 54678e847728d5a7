/* cl_loop: calls a cheap OpenCL function (clGetPlatformIDs asking for the count) in a
 * tight loop, on one or more threads, and reports the mean time per call.
 *
 *   cl_loop [--calls N] [--threads T] [--floor old|two|one] [--rate CALLS_PER_SECOND]
 *           [--copy-every K] [--spread]
 *
 * --floor also fires raw tracepoints of floor_tracepoints.h around each call, with
 * nothing else: `old`, two events with what default mode recorded before one event per
 * call; `two`, two events of 3 and 2 integer fields; `one`, one event after the call with
 * start, end (read on the trace clock: the TSC when LTTng uses the tracer's TSC clock,
 * else CLOCK_MONOTONIC) and status.
 * --copy-every K also writes 4 KiB to a buffer of the first device (a blocking
 * clEnqueueWriteBuffer) after every K calls: a trace with device commands and idle gaps
 * between them, for the analyses that read those (the gap report).
 * --spread runs thread t on the t-th CPU the process may use (modulo their number), so
 * that a trace has events of several CPUs (LTTng's streams) even when a loaded machine's
 * scheduler would keep the threads on one.
 * Prints "ns_per_call=X calls=N threads=T" on stdout.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <lttng/ust-clock.h>
#include <stdbool.h>
#include <stdint.h>
#include <x86intrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "floor_tracepoints.h"

static long calls = 1000000;
static enum { FLOOR_NONE, FLOOR_OLD, FLOOR_TWO, FLOOR_ONE } floor_mode;
static bool tsc_clock; /* the trace clock is the tracer's TSC clock */

static inline uint64_t trace_clock_now(void) {
  if (tsc_clock)
    return __rdtsc();
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static double rate; /* calls per second per thread; 0: as fast as possible */
static long copy_every; /* a copy to the device after every copy_every calls; 0: none */
static bool spread;

/* A queue and a buffer on the first device, for --copy-every; false when none. */
struct copier {
  cl_context context;
  cl_command_queue queue;
  cl_mem buffer;
  char bytes[4096];
};

static bool copier_open(struct copier *c) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
    return false;
  c->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS)
    return false;
  c->queue = clCreateCommandQueueWithProperties(c->context, device, NULL, &err);
  if (err != CL_SUCCESS)
    return false;
  c->buffer = clCreateBuffer(c->context, CL_MEM_READ_WRITE, sizeof c->bytes, NULL, &err);
  memset(c->bytes, 1, sizeof c->bytes);
  return err == CL_SUCCESS;
}

static void copier_close(struct copier *c) {
  clReleaseMemObject(c->buffer);
  clReleaseCommandQueue(c->queue);
  clReleaseContext(c->context);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *loop(void *arg) {
  double *ns = arg;
  cl_uint count = 0;
  for (long i = 0; i < 1000; i++) /* warm up: resolve symbols, fill caches */
    clGetPlatformIDs(0, NULL, &count);
  double start = now_ns();
  if (floor_mode == FLOOR_OLD) {
    int32_t pid = (int32_t)getpid(), tid = (int32_t)gettid();
    for (long i = 0; i < calls; i++) {
      lttng_ust_tracepoint(bench_floor, entry, pid, tid, 0, NULL, &count);
      cl_int result = clGetPlatformIDs(0, NULL, &count);
      lttng_ust_tracepoint(bench_floor, exit, pid, tid, (uint64_t)i, result, &count);
    }
  } else if (floor_mode == FLOOR_TWO) {
    for (long i = 0; i < calls; i++) {
      lttng_ust_tracepoint(bench_floor, two_entry, 0, NULL, &count);
      cl_int result = clGetPlatformIDs(0, NULL, &count);
      lttng_ust_tracepoint(bench_floor, two_exit, result, count);
    }
  } else if (floor_mode == FLOOR_ONE) {
    for (long i = 0; i < calls; i++) {
      uint64_t t0 = trace_clock_now();
      cl_int result = clGetPlatformIDs(0, NULL, &count);
      uint64_t t1 = trace_clock_now();
      lttng_ust_tracepoint(bench_floor, one_call, t0, t1, result);
    }
  } else if (rate > 0) {
    /* Paced: call i is not made before start + i / rate (a sustained rate, no bursts). */
    double interval = 1e9 / rate;
    for (long i = 0; i < calls; i++) {
      while (now_ns() < start + (double)i * interval)
        ;
      clGetPlatformIDs(0, NULL, &count);
    }
  } else if (copy_every > 0) {
    struct copier c;
    if (!copier_open(&c)) {
      fprintf(stderr, "cl_loop: --copy-every: no OpenCL device to copy to\n");
      exit(1);
    }
    for (long i = 0; i < calls; i++) {
      clGetPlatformIDs(0, NULL, &count);
      if ((i + 1) % copy_every == 0)
        clEnqueueWriteBuffer(c.queue, c.buffer, CL_TRUE, 0, sizeof c.bytes, c.bytes, 0, NULL,
                             NULL);
    }
    copier_close(&c);
  } else {
    for (long i = 0; i < calls; i++)
      clGetPlatformIDs(0, NULL, &count);
  }
  *ns = (now_ns() - start) / (double)calls;
  return NULL;
}

int main(int argc, char **argv) {
  int threads = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
      calls = atol(argv[++i]);
    else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "--floor") == 0 && i + 1 < argc) {
      const char *kind = argv[++i];
      floor_mode = strcmp(kind, "old") == 0   ? FLOOR_OLD
                   : strcmp(kind, "two") == 0 ? FLOOR_TWO
                   : strcmp(kind, "one") == 0 ? FLOOR_ONE
                                              : FLOOR_NONE;
      if (floor_mode == FLOOR_NONE) {
        fprintf(stderr, "cl_loop: --floor takes old, two or one\n");
        return 2;
      }
    }
    else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc)
      rate = atof(argv[++i]);
    else if (strcmp(argv[i], "--copy-every") == 0 && i + 1 < argc)
      copy_every = atol(argv[++i]);
    else if (strcmp(argv[i], "--spread") == 0)
      spread = true;
    else {
      fprintf(stderr, "usage: cl_loop [--calls N] [--threads T] [--floor old|two|one] [--rate R] "
                      "[--copy-every K] [--spread]\n");
      return 2;
    }
  }
  if (threads < 1 || threads > 64 || calls < 1)
    return 2;
  lttng_ust_clock_name_function clock_name = NULL;
  tsc_clock = lttng_ust_trace_clock_get_name_cb(&clock_name) == 0 && clock_name &&
              strcmp(clock_name(), "tracer_tsc") == 0;
  pthread_t ids[64];
  double ns[64];
  cpu_set_t allowed;
  int cpus[CPU_SETSIZE], cpu_count = 0;
  if (spread && sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &allowed))
        cpus[cpu_count++] = c;
  for (int t = 0; t < threads; t++) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (cpu_count) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpus[t % cpu_count], &one);
      pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    }
    pthread_create(&ids[t], &attr, loop, &ns[t]);
    pthread_attr_destroy(&attr);
  }
  double sum = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(ids[t], NULL);
    sum += ns[t];
  }
  printf("ns_per_call=%.2f calls=%ld threads=%d\n", sum / threads, calls, threads);
  return 0;
}
