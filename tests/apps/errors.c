/* errors: OpenCL calls that fail with known codes, between calls that succeed, so the
 * tally's Error column can be checked. Statuses come back three ways: as the result, in
 * errcode_ret, and (errcode_ret NULL) only as a NULL object, which the interposer must
 * still see as an error. Exits 1 when a call does not fail the way it should. */
#include "cl_util.h"

static const char *good_source =
    "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }\n";
static const char *bad_source = "__kernel void broken(__global int *a) { a[0] = ; }\n";

static int failures;

static void expect(const char *what, cl_int got, cl_int want, const char *want_name) {
  if (got != want) {
    fprintf(stderr, "errors: %s returned %d, expected %s (%d)\n", what, (int)got, want_name,
            (int)want);
    failures++;
  }
  printf("errors: %s -> %s\n", what, want_name);
}

#define EXPECT(what, got, code) expect(what, got, code, #code)

static void expect_null(const char *what, const void *object) {
  if (object) {
    fprintf(stderr, "errors: %s returned an object, expected NULL\n", what);
    failures++;
  }
  printf("errors: %s -> NULL\n", what);
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_int err = CL_SUCCESS;

  /* Status as the result. */
  EXPECT("clGetPlatformIDs(0, NULL, NULL)", CL(clGetPlatformIDs, 0, NULL, NULL),
         CL_INVALID_VALUE);
  cl_device_id gpu;
  EXPECT("clGetDeviceIDs(GPU) on a CPU-only platform",
         CL(clGetDeviceIDs, platform, CL_DEVICE_TYPE_GPU, 1, &gpu, NULL), CL_DEVICE_NOT_FOUND);
  cl_device_id dev;
  EXPECT("clGetDeviceIDs(num_entries 0, devices not NULL)",
         CL(clGetDeviceIDs, platform, CL_DEVICE_TYPE_ALL, 0, &dev, NULL), CL_INVALID_VALUE);
  size_t size = 0;
  EXPECT("clGetPlatformInfo(unknown param)",
         CL(clGetPlatformInfo, platform, 0x7777, 0, NULL, &size), CL_INVALID_VALUE);
  EXPECT("clReleaseMemObject(NULL)", CL(clReleaseMemObject, NULL), CL_INVALID_MEM_OBJECT);
  EXPECT("clWaitForEvents(0, NULL)", CL(clWaitForEvents, 0, NULL), CL_INVALID_VALUE);

  /* Status in errcode_ret. */
  cl_context_properties bogus[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)bogus, 0};
  cl_context no_context;
  CL_OBJ(no_context, &err, clCreateContextFromType, bogus, CL_DEVICE_TYPE_ALL, NULL, NULL);
  EXPECT("clCreateContextFromType(bogus platform)", err, CL_INVALID_PLATFORM);
  if (no_context)
    clu_fail("clCreateContextFromType returned a context for a bogus platform");

  cl_context context = clu_context(device);
  cl_command_queue queue;
  CL_OBJ(queue, &err, clCreateCommandQueue, context, device, 0);
  clu_check(err, "clCreateCommandQueue");
  cl_mem none;
  CL_OBJ(none, &err, clCreateBuffer, context, CL_MEM_READ_WRITE, 0, NULL);
  EXPECT("clCreateBuffer(size 0)", err, CL_INVALID_BUFFER_SIZE);

  /* errcode_ret NULL: the app sees only a NULL object. */
  CL_OBJ(none, NULL, clCreateBuffer, context, CL_MEM_READ_WRITE, 0, NULL);
  expect_null("clCreateBuffer(size 0, errcode_ret NULL)", none);

  /* A program that does not compile, and one that does. */
  cl_program broken;
  CL_OBJ(broken, &err, clCreateProgramWithSource, context, 1, &bad_source, NULL);
  clu_check(err, "clCreateProgramWithSource");
  EXPECT("clBuildProgram(syntax error)", CL(clBuildProgram, broken, 1, &device, "", NULL, NULL),
         CL_BUILD_PROGRAM_FAILURE);
  size_t log_size = 0;
  clu_check(CL(clGetProgramBuildInfo, broken, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size),
            "clGetProgramBuildInfo");
  if (log_size < 2)
    clu_fail("no build log for a program that did not build");
  CL(clReleaseProgram, broken);

  cl_program program = clu_program(context, device, good_source);
  cl_kernel kernel;
  CL_OBJ(kernel, &err, clCreateKernel, program, "no_such_kernel");
  EXPECT("clCreateKernel(unknown name)", err, CL_INVALID_KERNEL_NAME);
  CL_OBJ(kernel, NULL, clCreateKernel, program, "no_such_kernel");
  expect_null("clCreateKernel(unknown name, errcode_ret NULL)", kernel);
  kernel = clu_kernel(program, "twice");

  /* A launch before the argument is set, a bad argument index, then the right way. */
  size_t global = 256;
  EXPECT("clEnqueueNDRangeKernel(argument not set)",
         CL_LAUNCH("twice", clEnqueueNDRangeKernel, queue, kernel, 1, NULL, &global, NULL, 0, NULL,
                   NULL),
         CL_INVALID_KERNEL_ARGS);
  cl_mem buffer = clu_buffer(context, CL_MEM_READ_WRITE, global * sizeof(int));
  EXPECT("clSetKernelArg(index 5 of 1)", CL(clSetKernelArg, kernel, 5, sizeof buffer, &buffer),
         CL_INVALID_ARG_INDEX);
  clu_check(CL(clSetKernelArg, kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
  int data[256];
  for (int i = 0; i < 256; i++)
    data[i] = i;
  clu_check(CL_XFER(sizeof data, clEnqueueWriteBuffer, queue, buffer, CL_TRUE, 0, sizeof data,
                    data, 0, NULL, NULL),
            "clEnqueueWriteBuffer");
  clu_check(CL_LAUNCH("twice", clEnqueueNDRangeKernel, queue, kernel, 1, NULL, &global, NULL, 0,
                      NULL, NULL),
            "clEnqueueNDRangeKernel");

  /* A read past the end of the buffer moves nothing. */
  static int big[512];
  EXPECT("clEnqueueReadBuffer(past the end)",
         CL_XFER(sizeof big, clEnqueueReadBuffer, queue, buffer, CL_TRUE, 0, sizeof big, big, 0,
                 NULL, NULL),
         CL_INVALID_VALUE);
  clu_check(CL_XFER(sizeof data, clEnqueueReadBuffer, queue, buffer, CL_TRUE, 0, sizeof data,
                    data, 0, NULL, NULL),
            "clEnqueueReadBuffer");
  clu_check(CL(clFinish, queue), "clFinish");
  for (int i = 0; i < 256; i++)
    if (data[i] != 2 * i)
      clu_fail("errors: data[%d] = %d, expected %d", i, data[i], 2 * i);
  printf("errors: the kernel that ran computed the right values\n");

  CL(clReleaseMemObject, buffer);
  CL(clReleaseKernel, kernel);
  CL(clReleaseProgram, program);
  CL(clReleaseCommandQueue, queue);
  CL(clReleaseContext, context);
  if (failures)
    clu_fail("errors: %d calls did not fail as expected", failures);
  return clc_finish(0);
}
