/* tracer_clock: the trace clock shared by LTTng's event timestamps and the tracer's own
 * times (a call's start, device command times). It is CLOCK_MONOTONIC in nanoseconds, or,
 * when the session daemon and the app load tracer_clock_plugin (libtracer_clock.so), the
 * CPU's time-stamp counter, whose frequency the trace metadata gives. Readers convert
 * with the metadata's clock class, never assume nanoseconds. */
#ifndef TRACER_CLOCK_H
#define TRACER_CLOCK_H

/* The clock class name the plugin gives LTTng (and so the trace metadata). */
#define TRACER_CLOCK_TSC_NAME "tracer_tsc"

#include <stdint.h>

/* A (TSC, CLOCK_MONOTONIC_RAW nanoseconds) pair read at one instant, to within ~10 ns.
 * x86 only. */
void tracer_clock_tsc_pair(uint64_t *tsc, uint64_t *raw_ns);

#endif
