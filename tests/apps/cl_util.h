/* cl_util.h: what every test app does the same way (choose a device, build a program),
 * with every OpenCL call counted through cl_count.h. */
#ifndef CL_UTIL_H
#define CL_UTIL_H

#include "cl_count.h"

#include <stdarg.h>

/* ocl-icd's answer when no ICD is installed (CL_PLATFORM_NOT_FOUND_KHR, cl_ext.h). */
#define CLU_PLATFORM_NOT_FOUND (-1001)

/* Exit status that ctest reads as "skipped": no OpenCL runtime here. */
enum { CLU_SKIP = 77 };

static inline void clu_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

/* Exits 1 with a message when status is not CL_SUCCESS. */
static inline void clu_check(cl_int status, const char *what) {
  if (status != CL_SUCCESS)
    clu_fail("%s failed with status %d", what, (int)status);
}

/* The first platform and its first device; exits 77 (skip) when there is none. */
static inline void clu_device(cl_platform_id *platform, cl_device_id *device) {
  cl_uint n = 0;
  cl_int status = CL(clGetPlatformIDs, 0, NULL, &n);
  if (status == CLU_PLATFORM_NOT_FOUND || (status == CL_SUCCESS && n == 0)) {
    fprintf(stderr, "SKIP: no OpenCL platform\n");
    exit(CLU_SKIP);
  }
  clu_check(status, "clGetPlatformIDs");
  clu_check(CL(clGetPlatformIDs, 1, platform, NULL), "clGetPlatformIDs");
  status = CL(clGetDeviceIDs, *platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
  if (status == CL_DEVICE_NOT_FOUND || (status == CL_SUCCESS && n == 0)) {
    fprintf(stderr, "SKIP: no OpenCL device\n");
    exit(CLU_SKIP);
  }
  clu_check(status, "clGetDeviceIDs");
  clu_check(CL(clGetDeviceIDs, *platform, CL_DEVICE_TYPE_ALL, 1, device, NULL),
            "clGetDeviceIDs");
}

/* A context for one device. */
static inline cl_context clu_context(cl_device_id device) {
  cl_int err = CL_SUCCESS;
  cl_context context;
  CL_OBJ(context, &err, clCreateContext, NULL, 1, &device, NULL, NULL);
  clu_check(err, "clCreateContext");
  return context;
}

/* Builds source for device; on failure prints the build log and exits 1. */
static inline cl_program clu_program(cl_context context, cl_device_id device,
                                     const char *source) {
  cl_int err = CL_SUCCESS;
  cl_program program;
  CL_OBJ(program, &err, clCreateProgramWithSource, context, 1, &source, NULL);
  clu_check(err, "clCreateProgramWithSource");
  cl_int status = CL(clBuildProgram, program, 1, &device, "", NULL, NULL);
  if (status != CL_SUCCESS) {
    char log[4096] = "";
    CL(clGetProgramBuildInfo, program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
       NULL);
    clu_fail("clBuildProgram failed with status %d:\n%s", (int)status, log);
  }
  return program;
}

static inline cl_kernel clu_kernel(cl_program program, const char *name) {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel;
  CL_OBJ(kernel, &err, clCreateKernel, program, name);
  clu_check(err, name);
  return kernel;
}

static inline cl_mem clu_buffer(cl_context context, cl_mem_flags flags, size_t size) {
  cl_int err = CL_SUCCESS;
  cl_mem buffer;
  CL_OBJ(buffer, &err, clCreateBuffer, context, flags, size, NULL);
  clu_check(err, "clCreateBuffer");
  return buffer;
}

#endif
