/* decode: a fixed set of OpenCL calls with known arguments, for the test of `tracer -t`.
 * It writes to the file named by its first argument what the decoded trace must show,
 * one line per expectation:
 *   EVENT<TAB>TEXT   an event line of lttng_ust_opencl:EVENT must contain TEXT (fields
 *                    appear in the order of the call's params)
 * Values come from the headers and from what the calls returned, never from the test. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *expect;

static void want(const char *event, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void want(const char *event, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(expect, "%s\t", event);
  vfprintf(expect, fmt, ap);
  fputc('\n', expect);
  va_end(ap);
}

int main(int argc, char **argv) {
  if (argc != 2 || !(expect = fopen(argv[1], "w"))) {
    fprintf(stderr, "usage: decode EXPECTATIONS-FILE\n");
    return 2;
  }
  cl_uint count = 0;
  if (clGetPlatformIDs(0, NULL, &count) != CL_SUCCESS || count == 0) {
    fprintf(stderr, "SKIP: no OpenCL platform\n");
    return 77;
  }
  want("clGetPlatformIDs_entry", "num_entries: 0, platforms: 0x0");
  want("clGetPlatformIDs_exit", "result: CL_SUCCESS, num_platforms_val: %u, platforms_vals: []",
       count);

  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  clGetPlatformIDs(1, &platform, NULL);
  want("clGetPlatformIDs_exit", "platforms_vals: [ %p ]", (void *)platform);
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  want("clGetDeviceIDs_entry", "platform: %p, device_type: %" PRIu64, (void *)platform,
       (uint64_t)CL_DEVICE_TYPE_ALL);
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  want("clCreateContext_entry", "num_devices: 1");
  want("clCreateContext_entry", "devices_vals: [ %p ]", (void *)device);
  want("clCreateContext_exit", "result: %p, status: CL_SUCCESS, errcode_ret_val: CL_SUCCESS", (void *)context);

  /* A size the test can recognise, a call that fails through errcode_ret, and one that
   * fails with errcode_ret NULL: the tracer's own status field still says why. */
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 12345, NULL, &err);
  want("clCreateBuffer_entry", "flags: %" PRIu64 ", size: 12345, host_ptr: 0x0",
       (uint64_t)CL_MEM_READ_WRITE);
  want("clCreateBuffer_exit", "result: %p, status: CL_SUCCESS, errcode_ret_val: CL_SUCCESS", (void *)buffer);
  cl_mem bad = clCreateBuffer(context, CL_MEM_READ_WRITE, 0, NULL, &err);
  if (bad || err != CL_INVALID_BUFFER_SIZE) {
    fprintf(stderr, "decode: clCreateBuffer(size 0) gave %d\n", err);
    return 1;
  }
  want("clCreateBuffer_exit",
       "result: 0x0, status: CL_INVALID_BUFFER_SIZE, errcode_ret_val: CL_INVALID_BUFFER_SIZE");
  clCreateBuffer(context, CL_MEM_READ_WRITE, 0, NULL, NULL);
  want("clCreateBuffer_exit", "result: 0x0, status: CL_INVALID_BUFFER_SIZE, errcode_ret_val: NULL");

  /* A struct passed by pointer: shown member by member. */
  cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 16, .image_height = 8};
  cl_mem image = clCreateImage(context, CL_MEM_READ_ONLY, &format, &desc, NULL, &err);
  want("clCreateImage_entry", "image_format_bytes: { image_channel_order: %u, image_channel_data_type: %u }",
       (unsigned)CL_RGBA, (unsigned)CL_UNORM_INT8);
  want("clCreateImage_entry", "image_desc_bytes: { image_type: %u, image_width: 16, image_height: 8",
       (unsigned)CL_MEM_OBJECT_IMAGE2D);
  if (image)
    clReleaseMemObject(image);

  /* A string, and arrays with their lengths from other params. */
  const char *source = "__kernel void decode_kernel(__global int *out) {\n"
                       "  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = 1;\n"
                       "}\n";
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  want("clCreateProgramWithSource_entry", "count: 1, strings: %p, strings_vals: [ %p ]",
       (void *)&source, (void *)source);
  clBuildProgram(program, 1, &device, "-cl-std=CL1.2", NULL, NULL);
  want("clBuildProgram_entry", "options_str: \"-cl-std=CL1.2\"");
  cl_kernel kernel = clCreateKernel(program, "decode_kernel", &err);
  want("clCreateKernel_entry", "kernel_name_str: \"decode_kernel\"");
  cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 64 * 8 * sizeof(cl_int), NULL, &err);
  clSetKernelArg(kernel, 0, sizeof out, &out);
  want("clSetKernelArg_entry", "arg_index: 0, arg_size: %zu", sizeof out);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  size_t global[2] = {64, 8}, local[2] = {8, 4};
  cl_event event;
  err = clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, local, 0, NULL, &event);
  want("clEnqueueNDRangeKernel_entry",
       "work_dim: 2, global_work_offset: 0x0, global_work_offset_vals: [], global_work_size: %p, "
       "global_work_size_vals: [ 64, 8 ], local_work_size: %p, local_work_size_vals: [ 8, 4 ]",
       (void *)global, (void *)local);
  want("clEnqueueNDRangeKernel_exit", "result: CL_SUCCESS, event_val: %p", (void *)event);
  clWaitForEvents(1, &event);
  want("clWaitForEvents_entry", "num_events: 1, event_list: %p, event_list_vals: [ %p ]",
       (void *)&event, (void *)event);
  clReleaseEvent(event);
  clFinish(queue);
  want("device_command", "backend: \"opencl\", kind: 0, name: \"decode_kernel\"");

  clReleaseCommandQueue(queue);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(out);
  clReleaseMemObject(buffer);
  clReleaseContext(context);
  return fclose(expect) == 0 ? 0 : 1;
}
