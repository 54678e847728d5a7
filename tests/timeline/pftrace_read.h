/* pftrace_read: the tests' own decoder of the Perfetto traces the timeline writes
 * (the subset in cli/exports/perfetto/timeline.proto), independent of the writer's code.
 * Everything is held in memory: for tests and the bench's checks, not for big traces. */
#ifndef TRACER_PFTRACE_READ_H
#define TRACER_PFTRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pft_track {
  uint64_t uuid, parent;
  char name[256];
  char kind; /* 'p' process, 't' thread, 'c' counter, 'n' plain named track */
  int64_t pid, tid;
  int unit;  /* counters: CounterDescriptor.Unit */
};

struct pft_slice {
  uint64_t track, start, end;
  char name[96];
  char args[320];     /* "name=value;..." in the order written (cut when longer) */
  uint64_t flow_out, flow_in;
};

struct pft_point {
  uint64_t track, ts;
  double value;       /* counters */
  char name[256];     /* instants */
};

struct pftrace {
  struct pft_track *tracks;
  size_t track_count;
  struct pft_slice *slices;
  size_t slice_count;
  struct pft_point *counters, *instants;
  size_t counter_count, instant_count;
  uint64_t packets;
};

/* Appends what `path` holds to `trace` (so parts of a split timeline can be read into
 * one). Returns 0, or -1 with a message in error. */
int pftrace_read(const char *path, struct pftrace *trace, char *error, size_t error_size);

/* Replays begins and ends per track in time order, as the trace processor does (a
 * stable sort by time), and checks that every end closes its own slice: i.e. no slice
 * would be lost or cut. Also checks that every slice's track was described. */
int pftrace_check(const struct pftrace *trace, char *error, size_t error_size);

const struct pft_track *pftrace_track(const struct pftrace *trace, uint64_t uuid);
void pftrace_free(struct pftrace *trace);

#endif
