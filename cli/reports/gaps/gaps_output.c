/* gaps_output: device use and idle gaps as a report (output.h), printed after the text
 * tables when the run had device work. */
#include <stdlib.h>

#include "gaps.h"
#include "output.h"
#include "tally.h"

static bool asked(const struct analysis_request *r) { return !r->text && !r->json; }

/* The analysis until it is finished, then its report. */
struct gaps_state {
  struct gaps *gaps;
  struct gap_report report;
  bool finished;
};

static int open_gaps(const struct output_context *c, void **state,
                     struct trace_consumer *consumer, struct timeline_sink *sink,
                     struct diag *d) {
  (void)c;
  (void)sink;
  struct gaps_state *s = calloc(1, sizeof *s);
  if (!s)
    return diag_error(d, "Cannot analyse the device use: out of memory");
  if (gaps_open(&s->gaps, consumer, d)) {
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int finish_gaps(struct output_context *c, void *state, struct diag *d) {
  struct gaps_state *s = state;
  int rc = gaps_close(s->gaps, &s->report, d);
  s->gaps = NULL;
  s->finished = true;
  if (c->tally ? tally_has_device_work(c->tally) : s->report.device_count > 0)
    c->gaps = &s->report;
  return rc;
}

static int close_gaps(const struct output_context *c, void *state, struct diag *d) {
  struct gaps_state *s = state;
  int rc = 0;
  if (!s)
    return -1;
  if (s->finished && c->gaps == &s->report) {
    gaps_print_text(&s->report, c->request->out);
    if (c->read_error)
      rc = diag_error(d, "Part of the trace could not be read for the gaps: %s", c->read_error);
  }
  if (s->gaps) /* never finished */
    gaps_close(s->gaps, &s->report, d);
  gaps_free(&s->report);
  free(s);
  return rc;
}

/* With the text tables alone, the gaps read the trace after the tally, only when it had
 * device work. */
static bool worth_a_read(const struct output_context *c) {
  return c->tally && tally_has_device_work(c->tally);
}

const struct output gaps_output = {
    .name = "gaps",
    .kind = OUTPUT_REPORT,
    .option = "none: with the text tables",
    .input = OUTPUT_READS_EVENTS,
    .reads = "device commands and calls, in time order",
    .asked = asked,
    .open = open_gaps,
    .finish = finish_gaps,
    .close = close_gaps,
    .worth_a_read = worth_a_read,
};
