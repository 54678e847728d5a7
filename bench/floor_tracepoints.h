/* The benchmark's floors: raw LTTng-UST tracepoints around the same call in the same loop,
 * as a hand-written tracer would write them (bench/cl_loop.c):
 *   entry + exit                  two events with the fields the tracer's default mode
 *                                 recorded for clGetPlatformIDs before it wrote one event
 *                                 per call (ids, arguments; start, result, out value)
 *   two_entry + two_exit          two events of 3 and 2 integer fields
 *   one_call                      one event after the call: start, end and status */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bench_floor

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "floor_tracepoints.h"

#if !defined(FLOOR_TRACEPOINTS_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FLOOR_TRACEPOINTS_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(bench_floor, entry,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint32_t, num_entries, const void *, platforms,
                    const uint32_t *, num_platforms),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_integer(uint32_t, num_entries, num_entries)
    lttng_ust_field_integer_hex(uintptr_t, platforms, (uintptr_t)platforms)
    lttng_ust_field_integer_hex(uintptr_t, num_platforms, (uintptr_t)num_platforms)
  )
)

LTTNG_UST_TRACEPOINT_EVENT(bench_floor, exit,
  LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint64_t, start, int32_t, result,
                    const uint32_t *, num_platforms),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, pid, pid)
    lttng_ust_field_integer(int32_t, tid, tid)
    lttng_ust_field_integer(uint64_t, start, start)
    lttng_ust_field_integer(int32_t, result, result)
    lttng_ust_field_sequence(uint32_t, num_platforms_val, num_platforms, size_t, num_platforms ? 1 : 0)
  )
)

LTTNG_UST_TRACEPOINT_EVENT(bench_floor, two_entry,
  LTTNG_UST_TP_ARGS(uint32_t, num_entries, const void *, platforms, const uint32_t *, num_platforms),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(uint32_t, num_entries, num_entries)
    lttng_ust_field_integer_hex(uintptr_t, platforms, (uintptr_t)platforms)
    lttng_ust_field_integer_hex(uintptr_t, num_platforms, (uintptr_t)num_platforms)
  )
)

LTTNG_UST_TRACEPOINT_EVENT(bench_floor, two_exit,
  LTTNG_UST_TP_ARGS(int32_t, result, uint32_t, num_platforms),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(int32_t, result, result)
    lttng_ust_field_integer(uint32_t, num_platforms, num_platforms)
  )
)

LTTNG_UST_TRACEPOINT_EVENT(bench_floor, one_call,
  LTTNG_UST_TP_ARGS(uint64_t, start, uint64_t, end, int32_t, status),
  LTTNG_UST_TP_FIELDS(
    lttng_ust_field_integer(uint64_t, start, start)
    lttng_ust_field_integer(uint64_t, end, end)
    lttng_ust_field_integer(int32_t, status, status)
  )
)

#endif

#include <lttng/tracepoint-event.h>
