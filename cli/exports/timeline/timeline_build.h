/* timeline_build: `tracer -l`: the timeline of a trace, from the calls, device commands
 * and regions of the reader (a consumer, trace_consumer.h), written through the
 * timeline writer (timeline.h) to its sinks.
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

#include "diag.h"
#include "timeline.h"
#include "trace_consumer.h"
#include "trace_reader.h"

struct timeline_build_options {
  const char *app_name;  /* shown with process ids; may be NULL */
  /* One rank of a job (cli/job/rank_timeline.h): its processes are named
   * "rank N (HOST)", and its flow ids start after flow_base. */
  bool is_rank;
  long rank;
  uint64_t flow_base;
  /* timeline_build()'s read: as trace_read_options.threads (0: as the cores allow; the
   * reader then writes the timeline on a thread of its own when a core is left). */
  unsigned threads;
};

struct timeline_builder;

/* A builder writing through tl (opened by the caller, who closes it after the builder);
 * *consumer is what to give the read (it needs time order, times and arguments). Its
 * finish() writes what waited for the end. Returns 0, or -1 with a cause in d. */
int timeline_builder_open(struct timeline *tl, const struct timeline_build_options *options,
                          struct timeline_builder **builder, struct trace_consumer *consumer,
                          struct diag *d);
/* Frees the builder. Returns 0, or -1 with a cause in d when the timeline could not be
 * written (the writer's own message). */
int timeline_builder_close(struct timeline_builder *builder, struct diag *d);

/* The trace's timeline through tl, in a read of its own: the above around trace_read().
 * Returns 0, or -1 with causes in d. */
int timeline_build(struct trace_reader *reader, struct timeline *tl,
                   const struct timeline_build_options *options, struct diag *d);

#endif
