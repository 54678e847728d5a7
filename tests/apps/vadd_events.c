/* vadd_events: vadd where the app passes its own cl_event to every enqueue, chains them
 * through wait lists, waits with clWaitForEvents, queries every event (status, command
 * type, profiling times on its profiling queue) and releases them. */
#include "cl_util.h"

static const char *source =
    "__kernel void vadd(__global const float *a, __global const float *b,\n"
    "                   __global float *c, const unsigned int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

enum { WRITE_A, WRITE_B, KERNEL, READ_C, NEVENTS };

int main(void) {
  const unsigned int n = 4096;
  size_t bytes = n * sizeof(float);
  float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
  if (!a || !b || !c)
    clu_fail("out of memory");
  for (unsigned int i = 0; i < n; i++) {
    a[i] = (float)(i % 100);
    b[i] = 0.5f;
    c[i] = 0.0f;
  }

  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_context context = clu_context(device);
  cl_int err = CL_SUCCESS;
  cl_command_queue queue;
  CL_OBJ(queue, &err, clCreateCommandQueue, context, device, CL_QUEUE_PROFILING_ENABLE);
  clu_check(err, "clCreateCommandQueue");
  cl_program program = clu_program(context, device, source);
  cl_kernel kernel = clu_kernel(program, "vadd");
  cl_mem da = clu_buffer(context, CL_MEM_READ_ONLY, bytes);
  cl_mem db = clu_buffer(context, CL_MEM_READ_ONLY, bytes);
  cl_mem dc = clu_buffer(context, CL_MEM_WRITE_ONLY, bytes);

  cl_event events[NEVENTS];
  clu_check(CL_XFER(bytes, clEnqueueWriteBuffer, queue, da, CL_FALSE, 0, bytes, a, 0, NULL,
                    &events[WRITE_A]),
            "clEnqueueWriteBuffer");
  clu_check(CL_XFER(bytes, clEnqueueWriteBuffer, queue, db, CL_FALSE, 0, bytes, b, 0, NULL,
                    &events[WRITE_B]),
            "clEnqueueWriteBuffer");
  clu_check(CL(clSetKernelArg, kernel, 0, sizeof da, &da), "clSetKernelArg");
  clu_check(CL(clSetKernelArg, kernel, 1, sizeof db, &db), "clSetKernelArg");
  clu_check(CL(clSetKernelArg, kernel, 2, sizeof dc, &dc), "clSetKernelArg");
  clu_check(CL(clSetKernelArg, kernel, 3, sizeof n, &n), "clSetKernelArg");
  size_t global = n, local = 64;
  clu_check(CL_LAUNCH("vadd", clEnqueueNDRangeKernel, queue, kernel, 1, NULL, &global, &local, 2,
                      &events[WRITE_A], &events[KERNEL]),
            "clEnqueueNDRangeKernel");
  clu_check(CL_XFER(bytes, clEnqueueReadBuffer, queue, dc, CL_FALSE, 0, bytes, c, 1,
                    &events[KERNEL], &events[READ_C]),
            "clEnqueueReadBuffer");
  clu_check(CL(clFlush, queue), "clFlush");
  clu_check(CL(clWaitForEvents, NEVENTS, events), "clWaitForEvents");

  static const cl_command_type expected_type[NEVENTS] = {
      CL_COMMAND_WRITE_BUFFER, CL_COMMAND_WRITE_BUFFER, CL_COMMAND_NDRANGE_KERNEL,
      CL_COMMAND_READ_BUFFER};
  for (int i = 0; i < NEVENTS; i++) {
    cl_int status = -1;
    cl_command_type type = 0;
    cl_ulong start = 0, end = 0;
    clu_check(CL(clGetEventInfo, events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                 &status, NULL),
              "clGetEventInfo");
    clu_check(CL(clGetEventInfo, events[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL),
              "clGetEventInfo");
    clu_check(CL(clGetEventProfilingInfo, events[i], CL_PROFILING_COMMAND_START, sizeof start,
                 &start, NULL),
              "clGetEventProfilingInfo");
    clu_check(CL(clGetEventProfilingInfo, events[i], CL_PROFILING_COMMAND_END, sizeof end, &end,
                 NULL),
              "clGetEventProfilingInfo");
    if (status != CL_COMPLETE || type != expected_type[i] || end < start)
      clu_fail("event %d: status %d, type 0x%x, start %llu, end %llu", i, (int)status,
               (unsigned)type, (unsigned long long)start, (unsigned long long)end);
    clu_check(CL(clReleaseEvent, events[i]), "clReleaseEvent");
  }

  for (unsigned int i = 0; i < n; i++)
    if (c[i] != (float)(i % 100) + 0.5f)
      clu_fail("vadd_events: c[%u] = %g", i, (double)c[i]);
  printf("vadd_events: %u elements, %d events complete: ok\n", n, NEVENTS);

  CL(clReleaseMemObject, da);
  CL(clReleaseMemObject, db);
  CL(clReleaseMemObject, dc);
  CL(clReleaseKernel, kernel);
  CL(clReleaseProgram, program);
  CL(clReleaseCommandQueue, queue);
  CL(clReleaseContext, context);
  free(a);
  free(b);
  free(c);
  return clc_finish(0);
}
