/* run_diff: two runs compared (`tracer diff A B`, docs/steps.md#two-runs-compared): per
 * backend the host functions, kernels and transfers whose total time, count or bytes
 * changed most between A and B, with both values, the change and its share of the whole
 * difference (the sum of every row's change in time, counted without its sign); rows in
 * one run only; the step time of both when both have steps. A change within the runs'
 * own step-to-step spread (the larger of the two runs' median absolute deviation of
 * their step times, as a share of their median) is marked as noise: the steps of one
 * run already differ that much.
 *
 * Each run is what the one reader and its consumers made of it: its tally (tally.h) and
 * its steps (steps.h), read by the command (cli/commands/diff.c).
 */
#ifndef TRACER_RUN_DIFF_H
#define TRACER_RUN_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tally.h"

struct diff_run {
  const char *path;       /* borrowed */
  const struct tally *tally; /* borrowed */
  size_t step_count;      /* 0: no steps found */
  char steps_what[64];    /* "Step.N" */
  uint64_t step_median;   /* ns */
  double step_spread;     /* median absolute deviation / median */
};

/* The step figures of a run from its steps' lengths (ns[0, n), sorted here). */
void diff_run_steps(struct diff_run *run, uint64_t *ns, size_t n, const char *what);

/* Whether the two runs have a backend with calls or device work in common. */
bool diff_comparable(const struct diff_run *a, const struct diff_run *b);

void diff_print_text(const struct diff_run *a, const struct diff_run *b, FILE *out);
void diff_print_json(const struct diff_run *a, const struct diff_run *b, FILE *out);

#endif
