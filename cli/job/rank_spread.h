/* rank_spread: how a job's time spreads over its ranks (docs/multi-rank.md), from the
 * job's result (job_result.h): per backend, the share of each rank's wall time its host
 * calls and its device work took (mean, least and most, with the ranks), a one-line answer
 * to "where did the job's time go", and (--ranks) per function the least, median and most
 * time a rank spent in it, naming the ranks at both ends and the stragglers: load
 * imbalance in one screen.
 */
#ifndef TRACER_RANK_SPREAD_H
#define TRACER_RANK_SPREAD_H

#include <stdio.h>

#include "job_result.h"

/* The ranks that failed, the shares of wall time and the verdict: the first lines of a
 * job's report. */
void rank_spread_print_summary(const struct job_result *r, FILE *out);
/* --ranks: per backend, for all its calls and per function, the least, median and most
 * time a rank spent in it over the ranks that called it, naming the ranks at both ends
 * and the stragglers, whose time is over the median by more than pct percent. From the
 * actors' rows (r->want_actors), summed per rank. */
void rank_spread_print_ranks(const struct job_result *r, unsigned pct, FILE *out);
/* The same as the job object's "per_rank" member (a line ending with a comma). */
void rank_spread_print_ranks_json(const struct job_result *r, unsigned pct, FILE *out);

#endif
