/* The benchmark's floor: two raw LTTng-UST tracepoints carrying the fields the tracer's
 * default mode records for clGetPlatformIDs (docs/trace-format.md), process and thread ids
 * included, hit around the same call in the same loop. */
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

#endif

#include <lttng/tracepoint-event.h>
