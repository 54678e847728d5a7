/* job_folder: the trace folder of an MPI job (docs/multi-rank.md). It holds one subfolder
 * per traced rank, rank-N, each a whole trace with its own run record; a run record whose
 * end was seen says that rank's tracer has finished writing it. How the ranks' results
 * come together: node_gather.h. */
#ifndef TRACER_JOB_FOLDER_H
#define TRACER_JOB_FOLDER_H

#include <stdbool.h>
#include <stddef.h>

#define JOB_RANK_PREFIX "rank-"

/* The folder of rank in job_dir, into out. */
void job_rank_folder(const char *job_dir, long rank, char *out, size_t size);

/* True when dir holds at least one rank-N folder, or per-node results (node_gather.h). */
bool job_folder_is_job(const char *dir);

/* The ranks whose folders dir holds, sorted, into *ranks (owned by the caller). */
size_t job_folder_ranks(const char *dir, long **ranks);

/* True when the tracer of a rank in dir did not see its app end (it was killed). */
bool job_folder_has_unfinished(const char *dir);

/* The private daemons' homes (run_record.h) that the killed tracers of dir (a job folder,
 * or one run's trace) left on this host, NULL-terminated, into *homes (owned by the
 * caller, strings too). Returns how many. */
size_t job_folder_daemon_homes(const char *dir, char ***homes);

#endif
