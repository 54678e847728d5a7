/* job_report: the one report of an MPI job, from its per-node results (node_gather.h):
 * the ranks that failed, where the ranks' time went and the verdict, the tables of a
 * single run over all ranks (with the collectives table after its backend's), the GPUs'
 * time, the top source lines over the ranks, message sizes by bucket, and per-rank time; in JSON the tally over all ranks with its
 * "collectives" and a "job" object (ranks, failed ranks, message sizes, the rank-to-rank
 * matrix). docs/multi-rank.md shows it. */
#ifndef TRACER_JOB_REPORT_H
#define TRACER_JOB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "job_steps.h"
#include "node_gather.h"
#include "window_build.h"

struct job_report_request {
  const char *job_dir;
  const long *ranks;  /* the ranks expected; NULL: those whose folders the job has */
  size_t rank_count;
  unsigned timeout_s; /* how long to wait for results (with ranks) */
  unsigned threads;   /* for ranks reduced from their events */
  bool json;
  bool extended;       /* -e: the tables per rank, hostname, process and thread too */
  bool rank_view;      /* --ranks: per-rank times with the median and the stragglers */
  unsigned ranks_pct;  /* a straggler's time is over the median by more than this % */
  bool full_names;     /* --full-names: kernel names whole in the text tables */
  /* The window (window_build.h; NULL: the whole run) and runtime_calls (a library's own
   * calls counted as the app's, --runtime-calls): reduce_again: each rank reduced again
   * from its trace through them (a replay), else its result already is (a live job). */
  const struct window_request *window;
  const char *steps_pattern;
  bool reduce_again;
  bool runtime_calls;
  /* The ranks' steps asked for (--steps: job_steps.h), borrowed; NULL: none. Read once
   * the ranks' results are in: in JSON the "steps" and "slowest_ranks" members, in text
   * after the report. */
  const struct job_steps_request *steps;
};

/* Prints the report; *gathered says how the results came. Returns 0, or -1 when no rank
 * could be counted (gathered->missing names them), or with a cause in d when the steps
 * asked for cannot be found (nothing printed then). */
int job_report_print(const struct job_report_request *req, FILE *out,
                     struct node_gather_report *gathered, struct diag *d);

#endif
