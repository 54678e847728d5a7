/* tracer_clock: the trace clock shared by LTTng's event timestamps and the tracer's own
 * times (a call's start, device command times). It is CLOCK_MONOTONIC in nanoseconds, or,
 * when the session daemon and the app load tracer_clock_plugin (libtracer_clock.so), the
 * CPU's time-stamp counter, whose frequency the trace metadata gives. Readers convert
 * with the metadata's clock class, never assume nanoseconds. */
#ifndef TRACER_CLOCK_H
#define TRACER_CLOCK_H

/* The clock class name the plugin gives LTTng (and so the trace metadata). */
#define TRACER_CLOCK_TSC_NAME "tracer_tsc"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the plugin makes the TSC the trace clock on this machine: an invariant TSC
 * that the kernel keeps time with. When not, *why_not (if given) says why, else NULL.
 * Depends on libc alone (tracer_clock_tsc.c). */
bool tracer_clock_tsc_usable(const char **why_not);
/* The kernel's current clocksource ("tsc", "kvm-clock", ...) in source; false when it
 * cannot be read. */
bool tracer_clock_kernel_clocksource(char *source, size_t size);

/* A (TSC, CLOCK_MONOTONIC_RAW nanoseconds) pair read at one instant, to within ~10 ns.
 * x86 only. */
void tracer_clock_tsc_pair(uint64_t *tsc, uint64_t *raw_ns);

#endif
