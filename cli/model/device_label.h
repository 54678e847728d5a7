/* device_label: how the reports, the timeline and the exports name a device, its queues
 * and its commands, the one place for them: a device is "GPU 0: NVIDIA H100 80GB HBM3"
 * for a CUDA or HIP device, "device 1: pthread-cpu" for the others, from the ordinal and
 * name a device_command event carries (docs/trace-format.md). A trace from before devices
 * were named (ordinal -1) has one device per backend: "cuda device". */
#ifndef TRACER_DEVICE_LABEL_H
#define TRACER_DEVICE_LABEL_H

#include <stddef.h>
#include <stdint.h>

struct tracer_backend_desc;

enum { DEVICE_LABEL_SIZE = 96, DEVICE_QUEUE_LABEL_SIZE = 64 };

/* name: NUL-terminated, "" when unknown. */
void device_label(const char *backend, int ordinal, const char *name, char *out, size_t size);

/* A queue (a stream, a command list) of a process: "queue 0x7 (pid 958)". */
void device_queue_label(uint64_t queue, int64_t pid, char *out, size_t size);

/* A device command where its name must not be taken for its call's (an OTF2 region,
 * beside the host call that submitted it): a kernel by its name ("kernel: NAME" when
 * that is a function of its backend, desc: an OpenMP target region's kernel is named
 * after its callback), a copy as "copy: NAME" and another command as "command: NAME",
 * NAME the device table's row (kind: enum tracer_command_kind; desc may be NULL). */
void device_command_label(const struct tracer_backend_desc *desc, int kind, const char *name,
                          char *out, size_t size);

/* A kernel's name as the text tables show it by default, as `nsys stats` does: a demangled
 * C++ name without its return type, template arguments and parameters, its namespaces
 * kept but anonymous ones ("void (anonymous namespace)::verifyPrepared<unsigned int>(int*)"
 * -> "verifyPrepared<...>", "void at::native::kernel<4, float>(int)" ->
 * "at::native::kernel<...>"); a plain name (a C kernel, Triton's) as it is. The whole name
 * stays in -j, the timeline and the exports, and in the tables with --full-names. */
void device_kernel_short_name(const char *name, char *out, size_t size);

#endif
