/* OpenCL hooks: what no template can know about timing OpenCL commands on the device.
 *
 * - Every command queue is created with CL_QUEUE_PROFILING_ENABLE, so commands carry
 *   device timestamps.
 * - Every enqueue gets a completion event (one of the hooks' own when the app passes
 *   none, released afterwards so the app leaks nothing); when the command completes, its
 *   START and END are read and recorded as a device_command event.
 * PoCL's timestamps are CLOCK_MONOTONIC_RAW nanoseconds; the runtime converts them to the
 * trace clock.
 *
 * Calls the hooks make to OpenCL go through opencl_depth, so they are not traced.
 */
#include <stdlib.h>
#include <string.h>

#include "opencl_args.h"
#include "tracer_runtime.h"

/* What a completion callback needs once the command is done. */
struct pending_command {
  enum tracer_command_kind kind;
  uint64_t bytes;
  uintptr_t queue;
  struct tracer_call_id call; /* the enqueue call */
  char name[128];
};

void opencl_hook_clCreateCommandQueue_before(struct opencl_clCreateCommandQueue_args *args) {
  args->properties |= CL_QUEUE_PROFILING_ENABLE;
}

/* A property list with CL_QUEUE_PROFILING_ENABLE added to CL_QUEUE_PROPERTIES. It must
 * outlive the hook (the real call comes after), so it lives in thread-local storage. */
static const cl_queue_properties *with_profiling(const cl_queue_properties *props) {
  enum { MAX_PROPERTIES = 64 };
  static __thread cl_queue_properties copy[MAX_PROPERTIES];
  size_t n = 0;
  int found = 0;
  for (; props && props[n] != 0 && n + 3 < MAX_PROPERTIES; n += 2) {
    copy[n] = props[n];
    copy[n + 1] = props[n + 1];
    if (props[n] == CL_QUEUE_PROPERTIES) {
      copy[n + 1] |= CL_QUEUE_PROFILING_ENABLE;
      found = 1;
    }
  }
  if (props && props[n] != 0)
    return props; /* too long to copy: leave the app's list alone */
  if (!found) {
    copy[n++] = CL_QUEUE_PROPERTIES;
    copy[n++] = CL_QUEUE_PROFILING_ENABLE;
  }
  copy[n] = 0;
  return copy;
}

void opencl_hook_clCreateCommandQueueWithProperties_before(
    struct opencl_clCreateCommandQueueWithProperties_args *args) {
  args->properties = with_profiling(args->properties);
}

void opencl_command_begin(struct tracer_command *command) {
  cl_event **slot = (cl_event **)command->completion;
  if (slot && !*slot) {
    *slot = (cl_event *)&command->hook_event;
    command->hook_owns_event = 1;
  }
}

static void CL_CALLBACK on_complete(cl_event event, cl_int status, void *user) {
  struct pending_command *p = user;
  opencl_depth++;
  cl_ulong start = 0, end = 0;
  if (status == CL_COMPLETE &&
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
          CL_SUCCESS &&
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
          CL_SUCCESS)
    tracer_device_command_of(&p->call, "opencl", p->kind, p->name, p->bytes, p->queue,
                             tracer_clock_raw_to_trace(start), tracer_clock_raw_to_trace(end));
  else
    tracer_debug("no device timestamps for %s (status %d)", p->name, (int)status);
  clReleaseEvent(event);
  opencl_depth--;
  free(p);
}

void opencl_command_end(struct tracer_command *command, int64_t status) {
  cl_event **slot = (cl_event **)command->completion;
  cl_event event = slot && *slot ? **slot : NULL;
  if (command->hook_owns_event)
    *slot = NULL; /* the app passed NULL: give it back unchanged */
  if (status != CL_SUCCESS || !event)
    return;
  struct pending_command *p = calloc(1, sizeof *p);
  if (!p) {
    if (command->hook_owns_event)
      clReleaseEvent(event);
    return;
  }
  p->kind = command->kind;
  p->bytes = command->bytes;
  p->queue = command->queue;
  p->call = tracer_call_returned();
  opencl_depth++;
  if (command->kind == TRACER_COMMAND_KERNEL && command->kernel &&
      clGetKernelInfo((cl_kernel)command->kernel, CL_KERNEL_FUNCTION_NAME, sizeof p->name,
                      p->name, NULL) == CL_SUCCESS) {
    /* named after the kernel */
  } else {
    strncpy(p->name, command->name, sizeof p->name - 1);
  }
  /* The callback releases one reference: ours if we made the event, else one we add. */
  if (!command->hook_owns_event)
    clRetainEvent(event);
  if (clSetEventCallback(event, CL_COMPLETE, on_complete, p) != CL_SUCCESS) {
    clReleaseEvent(event);
    free(p);
  }
  opencl_depth--;
}
