/* tracer_device_clock: see tracer_device_clock.h. */
#include "tracer_device_clock.h"

#include <time.h>

static uint64_t valid_mask(uint32_t bits) { return bits && bits < 64 ? (1ull << bits) - 1 : ~0ull; }

static __int128 ticks_to_ns(const struct tracer_device_clock *clock, __int128 ticks) {
  uint64_t rate = clock->ticks_per_second ? clock->ticks_per_second : 1000000000u;
  return ticks * 1000000000 / (__int128)rate;
}

uint64_t tracer_device_ticks_to_host(const struct tracer_device_clock *clock, uint64_t ticks) {
  uint64_t mask = valid_mask(clock->valid_bits);
  uint64_t ahead = (ticks - clock->device_ticks) & mask;
  int64_t delta =
      ahead > mask / 2 ? -(int64_t)((clock->device_ticks - ticks) & mask) : (int64_t)ahead;
  return clock->host_ns + (uint64_t)(int64_t)ticks_to_ns(clock, delta);
}

void tracer_device_span(const struct tracer_device_clock *clock, uint64_t start_ticks,
                        uint64_t end_ticks, uint64_t *start_ns, uint64_t *end_ns) {
  uint64_t duration = (end_ticks - start_ticks) & valid_mask(clock->valid_bits);
  *start_ns = tracer_device_ticks_to_host(clock, start_ticks);
  *end_ns = *start_ns + (uint64_t)ticks_to_ns(clock, duration);
}

void tracer_device_span_ms(uint64_t ref_ns, float ms_to_start, float ms_duration,
                           uint64_t *start_ns, uint64_t *end_ns) {
  double offset = (double)ms_to_start * 1e6, duration = (double)ms_duration * 1e6;
  if (offset < 0 && (uint64_t)(-offset) > ref_ns)
    offset = -(double)ref_ns;
  if (duration < 0)
    duration = 0;
  int64_t rounded = (int64_t)(offset < 0 ? offset - 0.5 : offset + 0.5);
  *start_ns = (uint64_t)((int64_t)ref_ns + rounded);
  *end_ns = *start_ns + (uint64_t)(duration + 0.5);
}

uint64_t tracer_clock_raw_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const struct tracer_device_clock *
tracer_device_clock_for(struct tracer_device_clock_sync *s, uintptr_t device, unsigned drain,
                        bool (*sync)(uintptr_t device, struct tracer_device_clock *clock)) {
  if (!s->synced || s->device != device || s->drain != drain) {
    s->device = device, s->drain = drain;
    s->synced = sync(device, &s->clock);
  }
  return s->synced ? &s->clock : NULL;
}
