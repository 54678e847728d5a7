/* count_shim: an LD_PRELOAD library, independent of the tracer, that counts the calls a
 * program makes to clGetPlatformInfo and clGetDeviceInfo and, at exit, writes
 *   {"clGetPlatformInfo": N, "clGetDeviceInfo": M}
 * to the file named by $COUNT_SHIM_OUTPUT. Like the interposer, it counts the calls the
 * program makes, not calls an OpenCL library makes while serving one (a call made inside
 * a counted call is not counted). */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef cl_int platform_info_fn(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
typedef cl_int device_info_fn(cl_device_id, cl_device_info, size_t, void *, size_t *);

static atomic_ulong platform_info_calls, device_info_calls;
static _Thread_local int depth;

static void *real(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "count_shim: %s not found after the shim\n", name);
    abort();
  }
  return f;
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                  cl_platform_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret) {
  static platform_info_fn *next;
  if (!next)
    next = (platform_info_fn *)real("clGetPlatformInfo");
  if (!depth)
    atomic_fetch_add(&platform_info_calls, 1);
  depth++;
  cl_int status = next(platform, param_name, param_value_size, param_value, param_value_size_ret);
  depth--;
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
                                                size_t param_value_size, void *param_value,
                                                size_t *param_value_size_ret) {
  static device_info_fn *next;
  if (!next)
    next = (device_info_fn *)real("clGetDeviceInfo");
  if (!depth)
    atomic_fetch_add(&device_info_calls, 1);
  depth++;
  cl_int status = next(device, param_name, param_value_size, param_value, param_value_size_ret);
  depth--;
  return status;
}

__attribute__((destructor)) static void count_shim_report(void) {
  const char *path = getenv("COUNT_SHIM_OUTPUT");
  if (!path || !*path)
    return;
  FILE *out = fopen(path, "w");
  if (!out) {
    perror(path);
    return;
  }
  fprintf(out, "{\"clGetPlatformInfo\": %lu, \"clGetDeviceInfo\": %lu}\n",
          atomic_load(&platform_info_calls), atomic_load(&device_info_calls));
  fclose(out);
}
