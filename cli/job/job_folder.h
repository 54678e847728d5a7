/* job_folder: the trace folder of an MPI job (docs/multi-rank.md). It holds one subfolder
 * per traced rank, rank-N, each a whole trace with its own run record; a run record whose
 * end was seen says that rank's tracer has finished writing it. How the ranks' results
 * come together: node_gather.h. */
#ifndef TRACER_JOB_FOLDER_H
#define TRACER_JOB_FOLDER_H

#include <stdbool.h>
#include <stddef.h>

#include "run_record.h"

#define JOB_RANK_PREFIX "rank-"

/* The folder of rank in job_dir, into out. */
void job_rank_folder(const char *job_dir, long rank, char *out, size_t size);

/* The rank a job's rank-N folder (a path ending in it) is for; false when not so named. */
bool job_folder_rank_of(const char *dir, long *rank);

/* True when dir holds at least one rank-N folder, or per-node results (node_gather.h). */
bool job_folder_is_job(const char *dir);

/* The ranks whose folders dir holds, sorted, into *ranks (owned by the caller). */
size_t job_folder_ranks(const char *dir, long **ranks);

/* True when the tracer of a rank in dir did not see its app end (it was killed). */
bool job_folder_has_unfinished(const char *dir);

/* True when process pid runs on this host, not a zombie, and (comm not NULL) its command
 * name starts with comm. */
bool job_folder_process_runs(long pid, const char *comm);

/* Waits, at most timeout_ms, until the apps of the runs in dir (a job folder, or one run's
 * trace) whose tracers were killed on this host have ended: an app outlives its killed
 * tracer a moment, to write its calls in flight (runtime/tracer_signals.h) into the
 * session that `tracer -r` then destroys. */
void job_folder_wait_apps(const char *dir, unsigned timeout_ms);

/* The run records of the runs in dir (a job folder, or one run's trace) whose tracers
 * were killed on this host with a private daemon still named (run_record.h:
 * daemon_home), into *records (owned by the caller). Returns how many. */
size_t job_folder_orphans(const char *dir, struct run_record **records);

#endif
