/* device_label: see device_label.h. */
#include "device_label.h"

#include <stdio.h>
#include <string.h>

void device_label(const char *backend, int ordinal, const char *name, char *out, size_t size) {
  if (ordinal < 0) {
    snprintf(out, size, "%s device", backend);
    return;
  }
  /* CUDA's and HIP's devices are GPUs; OpenCL's and Level Zero's may be anything. */
  const char *kind =
      strcmp(backend, "cuda") == 0 || strcmp(backend, "cudart") == 0 || strcmp(backend, "hip") == 0
          ? "GPU"
          : "device";
  if (name && *name)
    snprintf(out, size, "%s %d: %s", kind, ordinal, name);
  else
    snprintf(out, size, "%s %d", kind, ordinal);
}
