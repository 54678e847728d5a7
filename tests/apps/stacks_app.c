/* stacks_app: kernels launched from known native functions, for the stacks of submissions
 * (docs/flame.md): main -> run_steps -> layer_forward -> launch_light launches `light`,
 * main -> run_steps -> layer_backward -> launch_heavy launches `heavy` (16 times its
 * work); with --helper, a thread of its own (helper_main -> launch_heavy) launches
 * `helper` while the main thread waits for it. Where the ITT collector loads, the main
 * thread opens a task `steps` around run_steps and `helper wait` around the helper thread
 * (which opens none of its own). Built with frame pointers and debug information; every
 * call counted (cl_count.h).
 *
 * usage: stacks_app [--helper] [STEPS]   (default 20) */
#include "cl_util.h"
#include "itt_loader.h"

#include <pthread.h>
#include <stdbool.h>

static const char *source =
    "__kernel void light(__global float *x, const int rounds) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = x[i];\n"
    "  for (int r = 0; r < rounds; r++) v = v * 0.999f + 0.5f;\n"
    "  x[i] = v;\n"
    "}\n"
    "__kernel void heavy(__global float *x, const int rounds) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = x[i];\n"
    "  for (int r = 0; r < 16 * rounds; r++) v = v * 0.999f + 0.5f;\n"
    "  x[i] = v;\n"
    "}\n"
    "__kernel void helper(__global float *x, const int rounds) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] += (float)rounds;\n"
    "}\n";

enum { ELEMENTS = 4096, ROUNDS = 64 };

struct launcher {
  cl_command_queue queue;
  cl_kernel light, heavy, helper;
};

/* Inlined into each launcher, so that the frame that calls clEnqueueNDRangeKernel is the
 * launcher's own. */
static inline __attribute__((always_inline)) void launch(cl_command_queue queue, cl_kernel kernel,
                                                        const char *name) {
  size_t global = ELEMENTS;
  clu_check(CL_LAUNCH(name, clEnqueueNDRangeKernel, queue, kernel, 1, NULL, &global, NULL, 0,
                      NULL, NULL),
            "clEnqueueNDRangeKernel");
}

__attribute__((noinline)) static void launch_light(const struct launcher *l) {
  launch(l->queue, l->light, "light");
}

__attribute__((noinline)) static void launch_heavy(const struct launcher *l, cl_kernel kernel,
                                                   const char *name) {
  launch(l->queue, kernel, name);
}

__attribute__((noinline)) static void layer_forward(const struct launcher *l) { launch_light(l); }

__attribute__((noinline)) static void layer_backward(const struct launcher *l) {
  launch_heavy(l, l->heavy, "heavy");
}

__attribute__((noinline)) static void run_steps(const struct launcher *l, int steps) {
  for (int i = 0; i < steps; i++) {
    layer_forward(l);
    layer_backward(l);
  }
}

static void *helper_main(void *arg) {
  const struct launcher *l = arg;
  for (int i = 0; i < 4; i++)
    launch_heavy(l, l->helper, "helper");
  return NULL;
}

int main(int argc, char **argv) {
  int steps = 20;
  bool helper = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--helper") == 0)
      helper = true;
    else if (atoi(argv[i]) > 0)
      steps = atoi(argv[i]);
    else
      clu_fail("usage: stacks_app [--helper] [STEPS]");
  }
  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_context context = clu_context(device);
  cl_int err = CL_SUCCESS;
  struct launcher l;
  CL_OBJ(l.queue, &err, clCreateCommandQueue, context, device, 0);
  clu_check(err, "clCreateCommandQueue");
  cl_mem x = clu_buffer(context, CL_MEM_READ_WRITE, ELEMENTS * sizeof(float));
  cl_program program = clu_program(context, device, source);
  l.light = clu_kernel(program, "light");
  l.heavy = clu_kernel(program, "heavy");
  l.helper = clu_kernel(program, "helper");
  int rounds = ROUNDS;
  cl_kernel kernels[] = {l.light, l.heavy, l.helper};
  for (int k = 0; k < 3; k++) {
    clu_check(CL(clSetKernelArg, kernels[k], 0, sizeof x, &x), "clSetKernelArg");
    clu_check(CL(clSetKernelArg, kernels[k], 1, sizeof rounds, &rounds), "clSetKernelArg");
  }
  struct itt_api itt = {0};
  __itt_domain *domain = NULL;
  if (itt_load(&itt) && itt.domain_create)
    domain = itt.domain_create("stacks_app");
  __itt_string_handle *steps_name = itt.string_handle_create ? itt.string_handle_create("steps") : NULL;
  __itt_string_handle *wait_name =
      itt.string_handle_create ? itt.string_handle_create("helper wait") : NULL;
  ITT_DOMAIN_CALL(&itt, domain, task_begin, __itt_null, __itt_null, steps_name);
  run_steps(&l, steps);
  ITT_DOMAIN_CALL0(&itt, domain, task_end);
  if (helper) {
    ITT_DOMAIN_CALL(&itt, domain, task_begin, __itt_null, __itt_null, wait_name);
    pthread_t thread;
    if (pthread_create(&thread, NULL, helper_main, &l) != 0)
      clu_fail("pthread_create");
    pthread_join(thread, NULL);
    ITT_DOMAIN_CALL0(&itt, domain, task_end);
  }
  clu_check(CL(clFinish, l.queue), "clFinish");
  printf("stacks_app: %d steps%s: ok\n", steps, helper ? " and a helper thread" : "");
  CL(clReleaseKernel, l.light);
  CL(clReleaseKernel, l.heavy);
  CL(clReleaseKernel, l.helper);
  CL(clReleaseProgram, program);
  CL(clReleaseMemObject, x);
  CL(clReleaseCommandQueue, l.queue);
  CL(clReleaseContext, context);
  return clc_finish(0);
}
