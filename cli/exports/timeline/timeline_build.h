/* timeline_build: `tracer -l`: the timeline of a trace, from the calls and device
 * commands of timeline_feed, written by cli/timeline.
 *
 * Tracks: host > process > thread for calls (nested calls nest), host > "<backend>
 * device" > queue for device commands, and per process a counter of the memory
 * allocated through the traced APIs (alloc and free meanings of the event metadata).
 * Regions are slices on their thread's track, around the calls inside them.
 * Each device command gets a flow from the call that submitted it: the call it names
 * (its thread and start), else, where it names none, the oldest call of its process of
 * the matching meaning (kernel launch, transfer of that function, other command) that
 * started before it and is not matched yet (docs/timeline.md). */
#ifndef TRACER_TIMELINE_BUILD_H
#define TRACER_TIMELINE_BUILD_H

#include <stdint.h>

#include "ctf.h"
#include "event_map.h"
#include "timeline.h"

struct timeline_build_options {
  const char *app_name;  /* shown with process ids; may be NULL */
  /* One rank of a job (cli/analysis/rank_timeline.h): its processes are named
   * "rank N (HOST)", and its flow ids start after flow_base. */
  bool is_rank;
  long rank;
  uint64_t flow_base;
  /* 1: read the trace and write the timeline on one thread; 2 or more: write on a second
   * thread (cli/analysis/feed_pipe.h); 0: a second one when more than 2 CPUs are ours. */
  unsigned threads;
};

/* Writes the trace's timeline through tl (opened by the caller, who closes it).
 * Returns 0, or -1 with a message in *error (owned by the caller, free()). */
int timeline_build(const struct ctf_trace *trace, const struct event_map *map,
                   struct timeline *tl, const struct timeline_build_options *options,
                   char **error);

#endif
