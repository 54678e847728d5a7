/* steps_app: an OpenCL program (PoCL) that marks its steps with ITT tasks, for the steps,
 * windows and diff tests (tests/e2e/steps_test.sh, diff_test.sh).
 *
 *   steps_app [STEPS [SLOW_STEP [VARIANT]]]
 *
 * A "Setup" task builds the program and runs the kernel once (PoCL compiles it then),
 * then STEPS tasks "Step.1" .. "Step.STEPS" each run
 * the kernel `spin` once and wait for it (clFinish), then read one word back; step
 * SLOW_STEP (0: none) runs it SLOW_FACTOR times longer. VARIANT `slower` makes every
 * step's kernel SLOWER_FACTOR times longer; `extra` adds a call to each step
 * (clGetDeviceInfo). After the steps, the buffers are released outside any step.
 *
 * Writes to $APP_MANIFEST what it did in each step (its calls by function, its kernels,
 * its name), for the tests to work the window's answers out from. Exits 77 when no ITT
 * collector is loaded (INTEL_LIBITTNOTIFY64) or no OpenCL device is there.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "itt_loader.h"

enum { MAX_STEPS = 64, SPIN = 400000, SLOW_FACTOR = 40, SLOWER_FACTOR = 6 };

static const char *source =
    "__kernel void spin(__global uint *out, uint n) {\n"
    "  uint x = get_global_id(0) + 1;\n"
    "  for (uint i = 0; i < n; i++) x = x * 1664525u + 1013904223u;\n"
    "  out[get_global_id(0)] = x;\n"
    "}\n";

static struct itt_api itt;
static __itt_domain *domain;

/* The calls made so far, by function (cl_count.h). */
struct snapshot {
  unsigned long calls[CLC_MAX_NAMES];
  size_t n;
};

static void snap(struct snapshot *s) {
  pthread_mutex_lock(&clc_state.lock);
  s->n = clc_state.nfunctions;
  for (size_t i = 0; i < s->n; i++)
    s->calls[i] = clc_state.functions[i].calls;
  pthread_mutex_unlock(&clc_state.lock);
}

static void task_begin(const char *name) {
  __itt_string_handle *h = itt.string_handle_create(name);
  ITT_DOMAIN_CALL(&itt, domain, task_begin, __itt_null, __itt_null, h);
}

static void task_end(void) { ITT_DOMAIN_CALL0(&itt, domain, task_end); }

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 6;
  int slow_step = argc > 2 ? atoi(argv[2]) : 0;
  const char *variant = argc > 3 ? argv[3] : "";
  if (steps < 1 || steps > MAX_STEPS)
    clu_fail("steps: 1 to %d", MAX_STEPS);
  if (!itt_load(&itt)) {
    fprintf(stderr, "steps_app: no ITT collector (INTEL_LIBITTNOTIFY64)\n");
    return 77;
  }
  domain = itt.domain_create("tracer.steps");
  bool slower = strcmp(variant, "slower") == 0, extra = strcmp(variant, "extra") == 0;

  task_begin("Setup");
  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_context context = clu_context(device);
  cl_program program = clu_program(context, device, source);
  cl_int err = CL_SUCCESS;
  cl_command_queue q;
  CL_OBJ(q, &err, clCreateCommandQueue, context, device, CL_QUEUE_PROFILING_ENABLE);
  clu_check(err, "clCreateCommandQueue");
  cl_mem out = clu_buffer(context, CL_MEM_READ_WRITE, 64);
  cl_kernel k = clu_kernel(program, "spin");
  clu_check(CL(clSetKernelArg, k, 0, sizeof out, &out), "clSetKernelArg");
  /* A first run of the kernel: PoCL compiles it for the device then, in the clFinish. */
  cl_uint warm = 1;
  size_t one = 1;
  clu_check(CL(clSetKernelArg, k, 1, sizeof warm, &warm), "clSetKernelArg");
  clu_check(CL_LAUNCH("spin", clEnqueueNDRangeKernel, q, k, 1, NULL, &one, NULL, 0, NULL, NULL),
            "clEnqueueNDRangeKernel");
  clu_check(CL(clFinish, q), "clFinish");
  task_end();

  static struct snapshot before[MAX_STEPS], after[MAX_STEPS];
  for (int s = 1; s <= steps; s++) {
    char name[32];
    snprintf(name, sizeof name, "Step.%d", s);
    snap(&before[s - 1]);
    task_begin(name);
    cl_uint n = SPIN * (s == slow_step ? SLOW_FACTOR : 1) * (slower ? SLOWER_FACTOR : 1);
    size_t global = 1;
    clu_check(CL(clSetKernelArg, k, 1, sizeof n, &n), "clSetKernelArg");
    clu_check(CL_LAUNCH("spin", clEnqueueNDRangeKernel, q, k, 1, NULL, &global, NULL, 0, NULL,
                        NULL),
              "clEnqueueNDRangeKernel");
    clu_check(CL(clFinish, q), "clFinish");
    cl_uint word;
    clu_check(CL_XFER(sizeof word, clEnqueueReadBuffer, q, out, CL_TRUE, 0, sizeof word, &word, 0,
                      NULL, NULL),
              "clEnqueueReadBuffer");
    if (extra) {
      cl_uint units;
      clu_check(CL(clGetDeviceInfo, device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                   NULL),
                "clGetDeviceInfo");
    }
    task_end();
    snap(&after[s - 1]);
  }

  CL(clReleaseKernel, k);
  CL(clReleaseMemObject, out);
  CL(clReleaseCommandQueue, q);
  CL(clReleaseProgram, program);
  CL(clReleaseContext, context);

  const char *path = getenv("APP_MANIFEST");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (path && !f)
    clu_fail("cannot write %s", path);
  if (f) {
    fprintf(f, "{\"steps\": [");
    for (int s = 0; s < steps; s++) {
      fprintf(f, "%s\n  {\"name\": \"Step.%d\", \"kernels\": 1, \"slow\": %s, \"calls\": {",
              s ? "," : "", s + 1, s + 1 == slow_step ? "true" : "false");
      const char *sep = "";
      for (size_t i = 0; i < after[s].n; i++) {
        unsigned long was = i < before[s].n ? before[s].calls[i] : 0;
        if (after[s].calls[i] > was) {
          fprintf(f, "%s\"%s\": %lu", sep, clc_state.functions[i].name, after[s].calls[i] - was);
          sep = ", ";
        }
      }
      fputs("}}", f);
    }
    fputs("\n]}\n", f);
    fclose(f);
  }
  return 0;
}
