/* timeline_sink: where a timeline goes, one sink per file format (exports/perfetto/,
 * exports/chrome_json/). The writer (timeline.h) keeps the tracks, finds each slice its
 * track or lane and counts; it hands each sink, in the order written: every track as it
 * is made (lanes too, before anything goes on them), then the slices, instants and
 * counter values on them. A sink writes them in its format, streaming, and says why
 * when it cannot (error()).
 *
 * A new format is a sink: a folder under exports/, an open function that fills a
 * struct timeline_sink, and a line in cli/analysis/registry.c. */
#ifndef TRACER_TIMELINE_SINK_H
#define TRACER_TIMELINE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

enum timeline_track_kind {
  TIMELINE_TRACK_HOST,
  TIMELINE_TRACK_PROCESS,
  TIMELINE_TRACK_THREAD,
  TIMELINE_TRACK_DEVICE,
  TIMELINE_TRACK_QUEUE,
  TIMELINE_TRACK_COUNTER,
  TIMELINE_TRACK_LANE,   /* a sibling of lane_of, for slices that overlap its own */
};

/* A track as sinks see it. Tracks are numbered from 1 in the order made. */
struct timeline_track_info {
  timeline_track uuid, parent;  /* parent 0: none */
  enum timeline_track_kind kind;
  int64_t id;                   /* a thread's tid, a queue's id; 0 otherwise */
  int64_t pid;                  /* processes and threads */
  const char *name;             /* borrowed */
  enum timeline_unit unit;      /* counters */
  timeline_track lane_of;       /* lanes: the track they are a lane of */
};

/* Every function returns 0, or -1 with a message for error(). */
struct timeline_sink_ops {
  int (*track)(void *state, const struct timeline_track_info *track);
  int (*slice)(void *state, timeline_track track, const struct timeline_slice *slice);
  int (*instant)(void *state, timeline_track track, uint64_t ts, const char *name,
                 const struct trace_arg *args, size_t arg_count);
  int (*counter)(void *state, timeline_track track, uint64_t ts, double value);
  /* Finishes the sink's files and frees it, even on failure; adds what it wrote to stats
   * (bytes, parts, summary). */
  int (*close)(void *state, struct timeline_stats *stats, char *error, size_t error_size);
  const char *(*error)(const void *state);
};

struct timeline_sink {
  const struct timeline_sink_ops *ops;
  void *state;
};

#endif
