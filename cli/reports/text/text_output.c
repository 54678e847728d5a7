/* text_output: every call decoded, in time order, as a report (output.h; -t). */
#include "output.h"
#include "trace_text.h"

static bool asked(const struct analysis_request *r) { return r->text; }

static int open_text(const struct output_context *c, void **state,
                     struct trace_consumer *consumer, struct timeline_sink *sink,
                     struct diag *d) {
  (void)sink;
  return trace_text_open(c->map, c->request->out, (struct trace_text **)state, consumer, d);
}

static int close_text(const struct output_context *c, void *state, struct diag *d) {
  if (!state)
    return -1;
  trace_text_close(state);
  if (c->read_error)
    return diag_error(d, "Part of the trace could not be read; the rest was printed: %s",
                      c->read_error);
  return 0;
}

const struct output text_output = {
    .name = "text",
    .kind = OUTPUT_REPORT,
    .option = "-t",
    .input = OUTPUT_READS_EVENTS,
    .reads = "every event, in time order: calls with their arguments, and the others",
    .asked = asked,
    .open = open_text,
    .close = close_text,
};
