/* otf2_merge: an MPI (or torchrun) job's one OTF2 archive, made from its ranks' parts
 * without reading an event again (docs/otf2.md, "A job's archive").
 *
 * Each rank writes its part (otf2_writer.h with a rank): an archive of its own whose
 * location ids start at rank << 32, so that no two ranks' event files share a name.
 * Rank 0, once the ranks are done, reads each part's global definitions (small: names,
 * regions, locations, not events), unifies them (one string, region, host node per
 * meaning: otf2_defs.h), and writes the job's archive:
 *   - each part's event files, linked into the job's archive (copied across
 *     filesystems): events keep the ids of their rank's definitions;
 *   - per location, local definitions holding OTF2's mapping tables from its rank's ids
 *     to the job's (strings, attributes, regions), which OTF2's readers apply;
 *   - the global definitions: one location group per rank, and MPI_COMM_WORLD as the
 *     ranks in order (a rank without a part: a placeholder location with no events).
 * Work and files grow with ranks and definitions, not with events. The parts are
 * removed once the job's archive is in place. */
#ifndef TRACER_OTF2_MERGE_H
#define TRACER_OTF2_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

struct otf2_merge_stats {
  unsigned ranks;               /* parts merged */
  uint64_t locations, events;
};

/* parts[r]: the folder of rank r's part, or NULL (an untraced rank, or one whose part
 * failed); n: the job's size. Writes the archive in path (otf2_folder.h). Returns 0, or
 * -1 with a cause in d. */
int otf2_merge(const char *const *parts, size_t n, const char *path,
               struct otf2_merge_stats *stats, struct diag *d);

#endif
