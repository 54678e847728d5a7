/* job_folder: the trace folder of an MPI job (docs/multi-rank.md). It holds one subfolder
 * per traced rank, rank-N, each a whole trace with its own run record; a run record whose
 * end was seen says that rank's tracer has finished writing it. Nothing but the shared
 * filesystem is needed to gather a job: rank 0 waits for the folders of the others. */
#ifndef TRACER_JOB_FOLDER_H
#define TRACER_JOB_FOLDER_H

#include <stdbool.h>
#include <stddef.h>

#define JOB_RANK_PREFIX "rank-"

/* The folder of rank in job_dir, into out. */
void job_rank_folder(const char *job_dir, long rank, char *out, size_t size);

/* True when dir holds at least one rank-N folder. */
bool job_folder_is_job(const char *dir);

/* The ranks whose folders dir holds, sorted, into *ranks (owned by the caller). */
size_t job_folder_ranks(const char *dir, long **ranks);

/* True when the tracer of a rank in dir did not see its app end (it was killed). */
bool job_folder_has_unfinished(const char *dir);

/* Waits until the tracer of each of the n ranks has finished its trace, at most timeout_s
 * seconds. Returns how many have not, and names them in missing ("3, 5"). */
size_t job_wait_ranks(const char *job_dir, const long *ranks, size_t n, unsigned timeout_s,
                      char *missing, size_t size);

#endif
