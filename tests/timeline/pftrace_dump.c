/* pftrace_dump [-r] FILE...: prints what the timeline files hold, one line per track, slice,
 * counter value and instant, read back with the tests' own decoder (pftrace_read.c),
 * then checks that no slice overlaps another on its track without nesting.
 * -r: times relative to the earliest one (small enough for tools that read numbers as
 * doubles, such as jq and awk). Exit status 0 when all reads and checks pass, 1 otherwise. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pftrace_read.h"

int main(int argc, char **argv) {
  struct pftrace t = {0};
  char error[512];
  int first = 1;
  bool relative = argc > 1 && strcmp(argv[1], "-r") == 0;
  first += relative;
  if (argc <= first) {
    fprintf(stderr, "usage: pftrace_dump [-r] FILE...\n");
    return 2;
  }
  for (int i = first; i < argc; i++)
    if (pftrace_read(argv[i], &t, error, sizeof error)) {
      fprintf(stderr, "pftrace_dump: error: %s\n", error);
      return 1;
    }
  uint64_t base = UINT64_MAX;
  for (size_t i = 0; relative && i < t.slice_count; i++)
    base = t.slices[i].start < base ? t.slices[i].start : base;
  for (size_t i = 0; relative && i < t.counter_count; i++)
    base = t.counters[i].ts < base ? t.counters[i].ts : base;
  for (size_t i = 0; relative && i < t.instant_count; i++)
    base = t.instants[i].ts < base ? t.instants[i].ts : base;
  if (base == UINT64_MAX)
    base = 0;
  for (size_t i = 0; i < t.track_count; i++) {
    const struct pft_track *k = &t.tracks[i];
    printf("track %llu parent=%llu kind=%c pid=%lld tid=%lld unit=%d name=%s\n",
           (unsigned long long)k->uuid, (unsigned long long)k->parent, k->kind,
           (long long)k->pid, (long long)k->tid, k->unit, k->name);
  }
  for (size_t i = 0; i < t.slice_count; i++) {
    const struct pft_slice *s = &t.slices[i];
    printf("slice %llu %llu %llu flow_out=%llu flow_in=%llu name=%s args=%s\n",
           (unsigned long long)s->track, (unsigned long long)(s->start - base),
           (unsigned long long)(s->end - base), (unsigned long long)s->flow_out,
           (unsigned long long)s->flow_in, s->name, s->args);
  }
  for (size_t i = 0; i < t.counter_count; i++)
    printf("counter %llu %llu %.17g\n", (unsigned long long)t.counters[i].track,
           (unsigned long long)(t.counters[i].ts - base), t.counters[i].value);
  for (size_t i = 0; i < t.instant_count; i++)
    printf("instant %llu %llu name=%s\n", (unsigned long long)t.instants[i].track,
           (unsigned long long)(t.instants[i].ts - base), t.instants[i].name);
  int rc = pftrace_check(&t, error, sizeof error);
  if (rc)
    fprintf(stderr, "pftrace_dump: error: %s\n", error);
  else
    printf("check: ok, %zu tracks, %zu slices, %zu counter values, %zu instants\n",
           t.track_count, t.slice_count, t.counter_count, t.instant_count);
  pftrace_free(&t);
  return rc ? 1 : 0;
}
