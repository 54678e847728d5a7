/* job_steps: a job's steps (`tracer -r JOB --steps`, and rank 0's report of a live job):
 * each rank's steps table, as one trace's (reports/steps/steps_report.h), read from the
 * rank's own trace through the window asked for, then per step the slowest rank, the
 * fastest and the median over the ranks (steps matched by their number in each rank:
 * the Nth step of every rank is step N). docs/steps.md. */
#ifndef TRACER_JOB_STEPS_H
#define TRACER_JOB_STEPS_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "window_build.h"

struct job_steps_request {
  const char *job_dir;
  const char *pattern;                 /* --steps PATTERN, or NULL */
  const struct window_request *window; /* NULL: the whole run */
  unsigned threads;
};

/* Prints the ranks' tables and the slowest rank of each step. Returns 0, or -1 with a
 * cause in d when no rank's trace could be read. */
int job_steps_print(const struct job_steps_request *request, FILE *out, struct diag *d);

#endif
