/* tracer_clock_tsc: whether the CPU's time-stamp counter can be the trace clock here.
 * Shared by the clock plugin (tracer_clock_plugin.c), which decides with it, and by
 * `tracer --check`, which reports the decision; it depends on nothing but libc. */
#include "tracer_clock.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* Invariant TSC (CPUID 0x80000007, EDX bit 8): constant rate, runs in every C-state. */
static bool tsc_invariant(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u)
    return false;
  __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
  return (edx >> 8) & 1;
}
#endif

bool tracer_clock_kernel_clocksource(char *source, size_t size) {
  FILE *file = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
  if (!file)
    return false;
  bool ok = fgets(source, (int)size, file) != NULL;
  fclose(file);
  if (ok)
    source[strcspn(source, "\n")] = '\0';
  return ok;
}

bool tracer_clock_tsc_usable(const char **why_not) {
  const char *reason = NULL;
#if defined(__x86_64__) || defined(__i386__)
  char source[32] = "";
  if (!tsc_invariant())
    reason = "the CPU's TSC is not invariant";
  /* The kernel keeps time with the TSC only while the TSCs of all CPUs agree. */
  else if (!tracer_clock_kernel_clocksource(source, sizeof source))
    reason = "the kernel's clocksource cannot be read";
  else if (strcmp(source, "tsc") != 0)
    reason = "the kernel's clocksource is not tsc";
#else
  reason = "not an x86 CPU";
#endif
  if (why_not)
    *why_not = reason;
  return reason == NULL;
}
