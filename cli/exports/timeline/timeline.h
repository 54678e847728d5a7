/* timeline: a writer of timelines (ui.perfetto.dev, chrome://tracing), independent of
 * where the events come from (CTF or anything else) and of the file format: it hands
 * what it is given to its sinks (timeline_sink.h), Perfetto protobuf
 * (exports/perfetto/perfetto.h) and Chrome trace-event JSON
 * (exports/chrome_json/chrome_json.h).
 *
 * Tracks form a tree: host > process > thread for host calls; host > device > queue
 * for device work; counter tracks under any track. Slices (with a name, arguments
 * and flows), instants and counter values go on tracks. Everything is streamed to
 * the sinks as it arrives, so memory grows with the number of tracks and distinct
 * names, never with the number of events.
 *
 * Conventions:
 * - Times are nanoseconds on one clock for the whole timeline. Aligning several
 *   nodes' clocks is the caller's job, done before the times reach the writer (see
 *   docs/timeline.md: the seam for multi-node runs).
 * - A slice is written whole (begin and end together), so the writer needs no
 *   matching of begins and ends. Slices may come in any order; when they arrive in
 *   order of their end (as calls do, recorded at return) none is ever misplaced.
 *   A slice that overlaps another on its track without nesting goes on a lane (a
 *   sibling track named "NAME #2", ...), so none is lost.
 * - Strings are copied or written at once: the caller keeps ownership.
 * - Functions return 0, or -1 with a message in timeline_error(). The writer never
 *   prints or exits.
 */
#ifndef TRACER_TIMELINE_H
#define TRACER_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_arg.h" /* a slice's details: name = value */

struct timeline;

/* A track's handle: its Perfetto uuid (never 0). */
typedef uint64_t timeline_track;

struct timeline_slice {
  timeline_track track;
  uint64_t start, end;   /* ns, start <= end */
  const char *name;
  const char *category;  /* may be NULL */
  const struct trace_arg *args; /* the first 64 are written */
  size_t arg_count;
  uint64_t flow_out;     /* a flow starting at this slice; 0: none */
  uint64_t flow_in;      /* a flow ending at this slice; 0: none */
  /* The name and the args' names are strings whose address always holds the same
   * text while the writer is open (static data, names owned by an open trace): they
   * are then interned by address, without reading them. */
  bool stable_names;
};

enum timeline_unit { TIMELINE_UNIT_COUNT, TIMELINE_UNIT_BYTES, TIMELINE_UNIT_NS };

struct timeline_stats {
  uint64_t slices, instants, counter_values, flows;
  uint64_t tracks, lanes;  /* lanes: extra tracks made for overlapping slices */
  uint64_t bytes;          /* the Perfetto sink: all parts */
  unsigned parts;          /* the Perfetto sink: files written, summary not included */
  bool summary;            /* the Perfetto sink: a summary file was written */
};

struct timeline_sink;

/* A writer handing everything to these sinks, in this order; it owns them from now on
 * (timeline_close() closes them, even when this fails). Returns 0, or -1 when out of
 * memory (a message in timeline_error()). */
int timeline_open(const struct timeline_sink *sinks, size_t sink_count, struct timeline **out);
/* Closes every sink; frees the writer even on failure. stats may be NULL. A message
 * is stored in `error` (may be NULL, size error_size) on failure. */
int timeline_close(struct timeline *tl, struct timeline_stats *stats, char *error,
                   size_t error_size);
const char *timeline_error(const struct timeline *tl);

/* Tracks, made on first use and found again by the same key afterwards. Names are
 * those shown; 0 when out of memory or on a write error. */
timeline_track timeline_host(struct timeline *tl, const char *hostname);
timeline_track timeline_process(struct timeline *tl, timeline_track host, int64_t pid,
                                const char *name);
timeline_track timeline_thread(struct timeline *tl, timeline_track process, int64_t pid,
                               int64_t tid, const char *name);
timeline_track timeline_device(struct timeline *tl, timeline_track host, const char *name);
timeline_track timeline_queue(struct timeline *tl, timeline_track device, uint64_t id,
                              const char *name);
timeline_track timeline_counter_track(struct timeline *tl, timeline_track parent,
                                      const char *name, enum timeline_unit unit);

int timeline_slice(struct timeline *tl, const struct timeline_slice *slice);
int timeline_instant(struct timeline *tl, timeline_track track, uint64_t ts, const char *name,
                     const struct trace_arg *args, size_t arg_count);
int timeline_counter(struct timeline *tl, timeline_track counter, uint64_t ts, double value);

#endif
