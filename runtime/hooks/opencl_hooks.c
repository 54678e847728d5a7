/* OpenCL hooks: what no template can know about timing OpenCL commands on the device.
 *
 * - Every command queue is created with CL_QUEUE_PROFILING_ENABLE (the spec's
 *   trace.add_flags), so commands carry device timestamps.
 * - Every enqueue gets a completion event (one of the hooks' own when the app passes
 *   none, released afterwards so the app leaks nothing). The command is pending
 *   (tracer_pending.h) until read, after the spec's synchronizing calls or at exit: once
 *   complete, its START and END are recorded as a device_command event.
 * - Kernels are named by clGetKernelInfo; each command's device by its queue's
 *   (its index among its platform's devices, and CL_DEVICE_NAME).
 * PoCL's timestamps are CLOCK_MONOTONIC_RAW nanoseconds; the runtime converts them to the
 * trace clock.
 *
 * Calls the hooks make to OpenCL go through opencl_depth, so they are not traced.
 */
#include "opencl_args.h"
#include "tracer_pending.h"

void opencl_command_begin(struct tracer_command *command) {
  cl_event **slot = (cl_event **)command->completion;
  if (slot && !*slot) {
    *slot = (cl_event *)&command->hook_event;
    command->hook_owns_event = 1;
  }
}

bool opencl_kernel_name(const struct tracer_command *command, char *name, size_t size) {
  opencl_depth++;
  bool named =
      command->kernel && clGetKernelInfo((cl_kernel)command->kernel, CL_KERNEL_FUNCTION_NAME, size,
                                         name, NULL) == CL_SUCCESS;
  opencl_depth--;
  return named;
}

/* A device's index among its platform's devices, named by CL_DEVICE_NAME. */
int32_t opencl_device_find(uintptr_t handle, char *name, size_t size) {
  enum { MAX_DEVICES = 64 };
  cl_device_id device = (cl_device_id)handle, devices[MAX_DEVICES];
  cl_platform_id platform = NULL;
  cl_uint count = 0;
  int32_t ordinal = TRACER_DEVICE_UNKNOWN;
  opencl_depth++;
  if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) == CL_SUCCESS &&
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &count) == CL_SUCCESS)
    for (cl_uint i = 0; i < count && i < MAX_DEVICES && ordinal < 0; i++)
      ordinal = devices[i] == device ? (int32_t)i : ordinal;
  if (ordinal >= 0 && clGetDeviceInfo(device, CL_DEVICE_NAME, size, name, NULL) != CL_SUCCESS)
    name[0] = '\0';
  opencl_depth--;
  return ordinal;
}

/* A command runs on its queue's device. */
int32_t opencl_device_of(const struct tracer_command *command) {
  cl_device_id device = NULL;
  opencl_depth++;
  if (command->queue && clGetCommandQueueInfo((cl_command_queue)command->queue, CL_QUEUE_DEVICE,
                                              sizeof device, &device, NULL) != CL_SUCCESS)
    device = NULL;
  opencl_depth--;
  return device ? tracer_device_ordinal("opencl", (uintptr_t)device) : TRACER_DEVICE_UNKNOWN;
}

/* A command whose completion event is not read yet. */
struct opencl_pending {
  struct tracer_pending base;
  cl_event event; /* a reference of ours */
};

/* Once the command is done, its START and END are its device times. */
static enum tracer_pending_state opencl_read(struct tracer_pending *pending, bool wait,
                                             unsigned drain, uint64_t *start, uint64_t *end) {
  struct opencl_pending *p = (struct opencl_pending *)pending;
  (void)drain;
  cl_int status = CL_QUEUED;
  opencl_depth++;
  if (wait)
    clWaitForEvents(1, &p->event);
  clGetEventInfo(p->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
  enum tracer_pending_state state =
      status > CL_COMPLETE ? TRACER_PENDING_RUNNING : TRACER_PENDING_LOST;
  cl_ulong device_start = 0, device_end = 0;
  if (status == CL_COMPLETE &&
      clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_START, sizeof device_start,
                              &device_start, NULL) == CL_SUCCESS &&
      clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_END, sizeof device_end, &device_end,
                              NULL) == CL_SUCCESS) {
    *start = device_start, *end = device_end;
    state = TRACER_PENDING_READ;
  }
  opencl_depth--;
  return state;
}

static void opencl_release(struct tracer_pending *pending, bool last) {
  (void)last; /* OpenCL has no recorded lists */
  opencl_depth++;
  clReleaseEvent(((struct opencl_pending *)pending)->event);
  opencl_depth--;
}

/* Commands still pending when the process exits are read then. */
static const struct tracer_pending_ops opencl_pending_ops = {
    "opencl", sizeof(struct opencl_pending), opencl_read, opencl_release, true};

void opencl_command_end(struct tracer_command *command, int64_t status) {
  cl_event **slot = (cl_event **)command->completion;
  struct opencl_pending p = {.event = slot && *slot ? **slot : NULL};
  if (command->hook_owns_event)
    *slot = NULL; /* the app passed NULL: give it back unchanged */
  if (status != CL_SUCCESS || !p.event)
    return;
  /* Ours if we made the event, else one we add: released once read. */
  opencl_depth++;
  if (!command->hook_owns_event)
    clRetainEvent(p.event);
  opencl_depth--;
  tracer_pending_init(&p.base, command);
  tracer_pending_add(&opencl_pending_ops, &p.base);
}
