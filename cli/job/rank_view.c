/* rank_view: `--ranks` on one trace that holds a launcher's ranks (`tracer torchrun ...`,
 * docs/multi-rank.md): per backend and function the least, median and most time a rank
 * spent, with the ranks at both ends and the stragglers, as a job's report has them
 * (rank_spread.h), from the tally's actors, which carry their process's rank. The
 * processes without a rank (the launcher) are left out. Text only. */
#include <stdlib.h>
#include <string.h>

#include "job_result.h"
#include "output.h"
#include "rank_spread.h"

static bool asked(const struct analysis_request *r) { return r->rank_view && !r->text && !r->json; }

static int close_view(const struct output_context *c, void *state, struct diag *d) {
  (void)state;
  const struct tally *t = c->tally;
  FILE *out = c->request->out;
  if (!t) /* the tables say why */
    return 0;
  if (!t->rank_count) {
    fputs("Per-rank time: the trace holds no ranks (no process started with a launcher's rank "
          "variables).\n\n",
          out);
    return 0;
  }
  /* A job's result over the one trace: its tally, borrowed, and its distinct ranks. */
  struct job_result view;
  memset(&view, 0, sizeof view);
  view.tally = *t;
  view.ranks = calloc(t->rank_count, sizeof *view.ranks);
  if (!view.ranks)
    return diag_error(d, "Cannot write the per-rank times: out of memory");
  for (size_t i = 0; i < t->rank_count; i++) {
    bool seen = false;
    for (size_t k = 0; k < view.rank_count && !seen; k++)
      seen = view.ranks[k] == t->ranks[i].rank;
    if (!seen)
      view.ranks[view.rank_count++] = t->ranks[i].rank;
  }
  rank_spread_print_ranks(&view, c->request->ranks_pct, out);
  free(view.ranks);
  return 0;
}

const struct output rank_view_output = {
    .name = "ranks",
    .kind = OUTPUT_REPORT,
    .option = "--ranks: per call the least, median and most time of a rank, the stragglers",
    .input = OUTPUT_READS_TALLY,
    .reads = "the tally per actor, the ranks of a launcher's processes",
    .asked = asked,
    .close = close_view,
};
