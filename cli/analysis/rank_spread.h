/* rank_spread: how a job's time spreads over its ranks (docs/multi-rank.md). Each rank's
 * folder is tallied on its own; then, per backend, the share of each rank's wall time its
 * host calls and its device work took (mean, least and most, with the ranks), a one-line
 * answer to "where did the job's time go", and per function the least, mean and most
 * time a rank spent in it, naming the ranks at both ends: load imbalance and stragglers
 * in one screen. */
#ifndef TRACER_RANK_SPREAD_H
#define TRACER_RANK_SPREAD_H

#include <stdio.h>

struct rank_spread;

/* Tallies each rank folder of job_dir; NULL when no rank's trace could be read. */
struct rank_spread *rank_spread_load(const char *job_dir, unsigned threads);
/* The shares of wall time and the verdict: the first lines of a job's report. */
void rank_spread_print_summary(const struct rank_spread *rs, FILE *out);
/* Per backend, per function: least, mean and most time over the ranks. */
void rank_spread_print_tables(const struct rank_spread *rs, FILE *out);
void rank_spread_free(struct rank_spread *rs);

#endif
