/* cl_loop: calls a cheap OpenCL function (clGetPlatformIDs asking for the count) in a
 * tight loop, on one or more threads, and reports the mean time per call.
 *
 *   cl_loop [--calls N] [--threads T] [--floor] [--rate CALLS_PER_SECOND]
 *
 * --floor also fires the two raw tracepoints of floor_tracepoints.h around each call:
 * the cost of recording what the tracer's default mode records, with nothing else.
 * Prints "ns_per_call=X calls=N threads=T" on stdout.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "floor_tracepoints.h"

static long calls = 1000000;
static int floor_mode;
static double rate; /* calls per second per thread; 0: as fast as possible */

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
  if (floor_mode) {
    int32_t pid = (int32_t)getpid(), tid = (int32_t)gettid();
    for (long i = 0; i < calls; i++) {
      lttng_ust_tracepoint(bench_floor, entry, pid, tid, 0, NULL, &count);
      cl_int result = clGetPlatformIDs(0, NULL, &count);
      lttng_ust_tracepoint(bench_floor, exit, pid, tid, (uint64_t)i, result, &count);
    }
  } else if (rate > 0) {
    /* Paced: call i is not made before start + i / rate (a sustained rate, no bursts). */
    double interval = 1e9 / rate;
    for (long i = 0; i < calls; i++) {
      while (now_ns() < start + (double)i * interval)
        ;
      clGetPlatformIDs(0, NULL, &count);
    }
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
    else if (strcmp(argv[i], "--floor") == 0)
      floor_mode = 1;
    else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc)
      rate = atof(argv[++i]);
    else {
      fprintf(stderr, "usage: cl_loop [--calls N] [--threads T] [--floor] [--rate R]\n");
      return 2;
    }
  }
  if (threads < 1 || threads > 64 || calls < 1)
    return 2;
  pthread_t ids[64];
  double ns[64];
  for (int t = 0; t < threads; t++)
    pthread_create(&ids[t], NULL, loop, &ns[t]);
  double sum = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(ids[t], NULL);
    sum += ns[t];
  }
  printf("ns_per_call=%.2f calls=%ld threads=%d\n", sum / threads, calls, threads);
  return 0;
}
