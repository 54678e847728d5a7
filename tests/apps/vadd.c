/* vadd: c = a + b on one in-order queue. No app events (event = NULL everywhere),
 * blocking writes and reads. Checks the result itself.
 *
 * usage: vadd [--exit-code N] [ELEMENTS]   (exits N after a correct run; default 0) */
#include "cl_util.h"

static const char *source =
    "__kernel void vadd(__global const float *a, __global const float *b,\n"
    "                   __global float *c, const unsigned int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

int main(int argc, char **argv) {
  int exit_code = 0;
  unsigned int n = 1024;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--exit-code") == 0 && i + 1 < argc)
      exit_code = atoi(argv[++i]);
    else if (atoi(argv[i]) > 0)
      n = (unsigned int)atoi(argv[i]);
    else
      clu_fail("usage: vadd [--exit-code N] [ELEMENTS]");
  }
  size_t bytes = n * sizeof(float);
  float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
  if (!a || !b || !c)
    clu_fail("out of memory");
  for (unsigned int i = 0; i < n; i++) {
    a[i] = (float)i;
    b[i] = (float)(2 * i);
    c[i] = -1.0f;
  }

  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  char name[256];
  clu_check(CL(clGetDeviceInfo, device, CL_DEVICE_NAME, sizeof name, name, NULL),
            "clGetDeviceInfo");
  cl_context context = clu_context(device);
  cl_int err = CL_SUCCESS;
  cl_command_queue queue;
  CL_OBJ(queue, &err, clCreateCommandQueue, context, device, 0);
  clu_check(err, "clCreateCommandQueue");

  cl_mem da = clu_buffer(context, CL_MEM_READ_ONLY, bytes);
  cl_mem db = clu_buffer(context, CL_MEM_READ_ONLY, bytes);
  cl_mem dc = clu_buffer(context, CL_MEM_WRITE_ONLY, bytes);
  clu_check(CL_XFER(bytes, clEnqueueWriteBuffer, queue, da, CL_TRUE, 0, bytes, a, 0, NULL, NULL),
            "clEnqueueWriteBuffer");
  clu_check(CL_XFER(bytes, clEnqueueWriteBuffer, queue, db, CL_TRUE, 0, bytes, b, 0, NULL, NULL),
            "clEnqueueWriteBuffer");

  cl_program program = clu_program(context, device, source);
  cl_kernel kernel = clu_kernel(program, "vadd");
  clu_check(CL(clSetKernelArg, kernel, 0, sizeof da, &da), "clSetKernelArg");
  clu_check(CL(clSetKernelArg, kernel, 1, sizeof db, &db), "clSetKernelArg");
  clu_check(CL(clSetKernelArg, kernel, 2, sizeof dc, &dc), "clSetKernelArg");
  clu_check(CL(clSetKernelArg, kernel, 3, sizeof n, &n), "clSetKernelArg");
  size_t global = n;
  clu_check(CL_LAUNCH("vadd", clEnqueueNDRangeKernel, queue, kernel, 1, NULL, &global, NULL, 0,
                      NULL, NULL),
            "clEnqueueNDRangeKernel");
  clu_check(CL_XFER(bytes, clEnqueueReadBuffer, queue, dc, CL_TRUE, 0, bytes, c, 0, NULL, NULL),
            "clEnqueueReadBuffer");
  clu_check(CL(clFinish, queue), "clFinish");

  double sum = 0;
  for (unsigned int i = 0; i < n; i++) {
    if (c[i] != (float)(3 * i))
      clu_fail("vadd: c[%u] = %g, expected %g", i, (double)c[i], (double)(3 * i));
    sum += c[i];
  }
  printf("vadd: %u elements, sum %.0f: ok\n", n, sum);

  CL(clReleaseKernel, kernel);
  CL(clReleaseProgram, program);
  CL(clReleaseMemObject, da);
  CL(clReleaseMemObject, db);
  CL(clReleaseMemObject, dc);
  CL(clReleaseCommandQueue, queue);
  CL(clReleaseContext, context);
  free(a);
  free(b);
  free(c);
  return clc_finish(exit_code);
}
