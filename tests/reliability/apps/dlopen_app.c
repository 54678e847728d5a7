/* dlopen_app: reaches OpenCL three ways, CYCLES times (default 20):
 *   - the normal symbol: clGetPlatformIDs, linked against libOpenCL;
 *   - a pointer from dlsym() on a handle of dlopen("libOpenCL.so.1"): clGetPlatformInfo;
 *   - a pointer from dlsym(RTLD_DEFAULT, ...): clGetDeviceIDs;
 * then dlclose()s the handle and starts again. Each way calls its own function, so a
 * tally that misses one way says which by name. Count file: $REL_COUNT (rel_count.h).
 * usage: dlopen_app [CYCLES]   (built with _GNU_SOURCE, for RTLD_DEFAULT) */
#include "rel_count.h"

#include <dlfcn.h>

typedef cl_int info_fn(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
typedef cl_int devices_fn(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);

int main(int argc, char **argv) {
  int cycles = argc > 1 ? atoi(argv[1]) : 20;
  cl_platform_id platform = rel_start();
  for (int c = 0; c < cycles; c++) {
    void *handle = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      fprintf(stderr, "dlopen_app: %s\n", dlerror());
      return 1;
    }
    info_fn *info = (info_fn *)dlsym(handle, "clGetPlatformInfo");
    devices_fn *devices = (devices_fn *)dlsym(RTLD_DEFAULT, "clGetDeviceIDs");
    if (!info || !devices) {
      fprintf(stderr, "dlopen_app: dlsym: %s\n", dlerror());
      return 1;
    }
    cl_uint n = 0;
    char name[256];
    if (rel_platform_ids(0, NULL, &n) != CL_SUCCESS)
      return 1;
    if (info(platform, CL_PLATFORM_NAME, sizeof name, name, NULL) != CL_SUCCESS)
      return 1;
    rel_note(REL_GET_PLATFORM_INFO);
    if (devices(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS)
      return 1;
    rel_note(REL_GET_DEVICE_IDS);
    if (dlclose(handle) != 0) {
      fprintf(stderr, "dlopen_app: dlclose: %s\n", dlerror());
      return 1;
    }
  }
  rel_flush();
  printf("dlopen_app: %d cycles of dlopen, 3 calls, dlclose: ok\n", cycles);
  return 0;
}
