/* rank_spread: how a job's time spreads over its ranks (docs/multi-rank.md), from the
 * job's result (job_result.h): per backend, the share of each rank's wall time its host
 * calls and its device work took (mean, least and most, with the ranks), a one-line answer
 * to "where did the job's time go", and per function the least, mean and most time a rank
 * spent in it, naming the ranks at both ends: load imbalance and stragglers in one screen.
 */
#ifndef TRACER_RANK_SPREAD_H
#define TRACER_RANK_SPREAD_H

#include <stdio.h>

#include "job_result.h"

/* The ranks that failed, the shares of wall time and the verdict: the first lines of a
 * job's report. */
void rank_spread_print_summary(const struct job_result *r, FILE *out);
/* Per backend, per function: least, mean and most time over the ranks that called it. */
void rank_spread_print_tables(const struct job_result *r, FILE *out);

#endif
