/* pftrace_dump FILE...: prints what the timeline files hold, one line per track, slice,
 * counter value and instant, read back with the tests' own decoder (pftrace_read.c),
 * then checks that no slice overlaps another on its track without nesting.
 * Exit status 0 when all reads and checks pass, 1 otherwise. */
#include <stdio.h>

#include "pftrace_read.h"

int main(int argc, char **argv) {
  struct pftrace t = {0};
  char error[512];
  if (argc < 2) {
    fprintf(stderr, "usage: pftrace_dump FILE...\n");
    return 2;
  }
  for (int i = 1; i < argc; i++)
    if (pftrace_read(argv[i], &t, error, sizeof error)) {
      fprintf(stderr, "pftrace_dump: error: %s\n", error);
      return 1;
    }
  for (size_t i = 0; i < t.track_count; i++) {
    const struct pft_track *k = &t.tracks[i];
    printf("track %llu parent=%llu kind=%c pid=%lld tid=%lld unit=%d name=%s\n",
           (unsigned long long)k->uuid, (unsigned long long)k->parent, k->kind,
           (long long)k->pid, (long long)k->tid, k->unit, k->name);
  }
  for (size_t i = 0; i < t.slice_count; i++) {
    const struct pft_slice *s = &t.slices[i];
    printf("slice %llu %llu %llu flow_out=%llu flow_in=%llu name=%s args=%s\n",
           (unsigned long long)s->track, (unsigned long long)s->start,
           (unsigned long long)s->end, (unsigned long long)s->flow_out,
           (unsigned long long)s->flow_in, s->name, s->args);
  }
  for (size_t i = 0; i < t.counter_count; i++)
    printf("counter %llu %llu %.17g\n", (unsigned long long)t.counters[i].track,
           (unsigned long long)t.counters[i].ts, t.counters[i].value);
  for (size_t i = 0; i < t.instant_count; i++)
    printf("instant %llu %llu name=%s\n", (unsigned long long)t.instants[i].track,
           (unsigned long long)t.instants[i].ts, t.instants[i].name);
  int rc = pftrace_check(&t, error, sizeof error);
  if (rc)
    fprintf(stderr, "pftrace_dump: error: %s\n", error);
  else
    printf("check: ok, %zu tracks, %zu slices, %zu counter values, %zu instants\n",
           t.track_count, t.slice_count, t.counter_count, t.instant_count);
  pftrace_free(&t);
  return rc ? 1 : 0;
}
