/* device_label: how the reports and the timeline name a device: "GPU 0: NVIDIA H100 80GB
 * HBM3" for a CUDA or HIP device, "device 1: pthread-cpu" for the others, from the
 * ordinal and name a device_command event carries (docs/trace-format.md). A trace from
 * before devices were named (ordinal -1) has one device per backend: "cuda device". */
#ifndef TRACER_DEVICE_LABEL_H
#define TRACER_DEVICE_LABEL_H

#include <stddef.h>

enum { DEVICE_LABEL_SIZE = 96 };

/* name: NUL-terminated, "" when unknown. */
void device_label(const char *backend, int ordinal, const char *name, char *out, size_t size);

#endif
