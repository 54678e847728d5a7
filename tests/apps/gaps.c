/* gaps: device work with a known idle gap and a known copy/compute overlap, measured by
 * the app itself from its own commands' profiling timestamps, so that a test can
 * compare the tracer's gap report with what the device did.
 *
 *   1. kernel `spin` on queue A, finished; the host sleeps SLEEP_MS in its own code (no
 *      OpenCL call); `spin` again on A. The gap is the second start minus the first end.
 *   2. a long `spin` on queue A, flushed, then a 16 MiB write on queue B while it runs.
 *      The overlap is the intersection of the two commands' [start, end].
 *
 * Prints `gap_ns=N overlap_ns=N busy_ns=N kernel_ns=N copy_ns=N` on stdout (busy: the
 * union of the four commands), the times on the device's clock (PoCL:
 * CLOCK_MONOTONIC_RAW ns). Whether the device runs the two commands at once is its
 * business: the overlap may be 0 (PoCL on the CPU here does overlap them). */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "cl_util.h"

static const char *source =
    "__kernel void spin(__global uint *out, uint n) {\n"
    "  uint x = get_global_id(0) + 1;\n"
    "  for (uint i = 0; i < n; i++) x = x * 1664525u + 1013904223u;\n"
    "  out[get_global_id(0)] = x;\n"
    "}\n";

enum { SLEEP_MS = 200, COPY_BYTES = 16 << 20 };

static void times(cl_event e, cl_ulong *start, cl_ulong *end) {
  clu_check(CL(clGetEventProfilingInfo, e, CL_PROFILING_COMMAND_START, sizeof *start, start,
               NULL), "clGetEventProfilingInfo");
  clu_check(CL(clGetEventProfilingInfo, e, CL_PROFILING_COMMAND_END, sizeof *end, end, NULL),
            "clGetEventProfilingInfo");
}

static cl_event spin(cl_command_queue q, cl_kernel k, cl_uint n) {
  cl_event e;
  size_t global = 1;
  clu_check(CL(clSetKernelArg, k, 1, sizeof n, &n), "clSetKernelArg");
  clu_check(CL_LAUNCH("spin", clEnqueueNDRangeKernel, q, k, 1, NULL, &global, NULL, 0, NULL, &e),
            "clEnqueueNDRangeKernel");
  return e;
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_context context = clu_context(device);
  cl_program program = clu_program(context, device, source);
  cl_int err = CL_SUCCESS;
  cl_command_queue qa, qb;
  CL_OBJ(qa, &err, clCreateCommandQueue, context, device, CL_QUEUE_PROFILING_ENABLE);
  clu_check(err, "clCreateCommandQueue");
  CL_OBJ(qb, &err, clCreateCommandQueue, context, device, CL_QUEUE_PROFILING_ENABLE);
  clu_check(err, "clCreateCommandQueue");
  cl_mem out = clu_buffer(context, CL_MEM_READ_WRITE, 64);
  cl_mem big = clu_buffer(context, CL_MEM_READ_WRITE, COPY_BYTES);
  cl_kernel k = clu_kernel(program, "spin");
  clu_check(CL(clSetKernelArg, k, 0, sizeof out, &out), "clSetKernelArg");
  char *host = calloc(1, COPY_BYTES);
  if (!host)
    clu_fail("out of memory");

  /* 1. The gap. */
  cl_event e1 = spin(qa, k, 1000000);
  clu_check(CL(clFinish, qa), "clFinish");
  struct timespec nap = {0, SLEEP_MS * 1000000L};
  nanosleep(&nap, NULL);
  cl_event e2 = spin(qa, k, 1000000);
  clu_check(CL(clFinish, qa), "clFinish");

  /* 2. The overlap. */
  cl_event e3 = spin(qa, k, 100000000);
  clu_check(CL(clFlush, qa), "clFlush");
  cl_event e4;
  clu_check(CL_XFER(COPY_BYTES, clEnqueueWriteBuffer, qb, big, CL_FALSE, 0, COPY_BYTES, host, 0,
                    NULL, &e4),
            "clEnqueueWriteBuffer");
  clu_check(CL(clFinish, qb), "clFinish");
  clu_check(CL(clFinish, qa), "clFinish");

  cl_ulong s1, t1, s2, t2, s3, t3, s4, t4;
  times(e1, &s1, &t1);
  times(e2, &s2, &t2);
  times(e3, &s3, &t3);
  times(e4, &s4, &t4);
  cl_ulong lo = s3 > s4 ? s3 : s4, hi = t3 < t4 ? t3 : t4;
  cl_ulong overlap = hi > lo ? hi - lo : 0;
  cl_ulong busy = (t1 - s1) + (t2 - s2) + (t3 - s3) + (t4 - s4) - overlap;
  printf("gap_ns=%llu overlap_ns=%llu busy_ns=%llu kernel_ns=%llu copy_ns=%llu\n",
         (unsigned long long)(s2 - t1), (unsigned long long)overlap, (unsigned long long)busy,
         (unsigned long long)(t3 - s3), (unsigned long long)(t4 - s4));

  CL(clReleaseEvent, e1);
  CL(clReleaseEvent, e2);
  CL(clReleaseEvent, e3);
  CL(clReleaseEvent, e4);
  CL(clReleaseKernel, k);
  CL(clReleaseMemObject, out);
  CL(clReleaseMemObject, big);
  CL(clReleaseCommandQueue, qa);
  CL(clReleaseCommandQueue, qb);
  CL(clReleaseProgram, program);
  CL(clReleaseContext, context);
  free(host);
  return clc_finish(0);
}
