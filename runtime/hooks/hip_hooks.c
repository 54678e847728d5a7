/* HIP hooks: what no template can know about HIP's device work.
 *
 * - Kernel launches and copies become device_command events named as users know them:
 *   the kernel's name (from HIP, else the host symbol a launch names, else the name
 *   hipModuleGetFunction was given), a copy by its direction ("hipMemcpy(H2D)").
 * - Their times are the host-side times of the call (the spec says `device_times: host`,
 *   and the tables say so): no device timestamps are read.
 *
 * Calls the hooks make to HIP go through hip_depth, so they are not traced.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hip_args.h"
#include "tracer_runtime.h"

/* The direction of the copy in flight on this thread (set by a before hook, read by the
 * command's end), and when the command began. Commands of one thread never nest. */
static __thread hipMemcpyKind copy_kind = hipMemcpyDefault;
static __thread uint64_t command_start;

void hip_hook_hipMemcpy_before(struct hip_hipMemcpy_args *args) { copy_kind = args->kind; }

void hip_hook_hipMemcpyAsync_before(struct hip_hipMemcpyAsync_args *args) {
  copy_kind = args->kind;
}

void hip_hook_hipMemcpyWithStream_before(struct hip_hipMemcpyWithStream_args *args) {
  copy_kind = args->kind;
}

/* Names given to hipModuleGetFunction, by function handle. A full table keeps its
 * oldest names. */
enum { FUNCTION_NAMES = 1024 };
static struct {
  hipFunction_t function;
  char name[128];
} function_names[FUNCTION_NAMES];
static size_t function_name_count;
static pthread_mutex_t function_names_lock = PTHREAD_MUTEX_INITIALIZER;

void hip_hook_hipModuleGetFunction_after(struct hip_hipModuleGetFunction_args *args) {
  if (args->tracer_result != hipSuccess || !args->function || !args->kname)
    return;
  pthread_mutex_lock(&function_names_lock);
  size_t i = 0;
  while (i < function_name_count && function_names[i].function != *args->function)
    i++;
  if (i < FUNCTION_NAMES) {
    function_names[i].function = *args->function;
    snprintf(function_names[i].name, sizeof function_names[i].name, "%s", args->kname);
    if (i == function_name_count)
      function_name_count++;
  }
  pthread_mutex_unlock(&function_names_lock);
}

static void module_function_name(hipFunction_t function, char *name, size_t size) {
  pthread_mutex_lock(&function_names_lock);
  for (size_t i = 0; i < function_name_count; i++)
    if (function_names[i].function == function) {
      snprintf(name, size, "%s", function_names[i].name);
      break;
    }
  pthread_mutex_unlock(&function_names_lock);
}

static void kernel_name(const struct tracer_command *command, char *name, size_t size) {
  const char *known = NULL;
  hip_depth++;
  if (strcmp(command->name, "hipModuleLaunchKernel") == 0)
    known = hipKernelNameRef((hipFunction_t)command->kernel);
  else
    known = hipKernelNameRefByPtr((const void *)command->kernel, (hipStream_t)command->queue);
  hip_depth--;
  if (known && *known) {
    snprintf(name, size, "%s", known);
    return;
  }
  name[0] = '\0';
  if (strcmp(command->name, "hipModuleLaunchKernel") == 0) {
    module_function_name((hipFunction_t)command->kernel, name, size);
  } else {
    /* hipLaunchKernel names the kernel by its host-side symbol. */
    Dl_info info;
    if (dladdr((const void *)command->kernel, &info) && info.dli_sname)
      snprintf(name, size, "%s", info.dli_sname);
  }
  if (!name[0])
    snprintf(name, size, "%s", command->name);
}

static const char *direction_of(hipMemcpyKind kind) {
  switch (kind) {
  case hipMemcpyHostToHost: return "H2H";
  case hipMemcpyHostToDevice: return "H2D";
  case hipMemcpyDeviceToHost: return "D2H";
  case hipMemcpyDeviceToDevice: return "D2D";
  default: return NULL;
  }
}

void hip_command_begin(struct tracer_command *command) {
  (void)command;
  command_start = tracer_now();
}

void hip_command_end(struct tracer_command *command, int64_t status) {
  uint64_t end = tracer_now();
  hipMemcpyKind kind = copy_kind;
  copy_kind = hipMemcpyDefault;
  if (status != hipSuccess)
    return;
  char name[160];
  const char *direction = direction_of(kind);
  if (command->kind == TRACER_COMMAND_KERNEL)
    kernel_name(command, name, sizeof name);
  else if (direction && strncmp(command->name, "hipMemcpy", 9) == 0)
    snprintf(name, sizeof name, "%s(%s)", command->name, direction);
  else
    snprintf(name, sizeof name, "%s", command->name);
  struct tracer_call_id call = tracer_call_returned();
  tracer_device_command_of(&call, "hip", command->kind, name, command->bytes, command->queue,
                           command_start, end);
}
