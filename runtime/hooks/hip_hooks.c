/* HIP hooks: the names of kernels, as HIP knows them.
 *
 * Everything else about HIP's device work comes from the spec: kernel launches and copies
 * are device_command events with the host-side times of their calls (`device_times:
 * host`), copies named by their direction ("hipMemcpy(H2D)"), kernels of a module by the
 * name hipModuleGetFunction was given (trace.kernel_names) when HIP cannot name them, each
 * command's device the thread's current one (trace.devices).
 *
 * Calls the hooks make to HIP go through hip_depth, so they are not traced.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "hip_args.h"

bool hip_kernel_name(const struct tracer_command *command, char *name, size_t size) {
  bool module = strcmp(command->name, "hipModuleLaunchKernel") == 0;
  hip_depth++;
  const char *known =
      module ? hipKernelNameRef((hipFunction_t)command->kernel)
             : hipKernelNameRefByPtr((const void *)command->kernel, (hipStream_t)command->queue);
  hip_depth--;
  Dl_info info;
  if (known && *known)
    snprintf(name, size, "%s", known);
  else if (!module && dladdr((const void *)command->kernel, &info) && info.dli_sname)
    snprintf(name, size, "%s", info.dli_sname); /* hipLaunchKernel's host-side symbol */
  else
    return false;
  return true;
}
