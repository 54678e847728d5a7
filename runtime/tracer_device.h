/* tracer_device: the work traced calls put on a device (a spec's trace.commands), named
 * and recorded the same way for every backend.
 *
 * The generated wrapper of a command fills a struct tracer_command from the spec: its
 * kind, queue, kernel, bytes, completion event, and for a copy its direction and its
 * source and destination. The backend's hooks time it on the device (tracer_pending.h
 * keeps what is not read yet), or, for a spec that says `device_times: host`, the runtime
 * records the call's own times (tracer_command_host). Either way the command is named
 * here: a kernel by the backend's hooks (kernel_name), else by the name a call the spec
 * lists in trace.kernel_names gave its handle, else by the function; a copy whose command
 * names its ends or its direction param by its kind, "zeCommandListAppendMemoryCopy(H2D)".
 *
 * This part also keeps the allocations of the calls the spec marks (trace.calls with a
 * `pointer`), so that a copy's ends can be told apart where the driver cannot say.
 * Everything is thread-safe.
 */
#ifndef TRACER_DEVICE_H
#define TRACER_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tracer_command_kind {
  TRACER_COMMAND_KERNEL = 0,
  TRACER_COMMAND_TRANSFER = 1,
  TRACER_COMMAND_OTHER = 2,
};

/* A transfer's direction, from the spec (trace.commands `direction`, or the value of its
 * `direction_param` through trace.directions). */
enum tracer_copy_direction {
  TRACER_COPY_UNKNOWN, /* the ends say it, if the backend can look them up */
  TRACER_COPY_H2D,
  TRACER_COPY_D2H,
  TRACER_COPY_D2D,
  TRACER_COPY_H2H,
  TRACER_COPY_FILL,
  TRACER_COPY_MAP,
  TRACER_COPY_UNMAP,
};

/* Where memory lives. */
enum tracer_memory {
  TRACER_MEMORY_UNKNOWN,
  TRACER_MEMORY_HOST,     /* host memory the API allocated (pinned) */
  TRACER_MEMORY_PAGEABLE, /* host memory the API does not know (malloc'd) */
  TRACER_MEMORY_DEVICE,
  TRACER_MEMORY_SHARED, /* shared or managed: migrates between host and device */
};

/* How a backend names the ends of a copy (trace.copy_kinds): one letter per kind of
 * memory, and with host_kind the host side's kind after the pair, as CUDA's tools say
 * it: "H2D pinned", "D2H pageable". */
struct tracer_copy_names {
  char host, pageable, device, shared;
  bool host_kind;
};

struct tracer_command;
/* The hooks' name of a launch's kernel (clGetKernelInfo, zeKernelGetName, cuFuncGetName);
 * false when they have none. */
typedef bool tracer_kernel_name_fn(const struct tracer_command *command, char *name, size_t size);
/* Where the memory at pointer lives, as the backend's driver says (zeMemGetAllocProperties,
 * cuPointerGetAttributes); TRACER_MEMORY_UNKNOWN when it cannot say. */
typedef enum tracer_memory tracer_memory_fn(const struct tracer_command *command,
                                            const void *pointer);

/* A backend's device commands: how they are named. One per backend, in its generated
 * interposer. */
struct tracer_device {
  const char *backend;                /* "ze" */
  tracer_kernel_name_fn *kernel_name; /* NULL: the names of trace.kernel_names alone */
  tracer_memory_fn *memory_of;        /* NULL: a copy's direction alone says its ends */
  struct tracer_copy_names copy_names;
};

/* Work put on a device by a traced call. The generated wrapper fills it; the backend's
 * hooks time it on the device. */
struct tracer_command {
  const struct tracer_device *device; /* the backend's */
  enum tracer_command_kind kind;
  const char *name;  /* the API function */
  uintptr_t queue;   /* the queue or stream handle; 0 if none */
  uintptr_t kernel;  /* the kernel object of a launch; 0 if none */
  uint64_t bytes;    /* bytes moved by a transfer */
  void **completion; /* the call's completion-event out slot; NULL if none */
  /* Transfers: the direction, and the ends when the spec names them. A copy is named by
   * its kind when the spec gives its ends or its direction param (named_copy). */
  enum tracer_copy_direction direction;
  const void *src, *dst;
  bool named_copy;
  void *hook_event;    /* the hooks' own completion event, when the app gave none */
  int hook_owns_event; /* 1 when hook_event replaced a NULL slot */
};

/* The name of a command's device_command event: the kernel's name, the function's with
 * the copy's kind, or the function's. */
void tracer_command_name(const struct tracer_command *command, char *name, size_t size);

/* A copy's kind from where its ends live: "H2D", "D2M", "H2D pageable". */
void tracer_copy_kind(const struct tracer_copy_names *names, enum tracer_memory src,
                      enum tracer_memory dst, char *kind, size_t size);

/* The direction of a value of a direction param (trace.directions), from the table the
 * generated code makes; TRACER_COPY_UNKNOWN for values the table lacks. */
struct tracer_direction_value {
  int64_t value;
  enum tracer_copy_direction direction;
};
enum tracer_copy_direction tracer_copy_direction_of(const struct tracer_direction_value *table,
                                                    size_t count, int64_t value);

/* Records a command of a backend whose spec says `device_times: host`: its times are the
 * call's own (start and end on the trace clock), and so is the submitting call. Nothing
 * for a call that failed. */
void tracer_command_host(const struct tracer_command *command, bool succeeded, uint64_t start,
                         uint64_t end);

