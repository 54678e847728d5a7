/* forker: OpenCL in two processes.
 *
 *   forker fork        the parent runs a kernel, forks; the child makes its own context,
 *                      runs its own kernel and exits; the parent waits, runs its kernel
 *                      again and cleans up.
 *   forker exec VADD   the same, but the child execs VADD (the vadd app) instead.
 *   forker spawn VADD  the parent starts VADD with posix_spawn (glibc makes the child
 *                      with clone(CLONE_VM | CLONE_VFORK): no fork handlers run).
 *
 * The parent writes its manifest to $APP_MANIFEST, the child (or VADD) to
 * $APP_MANIFEST.child; a test adds the two up.
 *
 * PoCL's default "pthread" device starts worker threads when the platform is first used,
 * and fork() copies none of them: a forked child that enqueues work then waits forever.
 * Its "basic" device runs commands on the calling thread and works across fork, so this
 * app picks it unless POCL_DEVICES is already set. */
#define _POSIX_C_SOURCE 200809L
#include "cl_util.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { N = 256 };

static const char *source =
    "__kernel void vscale(__global int *a) { a[get_global_id(0)] *= 3; }\n"
    "__kernel void vnegate(__global int *a) { a[get_global_id(0)] = -a[get_global_id(0)]; }\n";

/* Writes data to a buffer, runs kernel on it, reads it back. */
static void run(cl_command_queue queue, cl_kernel kernel, const char *name, cl_mem buffer,
                int *data) {
  size_t bytes = N * sizeof(int), global = N;
  clu_check(CL_XFER(bytes, clEnqueueWriteBuffer, queue, buffer, CL_TRUE, 0, bytes, data, 0, NULL,
                    NULL),
            "clEnqueueWriteBuffer");
  clu_check(CL(clSetKernelArg, kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
  clu_check(CL_LAUNCH(name, clEnqueueNDRangeKernel, queue, kernel, 1, NULL, &global, NULL, 0,
                      NULL, NULL),
            "clEnqueueNDRangeKernel");
  clu_check(CL_XFER(bytes, clEnqueueReadBuffer, queue, buffer, CL_TRUE, 0, bytes, data, 0, NULL,
                    NULL),
            "clEnqueueReadBuffer");
  clu_check(CL(clFinish, queue), "clFinish");
}

/* The forked child: its own context, queue, program and kernel. */
static int child(cl_device_id device) {
  clc_reset();
  cl_context context = clu_context(device);
  cl_int err = CL_SUCCESS;
  cl_command_queue queue;
  CL_OBJ(queue, &err, clCreateCommandQueue, context, device, 0);
  clu_check(err, "clCreateCommandQueue");
  cl_program program = clu_program(context, device, source);
  cl_kernel kernel = clu_kernel(program, "vnegate");
  cl_mem buffer = clu_buffer(context, CL_MEM_READ_WRITE, N * sizeof(int));
  int data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
  run(queue, kernel, "vnegate", buffer, data);
  for (int i = 0; i < N; i++)
    if (data[i] != -i)
      clu_fail("child: data[%d] = %d, expected %d", i, data[i], -i);
  printf("forker: child ran vnegate: ok\n");
  CL(clReleaseMemObject, buffer);
  CL(clReleaseKernel, kernel);
  CL(clReleaseProgram, program);
  CL(clReleaseCommandQueue, queue);
  CL(clReleaseContext, context);
  const char *manifest = getenv("APP_MANIFEST");
  if (manifest && *manifest) {
    char path[4096];
    snprintf(path, sizeof path, "%s.child", manifest);
    if (clc_write_manifest(path) != 0)
      return 1;
  }
  return 0;
}

/* Points APP_MANIFEST at $APP_MANIFEST.child for a child that writes its own manifest;
 * returns the parent's value (a copy) to put back, or NULL. */
static char *child_manifest(void) {
  const char *manifest = getenv("APP_MANIFEST");
  if (!manifest || !*manifest)
    return NULL;
  char *saved = strdup(manifest), path[4096];
  if (!saved)
    clu_fail("out of memory");
  snprintf(path, sizeof path, "%s.child", manifest);
  setenv("APP_MANIFEST", path, 1);
  return saved;
}

int main(int argc, char **argv) {
  enum { FORK, EXEC, SPAWN } mode = FORK;
  if (argc == 3 && strcmp(argv[1], "exec") == 0)
    mode = EXEC;
  else if (argc == 3 && strcmp(argv[1], "spawn") == 0)
    mode = SPAWN;
  else if (!(argc == 2 && strcmp(argv[1], "fork") == 0))
    clu_fail("usage: forker fork | forker exec VADD | forker spawn VADD");
  static const char *const how[] = {"fork", "fork and exec", "posix_spawn"};
  setenv("POCL_DEVICES", "basic", 0);

  cl_platform_id platform;
  cl_device_id device;
  clu_device(&platform, &device);
  cl_context context = clu_context(device);
  cl_int err = CL_SUCCESS;
  cl_command_queue queue;
  CL_OBJ(queue, &err, clCreateCommandQueue, context, device, 0);
  clu_check(err, "clCreateCommandQueue");
  cl_program program = clu_program(context, device, source);
  cl_kernel kernel = clu_kernel(program, "vscale");
  cl_mem buffer = clu_buffer(context, CL_MEM_READ_WRITE, N * sizeof(int));
  int data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
  run(queue, kernel, "vscale", buffer, data);
  printf("forker: parent ran vscale before %s\n", how[mode]);

  fflush(NULL);
  pid_t pid;
  if (mode == SPAWN) {
    char *saved = child_manifest();
    char *const child_argv[] = {argv[2], NULL};
    int rc = posix_spawn(&pid, argv[2], NULL, NULL, child_argv, environ);
    if (saved) {
      setenv("APP_MANIFEST", saved, 1);
      free(saved);
    }
    if (rc != 0)
      clu_fail("posix_spawn %s: %s", argv[2], strerror(rc));
  } else if ((pid = fork()) < 0) {
    clu_fail("fork failed");
  } else if (pid == 0) {
    if (mode == FORK)
      exit(child(device));
    child_manifest();
    execl(argv[2], argv[2], (char *)NULL);
    perror(argv[2]);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid)
    clu_fail("waitpid failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    clu_fail("child failed (wait status 0x%x)", (unsigned)status);

  run(queue, kernel, "vscale", buffer, data);
  for (int i = 0; i < N; i++)
    if (data[i] != 9 * i)
      clu_fail("parent: data[%d] = %d, expected %d", i, data[i], 9 * i);
  printf("forker: parent ran vscale again after the child exited: ok\n");
  CL(clReleaseMemObject, buffer);
  CL(clReleaseKernel, kernel);
  CL(clReleaseProgram, program);
  CL(clReleaseCommandQueue, queue);
  CL(clReleaseContext, context);
  return clc_finish(0);
}
