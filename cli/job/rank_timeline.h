/* rank_timeline: the timeline of an MPI job (`tracer -l` under a launcher), built without
 * reading any event twice. Each rank writes the timeline of its own trace into its folder
 * (JOB/rank-N/timeline.pftrace, parts included), with track uuids, a packet sequence and
 * flow ids of its own, its processes named "rank N (HOST)"; rank 0 then joins the ranks'
 * files into one by concatenation (a Perfetto trace is a sequence of packets, and
 * nothing collides). Hosts keep one track per host name, so the ranks of a node sit
 * under it.
 *
 * Clocks: every time is the trace clock converted with the offset its CTF metadata
 * carries (the realtime at the clock's origin, which LTTng measures when it writes the
 * metadata), so each rank's times are wall-clock nanoseconds, and the ranks of several
 * nodes agree as far as their realtime clocks do (docs/timeline.md). */
#ifndef TRACER_RANK_TIMELINE_H
#define TRACER_RANK_TIMELINE_H

#include <stdint.h>

#include "diag.h"
#include "window_build.h"
#include "timeline.h"

/* Writes the timeline of the rank whose trace is rank_dir (a job's rank-N folder) to
 * rank_dir/timeline.pftrace. split_bytes: as timeline_options (0: default). Returns 0,
 * or -1 with causes in d. */
int rank_timeline_write(const char *rank_dir, uint64_t split_bytes,
                        const struct window_request *window, const char *steps_pattern,
                        struct timeline_stats *stats,
                        struct diag *d);

/* Joins the timelines of the ranks of job_dir into path (written whole, then renamed
 * into place). *ranks: how many ranks had one. Returns 0, or -1 with a cause in d. */
int rank_timeline_join(const char *job_dir, const char *path, unsigned *ranks, uint64_t *bytes,
                       struct diag *d);

#endif