/* The runtime's number of a backend, given at its first use: an index into the tables the
 * runtime keeps per backend (TRACER_BACKENDS entries, zero-initialized); -1 when every
 * number is taken. */
enum { TRACER_BACKENDS = 16 };
int tracer_backend_index(const char *backend);

/* Kernel names by handle, per backend: those the calls of trace.kernel_names give, and
 * those a backend's hooks keep so as to look a name up once. A full table keeps its
 * oldest names. */
void tracer_kernel_named(const char *backend, uintptr_t kernel, const char *name);
bool tracer_kernel_name_of(const char *backend, uintptr_t kernel, char *name, size_t size);
/* Forgets the backend's names (a module unloaded: its handles may come back). */
void tracer_kernel_names_forget(const char *backend);

/* The allocations of a backend's calls that the spec marks (trace.calls, alloc and free
 * with a `pointer`). */
void tracer_allocation_add(const char *backend, const void *pointer, uint64_t bytes,
                           enum tracer_memory memory);
void tracer_allocation_remove(const char *backend, const void *pointer);
/* Where pointer lives among the backend's allocations; TRACER_MEMORY_UNKNOWN when in
 * none. */
enum tracer_memory tracer_allocation_memory(const char *backend, const void *pointer);

/* A C++ name demangled by the C++ runtime's demangler (loaded when first needed); a name
 * it cannot demangle (a C name, Triton's vadd_bs128_w4_s2) is copied as it is. */
void tracer_demangle(const char *name, char *out, size_t size);

/* Which traced call submitted a device command: its thread and its start (trace clock),
 * as that call's own event records them; tid 0 when unknown. The device_command event
 * carries it (call_tid, call_start), so that the timeline joins each command to its
 * call exactly, whatever thread records the command and when. */
struct tracer_call_id {
  int32_t tid;
  uint64_t start;
  uint64_t stack; /* the call's stack (runtime/stacks/tracer_stacks.h); 0: none */
};

/* ---- which device a command runs on ----
 *
 * Every command names its device (docs/trace-format.md: device, device_name): its ordinal
 * in the backend's own numbering (CUDA's and HIP's device ordinal, the index of a Level
 * Zero or OpenCL device in its driver's or platform's list) and its name as the driver
 * gives it. A backend's hooks register how to find a command's device and how to find and
 * name a device handle; the runtime keeps the names, looked up once per handle. */
enum { TRACER_DEVICE_UNKNOWN = -1, TRACER_DEVICE_NAME = 64 };

/* The ordinal of the device a command is submitted to, looked up by the hooks when it is
 * submitted (usually through tracer_device_ordinal); TRACER_DEVICE_UNKNOWN when they
 * cannot tell. */
typedef int32_t tracer_device_of_fn(const struct tracer_command *command);
/* The ordinal of a backend's device handle (CUDA's and HIP's handle is the ordinal itself,
 * a Level Zero or OpenCL device is found among its driver's), with its name as the driver
 * gives it ("" when it cannot); TRACER_DEVICE_UNKNOWN when not found. */
typedef int32_t tracer_device_find_fn(uintptr_t handle, char *name, size_t size);
void tracer_device_of_register(const char *backend, tracer_device_of_fn *device_of,
                               tracer_device_find_fn *find);
/* The device of a command, through the backend's registered function. */
int32_t tracer_command_device(const struct tracer_command *command);
/* The ordinal of a backend's device handle, found and named once through the backend's
 * registered find; TRACER_DEVICE_UNKNOWN when it has none or finds none. */
int32_t tracer_device_ordinal(const char *backend, uintptr_t handle);

/* The name of a backend's device by ordinal, kept for every command on it. */
void tracer_device_named(const char *backend, int32_t ordinal, const char *name);
/* false when the device has no name kept. */
bool tracer_device_name_of(const char *backend, int32_t ordinal, char *name, size_t size);

/* Where a device_command event's command came from: its call, and the device it ran on. */
struct tracer_command_origin {
  struct tracer_call_id call;
  int32_t device;          /* ordinal; TRACER_DEVICE_UNKNOWN */
  const char *device_name; /* "" when unknown */
};

/* Records a finished device command as lttng_ust_tracer:device_command. name is the kernel
 * name for kernels, the API function for transfers. Times are on the trace clock. */
void tracer_device_command(const char *backend, enum tracer_command_kind kind, const char *name,
                           uint64_t bytes, uintptr_t queue, uint64_t start, uint64_t end);

/* As tracer_device_command, with the submitting call (NULL: unknown). */
void tracer_device_command_of(const struct tracer_call_id *call, const char *backend,
                              enum tracer_command_kind kind, const char *name, uint64_t bytes,
                              uintptr_t queue, uint64_t start, uint64_t end);

/* As tracer_device_command_of, on a device (an ordinal, TRACER_DEVICE_UNKNOWN when unknown),
 * whose kept name goes with it. */
void tracer_device_command_on(const struct tracer_call_id *call, const char *backend,
                              int32_t device, enum tracer_command_kind kind, const char *name,
                              uint64_t bytes, uintptr_t queue, uint64_t start, uint64_t end);

/* Records the GPU's samples of a kernel's instruction (lttng_ust_tracer:pc_sample):
 * function demangled as kernels are named, the instruction's offset in it, the stall
 * reason's name, and how many samples. */
void tracer_pc_sample(const char *function, uint64_t pc_offset, const char *stall,
                      uint64_t samples);

/* The call the thread has just returned from: for a backend's <b>_command_end, which the
 * wrapper calls right after the real call returned (the popped entry is still there). */
struct tracer_call_id tracer_call_returned(void);

#endif
