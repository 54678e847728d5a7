/* CUDA runtime hooks. The runtime's kernels and copies are timed and named at the driver
 * level (cuda_hooks.c), where they arrive through cuGetProcAddress; here only the driver
 * entry points the runtime hands to the app (cudaGetDriverEntryPoint*) come back as the
 * cuda interposer's wrappers, when it is preloaded, so calls through them are traced.
 */
#include "cudart_args.h"
#include "tracer_runtime.h"
#include "tracer_wrappers.h"

void cudart_hook_cudaGetDriverEntryPoint_after(
    struct cudart_cudaGetDriverEntryPoint_args *args) {
  if (args->tracer_status == cudaSuccess && args->funcPtr && *args->funcPtr)
    *args->funcPtr = tracer_wrapper_of(*args->funcPtr, args->symbol);
}

void cudart_hook_cudaGetDriverEntryPointByVersion_after(
    struct cudart_cudaGetDriverEntryPointByVersion_args *args) {
  if (args->tracer_status == cudaSuccess && args->funcPtr && *args->funcPtr)
    *args->funcPtr = tracer_wrapper_of(*args->funcPtr, args->symbol);
}
