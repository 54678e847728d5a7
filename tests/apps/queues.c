/* queues: one context, three command queues made three ways
 *   q0: clCreateCommandQueue without properties
 *   q1: clCreateCommandQueue with CL_QUEUE_PROFILING_ENABLE
 *   q2: clCreateCommandQueueWithProperties with a property list (out-of-order)
 * Each queue writes its inputs, runs its own kernel twice, reads the result back, and is
 * finished with clFinish. Checks every result. */
#include "cl_util.h"

static const char *source =
    "__kernel void vadd(__global const int *a, __global const int *b, __global int *c) {\n"
    "  size_t i = get_global_id(0); c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void vmul(__global const int *a, __global const int *b, __global int *c) {\n"
    "  size_t i = get_global_id(0); c[i] = a[i] * b[i];\n"
    "}\n"
    "__kernel void vsub(__global const int *a, __global const int *b, __global int *c) {\n"
    "  size_t i = get_global_id(0); c[i] = a[i] - b[i];\n"
    "}\n";

enum { N = 512, NQUEUES = 3, LAUNCHES = 2 };

static int expected(int q, int i) {
  int a = i, b = 3;
  return q == 0 ? a + b : q == 1 ? a * b : a - b;
}

int main(void) {
  static const char *kernel_names[NQUEUES] = {"vadd", "vmul", "vsub"};
  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_context context = clu_context(device);
  cl_program program = clu_program(context, device, source);

  cl_int err = CL_SUCCESS;
  cl_command_queue queues[NQUEUES];
  CL_OBJ(queues[0], &err, clCreateCommandQueue, context, device, 0);
  clu_check(err, "clCreateCommandQueue");
  CL_OBJ(queues[1], &err, clCreateCommandQueue, context, device, CL_QUEUE_PROFILING_ENABLE);
  clu_check(err, "clCreateCommandQueue");
  const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES,
                                            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  CL_OBJ(queues[2], &err, clCreateCommandQueueWithProperties, context, device, properties);
  clu_check(err, "clCreateCommandQueueWithProperties");

  int a[N], b[N], c[NQUEUES][N];
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 3;
  }
  const size_t bytes = sizeof a;
  cl_mem buffers[NQUEUES][3];
  cl_kernel kernels[NQUEUES];
  for (int q = 0; q < NQUEUES; q++) {
    for (int k = 0; k < 3; k++)
      buffers[q][k] = clu_buffer(context, CL_MEM_READ_WRITE, bytes);
    clu_check(CL_XFER(bytes, clEnqueueWriteBuffer, queues[q], buffers[q][0], CL_TRUE, 0, bytes,
                      a, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
    clu_check(CL_XFER(bytes, clEnqueueWriteBuffer, queues[q], buffers[q][1], CL_TRUE, 0, bytes,
                      b, 0, NULL, NULL),
              "clEnqueueWriteBuffer");
    kernels[q] = clu_kernel(program, kernel_names[q]);
    for (cl_uint k = 0; k < 3; k++)
      clu_check(CL(clSetKernelArg, kernels[q], k, sizeof(cl_mem), &buffers[q][k]),
                "clSetKernelArg");
    size_t global = N;
    for (int l = 0; l < LAUNCHES; l++)
      clu_check(CL_LAUNCH(kernel_names[q], clEnqueueNDRangeKernel, queues[q], kernels[q], 1, NULL,
                          &global, NULL, 0, NULL, NULL),
                "clEnqueueNDRangeKernel");
    /* The out-of-order queue needs the kernels done before the read starts. */
    clu_check(CL(clEnqueueBarrierWithWaitList, queues[q], 0, NULL, NULL),
              "clEnqueueBarrierWithWaitList");
    clu_check(CL_XFER(bytes, clEnqueueReadBuffer, queues[q], buffers[q][2], CL_TRUE, 0, bytes,
                      c[q], 0, NULL, NULL),
              "clEnqueueReadBuffer");
  }
  for (int q = 0; q < NQUEUES; q++)
    clu_check(CL(clFinish, queues[q]), "clFinish");

  for (int q = 0; q < NQUEUES; q++) {
    for (int i = 0; i < N; i++)
      if (c[q][i] != expected(q, i))
        clu_fail("queue %d (%s): c[%d] = %d, expected %d", q, kernel_names[q], i, c[q][i],
                 expected(q, i));
    printf("queues: queue %d ran %s %d times: ok\n", q, kernel_names[q], LAUNCHES);
  }

  for (int q = 0; q < NQUEUES; q++) {
    CL(clReleaseKernel, kernels[q]);
    for (int k = 0; k < 3; k++)
      CL(clReleaseMemObject, buffers[q][k]);
    CL(clReleaseCommandQueue, queues[q]);
  }
  CL(clReleaseProgram, program);
  CL(clReleaseContext, context);
  return clc_finish(0);
}
