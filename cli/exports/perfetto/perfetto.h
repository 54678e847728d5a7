/* perfetto: the timeline as Perfetto protobuf (.pftrace) for ui.perfetto.dev, a sink of
 * the timeline writer (timeline_sink.h). timeline.proto in this folder describes what it
 * writes, for protoc --decode (docs/timeline.md).
 *
 * Splitting: before a file would pass options.split_bytes, the sink starts the next
 * part (PATH.part2.pftrace, ...). Every part starts with the descriptors of every track
 * known so far, so each opens on its own; a slice is never cut between two parts. When a
 * split happened, PATH.summary.pftrace holds all tracks, the counters (thinned to one
 * value per track per summary_interval) and the longest slices.
 */
#ifndef TRACER_PERFETTO_H
#define TRACER_PERFETTO_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "timeline_sink.h"

struct perfetto_options {
  const char *path;        /* the .pftrace to write; parts and summary go beside it */
  uint64_t split_bytes;    /* 0: PERFETTO_DEFAULT_SPLIT_BYTES */
  uint64_t summary_interval; /* ns between counter values kept in the summary; 0: 1 ms */
  size_t summary_slices;   /* longest slices kept in the summary; 0: 1000 */
  /* Several timelines written apart and joined into one file (the ranks of a job): each
   * gives its tracks uuids from uuid_base + 1 on and its packets sequence_id, so that
   * none collides; host tracks then take a uuid from the host's name, so that the
   * timelines of one host share it. 0, 0: one timeline alone (sequence 1). */
  uint64_t uuid_base;
  uint32_t sequence_id;
};

#define PERFETTO_DEFAULT_SPLIT_BYTES (2ull << 30) /* 2 GiB: under Perfetto's 4 GiB limit */

/* Creates the file (and the summary's, removed at the end when no split happened).
 * Returns 0, or -1 with a cause in d. */
int perfetto_sink_open(const struct perfetto_options *options, struct timeline_sink *sink,
                       struct diag *d);

/* Part file names: part 1 is path itself; part n > 1 is path without its .pftrace suffix
 * + ".partN.pftrace"; part 0 is the summary (".summary.pftrace"). */
int perfetto_part_path(const char *path, unsigned part, char *out, size_t out_size);

#endif
