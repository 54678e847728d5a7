/* The conversion of Level Zero kernel timestamps to host time (runtime/hooks/ze_hooks.c),
 * on values in the form a GPU reports them: a 19.2 MHz timer (timerResolution in
 * ticks per second, as ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 gives it), 32 valid bits
 * of kernel timestamps, a 64-bit global timestamp from zeDeviceGetGlobalTimestamps. The
 * expected values are worked out by hand in the comments. */
#include "ze_hooks.c"

#include <inttypes.h>

/* The interposer's nesting depth, which the hooks raise around their own calls. */
__thread unsigned ze_depth;

static int failures;

static void expect(const char *what, uint64_t got, uint64_t want) {
  if (got != want) {
    fprintf(stderr, "FAIL: %s: got %" PRIu64 ", want %" PRIu64 "\n", what, got, want);
    failures++;
  }
}

int main(void) {
  const struct ze_clock_sync sync = {
      .host_ns = 5000000000000u,         /* host CLOCK_MONOTONIC_RAW at the sync */
      .device_ticks = 0x12FFFFF000u,     /* global timestamp: low 32 bits 0xFFFFF000 */
      .ticks_per_second = 19200000u,     /* 19.2 MHz: 52.083 ns a tick */
      .valid_bits = 32,
  };
  /* 19200 ticks after the sync, past the 32-bit wrap (0xFFFFF000 + 0x4B00 = 0x1_00003B00):
   * 1 ms later. */
  expect("start after the wrap", ze_ticks_to_host_ns(&sync, 0x3B00u), 5000001000000u);
  /* 192 ticks before the sync: 10 us earlier. */
  expect("time before the sync", ze_ticks_to_host_ns(&sync, 0xFFFFEF40u), 4999999990000u);
  /* The sync's own tick, given with its high bits: the same time. */
  expect("sync point", ze_ticks_to_host_ns(&sync, 0x12FFFFF000u), 5000000000000u);

  ze_kernel_timestamp_result_t ts = {.global = {.kernelStart = 0x3B00u, .kernelEnd = 0xD100u}};
  uint64_t start, end;
  ze_kernel_times(&sync, &ts, &start, &end);
  expect("kernel start", start, 5000001000000u);
  expect("kernel end (38400 ticks = 2 ms)", end, 5000003000000u);

  /* A kernel whose end wrapped: 0xFFFFFF00 to 0x100 is 512 ticks = 26666.67 ns; its start
   * is 3840 ticks = 200 us after the sync. */
  ts = (ze_kernel_timestamp_result_t){.global = {.kernelStart = 0xFFFFFF00u, .kernelEnd = 0x100u}};
  ze_kernel_times(&sync, &ts, &start, &end);
  expect("wrapped kernel start", start, 5000000200000u);
  expect("wrapped kernel end", end, 5000000200000u + 26666u);

  /* A driver that reports no timer resolution (the null driver): ticks are nanoseconds. */
  const struct ze_clock_sync unknown = {.host_ns = 1000, .device_ticks = 0, .valid_bits = 0};
  expect("no resolution", ze_ticks_to_host_ns(&unknown, 250), 1250);

  if (failures)
    return 1;
  printf("PASS: ze_timestamps: 9 conversions\n");
  return 0;
}
