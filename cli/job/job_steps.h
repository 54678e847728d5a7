/* job_steps: a job's steps (`tracer -r JOB --steps`, and rank 0's report of a live job):
 * each rank's steps table, as one trace's (reports/steps/steps_report.h), read from the
 * rank's own trace through the window asked for, then per step the slowest rank, the
 * fastest and the median over the ranks (steps matched by their number in each rank:
 * the Nth step of every rank is step N). In text, each rank's tables and the slowest
 * rank of each step; in JSON (-j), the report's "steps" member holds every rank's tables
 * (as a trace's "steps", each with its rank) and "slowest_ranks" the slowest rank of
 * each step. docs/steps.md.
 *
 * A job's step takes as long as its slowest rank's: `tracer diff` compares two jobs'
 * steps by those times (by_step's slowest_ns, "slowest_ranks"' ns). */
#ifndef TRACER_JOB_STEPS_H
#define TRACER_JOB_STEPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "steps.h"
#include "steps_report.h"
#include "window_build.h"

struct job_steps_request {
  const char *job_dir;
  const char *pattern;                 /* --steps PATTERN, or NULL */
  const struct window_request *window; /* NULL: the whole run */
  unsigned threads;
};

/* One rank's steps. */
struct job_rank_steps {
  long rank;
  struct steps steps;         /* owned */
  struct steps_report report; /* owned; borrows steps */
  uint64_t *ns;               /* its steps' lengths in the window (the first process with
                                 steps: the rank's app), by step number; owned */
  size_t count;
};

/* Step N over the ranks that have an Nth step. */
struct job_step_ranks {
  long slowest_rank, fastest_rank;
  uint64_t slowest_ns, fastest_ns, median_ns;
  size_t ranks;
};

struct job_steps {
  struct job_rank_steps *ranks; /* those whose trace could be read, in rank order; owned */
  size_t count;
  struct job_step_ranks *by_step; /* by step number less 1; owned */
  size_t step_count;
  char what[STEPS_NAME];          /* what the first rank's steps are */
};

/* Reads each rank's steps into s (job_steps_free it whatever the outcome). Returns 0, or
 * -1 with a cause in d when no rank's trace could be read. */
int job_steps_read(const struct job_steps_request *request, struct job_steps *s,
                   struct diag *d);

/* The ranks' tables and the slowest rank of each step. */
void job_steps_print_text(const struct job_steps *s, FILE *out);
/* The JSON values of the report's "steps" (every rank's tables) and "slowest_ranks". */
void job_steps_print_json(const struct job_steps *s, FILE *out);
void job_steps_print_slowest_json(const struct job_steps *s, FILE *out);

void job_steps_free(struct job_steps *s);

#endif
