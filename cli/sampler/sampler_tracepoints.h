/* The sampler's LTTng-UST provider: one event per value read (docs/trace-format.md,
 * "Device counters"). Written by the sampler process only, so its events share the
 * session and the clock of the app's. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER lttng_ust_sampler

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./sampler_tracepoints.h"

#if !defined(SAMPLER_TRACEPOINTS_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SAMPLER_TRACEPOINTS_H

#include <lttng/tracepoint.h>
#include <stdint.h>

/* counter: its name, with ".N" for domain N of a device that has several. */
LTTNG_UST_TRACEPOINT_EVENT(
    lttng_ust_sampler, sample,
    LTTNG_UST_TP_ARGS(const char *, backend, uint32_t, device, const char *, device_name,
                      const char *, counter, const char *, unit, double, value),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_string(backend, backend)
                            lttng_ust_field_integer(uint32_t, device, device)
                                lttng_ust_field_string(device_name, device_name)
                                    lttng_ust_field_string(counter, counter)
                                        lttng_ust_field_string(unit, unit)
                                            lttng_ust_field_float(double, value, value)))

/* A backend whose library could not be used: why, for the report. */
LTTNG_UST_TRACEPOINT_EVENT(lttng_ust_sampler, unavailable,
                           LTTNG_UST_TP_ARGS(const char *, backend, const char *, why),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_string(backend, backend)
                                                   lttng_ust_field_string(why, why)))

#endif

#include <lttng/tracepoint-event.h>
