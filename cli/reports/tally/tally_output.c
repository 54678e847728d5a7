/* tally_output: the tally's tables as a report (output.h): the text tables, opened by the
 * verdict (reports/verdict/), or JSON with -j, per actor too with -e
 * (docs/analysis-output.md). Printed unless -t. */
#include <inttypes.h>

#include "output.h"
#include "tally.h"
#include "trace_window.h"
#include "units.h"
#include "tally_print.h"
#include "verdict.h"

static bool asked(const struct analysis_request *r) { return !r->text; }

/* The report's first line when a window was asked: what it is and how much of the run. */
static void print_window(const struct trace_window *w, FILE *out) {
  char longest[32];
  units_time(trace_window_longest_ns(w), longest, sizeof longest);
  fprintf(out, "Window: %s: %s of the run", w->label, longest);
  if (w->count > 1)
    fprintf(out, " in the longest of %zu processes", w->count);
  fputs(" (every table below counts only this part)\n", out);
}

static int close_tables(const struct output_context *c, void *state, struct diag *d) {
  (void)state;
  const struct analysis_request *r = c->request;
  if (c->read_failed || !c->tally)
    return diag_error(d, "Cannot analyse the trace: %s",
                      c->read_error ? c->read_error : "out of memory");
  /* With what other reports add to the tables (the collectives after their backend's). */
  struct tally_additions more = {c->additions, c->addition_count};
  if (r->json)
    tally_print_json(c->tally, r->trace_dir, r->run, r->extended, &more, r->out);
  else {
    /* The window, how the run ended and what is missing, then the verdict, then the
     * tables. */
    if (c->window)
      print_window(c->window, r->out);
    tally_print_prologue(c->tally, r->run, r->out);
    verdict_print_text(c->tally, r->run, c->gaps, c->window, r->out);
    if (c->steps_verdict) /* a run that has steps: its verdict from them too */
      verdict_print_inputs(c->steps_verdict, " in the steps", r->out);
    struct tally_print_options how = {r->extended, r->full_names};
    tally_print_tables(c->tally, r->run, &how, &more, r->out);
  }
  if (c->tally->error)
    return diag_error(d, "Part of the trace could not be read; the tables count what could: %s",
                      c->tally->error);
  return 0;
}

const struct output tally_output = {
    .name = "tally",
    .kind = OUTPUT_REPORT,
    .option = "none: the default; -j as JSON, -e per hostname, process and thread too",
    .input = OUTPUT_READS_TALLY,
    .reads = "the tally: host calls, device commands, bytes, regions, losses",
    .asked = asked,
    .close = close_tables,
};
