/* Adds two vectors on the first OpenCL device: the README's first example.
 * Build: part of `make` (build/examples/vadd). Run: tracer ./build/examples/vadd */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "__kernel void vadd(__global const float *a, __global const float *b,\n"
    "                   __global float *c) {\n"
    "  int i = get_global_id(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n";

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cl_int check_status = (call);                                                          \
    if (check_status != CL_SUCCESS) {                                                      \
      fprintf(stderr, "vadd: %s failed: %d\n", #call, check_status);                       \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

int main(void) {
  enum { N = 1 << 20 };
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  CHECK(err);

  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
  if (!a || !b || !c)
    return 1;
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = 2.0f * (float)i;
  }
  cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY, N * sizeof *a, NULL, &err);
  CHECK(err);
  cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY, N * sizeof *b, NULL, &err);
  CHECK(err);
  cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, N * sizeof *c, NULL, &err);
  CHECK(err);
  CHECK(clEnqueueWriteBuffer(queue, da, CL_FALSE, 0, N * sizeof *a, a, 0, NULL, NULL));
  CHECK(clEnqueueWriteBuffer(queue, db, CL_FALSE, 0, N * sizeof *b, b, 0, NULL, NULL));

  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "vadd", &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof da, &da));
  CHECK(clSetKernelArg(kernel, 1, sizeof db, &db));
  CHECK(clSetKernelArg(kernel, 2, sizeof dc, &dc));
  size_t global = N;
  for (int iteration = 0; iteration < 10; iteration++)
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, N * sizeof *c, c, 0, NULL, NULL));
  CHECK(clFinish(queue));

  int wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += c[i] != 3.0f * (float)i;
  printf("vadd: %d elements, %s\n", N, wrong ? "WRONG" : "correct");

  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  free(a);
  free(b);
  free(c);
  return wrong != 0;
}
