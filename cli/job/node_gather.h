/* node_gather: how the results of an MPI job's ranks come together, over nothing but the
 * shared filesystem the job's folder sits on (docs/multi-rank.md):
 *
 *   JOB/nodes/HOST.ranks/N   each rank of node HOST says it is there ("traced" or
 *                            "untraced") before its app starts
 *   JOB/rank-N/tracer-result.txt   a traced rank's own result, reduced from its trace by
 *                            its tracer once the app has ended
 *   JOB/nodes/HOST.result    the node's result: its ranks' results merged by the node's
 *                            leader (local rank 0)
 *
 * Rank 0 (and `tracer -r JOB`) merges the node results; a rank that no node result covers
 * counts through its own result, else through its events (its tracer died before
 * reducing them), else it is missing. Files are written under a temporary name and
 * renamed, so a result that exists is whole.
 */
#ifndef TRACER_NODE_GATHER_H
#define TRACER_NODE_GATHER_H

#include <stdbool.h>
#include <stddef.h>

#include "job_result.h"

#define NODE_GATHER_FOLDER "nodes"

/* Says that rank runs on node. Returns 0, or -1 (errno set). */
int node_gather_register(const char *job_dir, const char *node, long rank, bool traced);

/* A traced rank, once its app has ended: reduces its trace into its folder's result.
 * A trace that cannot be read still leaves a result (covering the rank, with the error),
 * so that nobody waits for it. window (NULL: none) and steps_pattern: the part of the
 * run to reduce (job_result.h). Returns 0, or -1 when the file cannot be written. */
int node_gather_rank(const char *job_dir, long rank, unsigned threads,
                     const struct window_request *window, const char *steps_pattern);

/* The node's leader: waits (at most timeout_s seconds) until every traced rank registered
 * on node, and at least local_size ranks (when > 0), have their results; then merges
 * those there are into the node's result. Returns how many traced ranks had none, or -1
 * when the node's result cannot be written. */
long node_gather_node(const char *job_dir, const char *node, long local_size,
                      unsigned timeout_s);

struct node_gather_report {
  size_t nodes;          /* node results merged */
  size_t rank_results;   /* ranks counted through their own result */
  size_t from_events;    /* ranks counted through their events */
  char late[1024];       /* the ranks counted through their events ("3, 5") */
  char missing[1024];    /* expected ranks with neither result nor trace */
  size_t missing_count;
  char window_error[256]; /* why a rank's window failed (the first one), "" when none did */
};

/* The job's result into r (made by job_result_init()): waits at most timeout_s seconds
 * for results covering each of the n expected ranks (NULL: the rank folders the job has,
 * without waiting), then merges what there is. threads as tally_trace(), for the ranks
 * reduced from their events. Returns 0, or -1 when out of memory or when no rank could
 * be counted (a message in report->missing). */
int node_gather_job(const char *job_dir, const long *expected, size_t n, unsigned timeout_s,
                    unsigned threads, struct job_result *r, struct node_gather_report *report);

#endif
