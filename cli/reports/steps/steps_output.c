/* steps_output: the steps table (steps_report.h) as a report (output.h), asked by --steps:
 * printed after the GPUs' time per rank, and in JSON as the tally's "steps" member. The
 * steps themselves were found before the read (output_context.steps). */
#include <stdlib.h>

#include "output.h"
#include "steps_report.h"
#include "tally_print.h"

static bool asked(const struct analysis_request *r) { return r->steps && !r->text; }

struct steps_state {
  struct steps_reading *reading;
  struct steps_report report;
  bool finished;
};

static int open_steps(const struct output_context *c, void **state,
                      struct trace_consumer *consumer, struct timeline_sink *sink,
                      struct diag *d) {
  (void)sink;
  struct steps_state *s = calloc(1, sizeof *s);
  if (!s)
    return diag_error(d, "Cannot analyse the steps: out of memory");
  if (c->steps && steps_read_open(c->steps, &s->reading, consumer, d)) {
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static void print_json(const void *report, FILE *out) { steps_print_json(report, out); }

static int finish_steps(struct output_context *c, void *state, struct diag *d) {
  struct steps_state *s = state;
  int rc = s->reading ? steps_read_close(s->reading, &s->report, d) : 0;
  s->reading = NULL;
  s->report.steps = c->steps;
  s->finished = rc == 0;
  /* The verdict over the steps, unless a window already restricts the run to a part. */
  if (s->finished && s->report.has_verdict && !c->window)
    c->steps_verdict = &s->report.verdict;
  if (s->finished && c->addition_count < OUTPUT_ADDITIONS)
    c->additions[c->addition_count++] =
        (struct tally_addition){"steps", print_json, NULL, &s->report};
  return rc;
}

static int close_steps(const struct output_context *c, void *state, struct diag *d) {
  struct steps_state *s = state;
  if (!s)
    return -1;
  if (s->reading) /* never finished */
    steps_read_close(s->reading, &s->report, d);
  else if (s->finished && !c->request->json)
    steps_print_text(&s->report, c->request->out);
  steps_report_free(&s->report);
  free(s);
  return 0;
}

const struct output steps_output = {
    .name = "steps",
    .kind = OUTPUT_REPORT,
    .option = "--steps [PATTERN]",
    .input = OUTPUT_READS_EVENTS,
    .reads = "the steps found before the read, device commands and collective calls",
    .asked = asked,
    .open = open_steps,
    .finish = finish_steps,
    .close = close_steps,
};
