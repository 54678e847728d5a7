/* result_file: a job_result on disk, the per-rank and per-node results of an MPI job
 * (docs/multi-rank.md). A small versioned text format, one record per line:
 *
 *   tracer-result 1
 *   ranks 0 1 2 3
 *   f INDEX CALLS ERRORS TOTAL MIN MAX ... NAME
 *   ...
 *   end
 *
 * Text because the figures are few (per function and per device row, never per event),
 * a person can read and diff it, and it needs no library; numbers are integers, so
 * writing and reading again gives the same result exactly. Names (kernels, streams) come
 * last on their line and may hold spaces. A file without its `end` line is refused (a
 * writer that died), and files are written to a temporary name and renamed.
 */
#ifndef TRACER_RESULT_FILE_H
#define TRACER_RESULT_FILE_H

#include "job_result.h"

/* 2: the actors (`a`, `af`, `ad` lines); 3: the collectives table (`c` lines) and the
 * arrivals at each collective (`g`, `gt` lines); 4: the device counters (`sd`, `sc`, `sn`
 * lines, tracer --sample); 5: the device of the device rows (`dd` lines: per-GPU tables
 * in a job) and each rank's GPUs as HTA defines their time (`h` lines); 6: each function's
 * time at depth 0 (`o` lines, the verdict's); 7: the calls made inside other backends'
 * calls (`fi` lines, tally_backend.inside); 8: the top source lines (`st`, `sl`, `sk`
 * lines: result_sources.h). Files of versions 2 to 7 are read too (they have no
 * collectives, no device counters, device rows of no device, no depth-0 time, no calls
 * set apart, no source lines). */
#define RESULT_FILE_VERSION 8
#define RESULT_FILE_OLDEST 2
#define RESULT_FILE_RANK "tracer-result.txt" /* a rank's, in its folder */

/* Returns 0, or -1 (errno set) when the file cannot be written. */
int result_file_write(const char *path, const struct job_result *r);

/* Adds the result in path to r (made by job_result_init()). Returns 0, or -1 with a
 * message in error ("file:line: ...") when it cannot be read; r may then hold part of it. */
int result_file_read(const char *path, struct job_result *r, char *error, size_t size);

/* Only the ranks a result covers (its first lines), into *ranks (owned by the caller).
 * Returns how many, or -1 when the file cannot be read. */
long result_file_ranks(const char *path, long **ranks);

#endif
