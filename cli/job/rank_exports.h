/* rank_exports: an MPI (or torchrun) job's OTF2 archive and folded stacks (`--otf2 DIR`,
 * `--flame FILE` under a launcher), made as the job's timeline is (rank_timeline.h):
 * each rank writes its part from its own trace, in one read, into its folder
 * (JOB/rank-N/otf2-part/, JOB/rank-N/flame.folded and flame.host.folded); rank 0, once
 * the ranks are done, makes the job's: the OTF2 parts merged into one archive without
 * reading an event again (otf2_merge.h), the folded stacks joined (each line starts with
 * its rank, so the ranks' lines stay apart). `tracer -r JOB` does both steps itself. */
#ifndef TRACER_RANK_EXPORTS_H
#define TRACER_RANK_EXPORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "window_build.h"

#define RANK_OTF2_PART "otf2-part"
#define RANK_FLAME_FILE "flame.folded"

/* Writes the parts asked for (otf2, flame) of the rank whose trace is rank_dir (a job's
 * rank-N folder). Returns 0, or -1 with causes in d. */
int rank_exports_write(const char *rank_dir, bool otf2, bool flame, unsigned threads,
                       const struct window_request *window, const char *steps_pattern,
                       struct diag *d);

struct rank_exports_stats {
  unsigned otf2_ranks, flame_ranks;
  uint64_t otf2_locations, otf2_events;
  uint64_t flame_device_lines, flame_host_lines;
};

/* The job's exports from the ranks' parts in job_dir: the OTF2 archive in otf2_path and
 * the folded stacks in flame_path (each NULL: not asked). size: the job's ranks (0: as
 * many as its folders say). Returns 0, or -1 with causes in d (one per export). */
int rank_exports_join(const char *job_dir, long size, const char *otf2_path,
                      const char *flame_path, struct rank_exports_stats *stats, struct diag *d);

#endif
