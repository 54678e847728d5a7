/* tracer_device_clock: device times put on the host's CLOCK_MONOTONIC_RAW, from which
 * tracer_clock_raw_span_to_trace() takes them to the trace clock.
 *
 * Two ways a device gives its times: ticks of its own timer, related to the host's clock
 * by a pair of readings taken together (Level Zero's zeDeviceGetGlobalTimestamps), or
 * durations from a reference event whose host time is known (CUDA events).
 */
#ifndef TRACER_DEVICE_CLOCK_H
#define TRACER_DEVICE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* A device's timer against the host's clock at one moment, and what converts its ticks. */
struct tracer_device_clock {
  uint64_t host_ns;          /* CLOCK_MONOTONIC_RAW */
  uint64_t device_ticks;     /* the device's timer at the same moment */
  uint64_t ticks_per_second; /* 0: nanoseconds */
  uint32_t valid_bits;       /* the timer's bits that count (it wraps); 0: all 64 */
};

/* The clock of the device last synced, kept for the next commands of the same drain of
 * the pending commands (tracer_pending.h), which are read in order: syncing costs a call
 * into the driver. */
struct tracer_device_clock_sync {
  uintptr_t device;
  unsigned drain;
  bool synced;
  struct tracer_device_clock clock;
};

/* device's clock for drain, synced by sync() unless s holds it already; NULL when sync
 * fails. */
const struct tracer_device_clock *
tracer_device_clock_for(struct tracer_device_clock_sync *s, uintptr_t device, unsigned drain,
                        bool (*sync)(uintptr_t device, struct tracer_device_clock *clock));

/* The host time of a device timestamp: ticks count from the clock's device time, modulo
 * the valid bits, and may lie a little before it. */
uint64_t tracer_device_ticks_to_host(const struct tracer_device_clock *clock, uint64_t ticks);

/* A command's start and end from its timestamps; an end past the timer's wrap is after
 * the start. */
void tracer_device_span(const struct tracer_device_clock *clock, uint64_t start_ticks,
                        uint64_t end_ticks, uint64_t *start_ns, uint64_t *end_ns);

/* A command's start and end from event times in float milliseconds (cuEventElapsedTime,
 * about 0.5 us resolution): ms_to_start from the reference event, whose host time is
 * ref_ns, to the command's start, ms_duration from its start to its end, read on its own
 * so that its precision does not depend on how far the reference lies. Rounded to the
 * nearest nanosecond; a negative duration is none; never before the clock's origin. */
void tracer_device_span_ms(uint64_t ref_ns, float ms_to_start, float ms_duration,
                           uint64_t *start_ns, uint64_t *end_ns);

/* CLOCK_MONOTONIC_RAW now, in nanoseconds. */
uint64_t tracer_clock_raw_now(void);

#endif
