/* ctf_clock.c: raw clock values to time since the clock's origin. */
#include "ctf_internal.h"

int64_t ctf_clock_to_ns(const struct ctf_clock_class *clock, uint64_t cycles) {
  if (!clock)
    return (int64_t)cycles;
  /* 128-bit arithmetic: cycles * 1e9 overflows 64 bits for any real clock. */
  __int128 total = (__int128)clock->offset_cycles + (__int128)cycles;
  __int128 ns = clock->frequency == 1000000000 ? total
                                               : total * 1000000000 / (__int128)clock->frequency;
  ns += (__int128)clock->offset_seconds * 1000000000;
  if (ns > INT64_MAX)
    return INT64_MAX;
  if (ns < INT64_MIN)
    return INT64_MIN;
  return (int64_t)ns;
}
