/* itt_pause_opencl: __itt_pause and __itt_resume stop and restart the recording of every
 * backend, not only ITT's. The program calls clGetPlatformIDs RECORDED times, pauses
 * through ITT, calls it PAUSED times, resumes and calls it RECORDED times again, then
 * writes to $APP_MANIFEST how many calls the tracer must count. Exits 77 without an ITT
 * collector or an OpenCL platform.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#include "itt_loader.h"

enum { RECORDED = 5, PAUSED = 7 };

static int calls(int n) {
  for (int i = 0; i < n; i++) {
    cl_uint count = 0;
    if (clGetPlatformIDs(0, NULL, &count) != CL_SUCCESS || count == 0)
      return -1;
  }
  return 0;
}

int main(void) {
  struct itt_api itt;
  if (!itt_load(&itt)) {
    fprintf(stderr, "itt_pause_opencl: no ITT collector (INTEL_LIBITTNOTIFY64)\n");
    return 77;
  }
  if (calls(RECORDED)) {
    fprintf(stderr, "itt_pause_opencl: no OpenCL platform\n");
    return 77;
  }
  ITT_CALL(&itt, pause);
  calls(PAUSED);
  ITT_CALL(&itt, resume);
  calls(RECORDED);
  const char *path = getenv("APP_MANIFEST");
  FILE *out = path ? fopen(path, "w") : NULL;
  if (out) {
    fprintf(out, "{\"clGetPlatformIDs\": %d, \"made\": %d, \"pauses\": 1}\n", 2 * RECORDED,
            2 * RECORDED + PAUSED);
    fclose(out);
  }
  return 0;
}
