/* tracer_groups: see tracer_groups.h. */
#include "tracer_groups.h"

#include <stddef.h>

#include "tracer_recording.h"
#include "tracer_runtime.h"
#include "tracer_tracepoints.h"

void tracer_group_made(enum tracer_group_kind kind, uint64_t handle, uint64_t from,
                       uint64_t call_start, int32_t size, const int32_t *members) {
  if (size < 0 || tracer_recording_counting())
    return;
  lttng_ust_tracepoint(lttng_ust_tracer, group, tracer_pid(), tracer_tid(), (uint8_t)kind,
                       handle, from, call_start, size, members,
                       members ? (uint32_t)size : 0);
}
