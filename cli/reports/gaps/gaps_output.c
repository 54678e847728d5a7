/* gaps_output: device use and idle gaps as a report (output.h), printed after the text
 * tables when the run had device work. */
#include "gaps.h"
#include "output.h"
#include "tally.h"

static bool asked(const struct analysis_request *r) { return !r->text && !r->json; }

static int open_gaps(const struct output_context *c, void **state,
                     struct trace_consumer *consumer, struct timeline_sink *sink,
                     struct diag *d) {
  (void)c;
  (void)sink;
  return gaps_open((struct gaps **)state, consumer, d);
}

static int close_gaps(const struct output_context *c, void *state, struct diag *d) {
  struct gap_report report;
  if (!state)
    return -1;
  int rc = gaps_close(state, &report, d);
  if (c->tally ? tally_has_device_work(c->tally) : report.device_count > 0) {
    gaps_print_text(&report, c->request->out);
    if (c->read_error)
      rc = diag_error(d, "Part of the trace could not be read for the gaps: %s", c->read_error);
  }
  gaps_free(&report);
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
    .close = close_gaps,
    .worth_a_read = worth_a_read,
};
