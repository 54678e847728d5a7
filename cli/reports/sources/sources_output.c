/* sources_output: the top source lines (sources.h) as a report (output.h): printed with
 * the text tables, after the GPUs' time, when the run kept stacks. */
#include "output.h"
#include "sources.h"

static bool asked(const struct analysis_request *r) { return !r->text && !r->json; }

static int open_sources(const struct output_context *c, void **state,
                        struct trace_consumer *consumer, struct timeline_sink *sink,
                        struct diag *d) {
  (void)c;
  (void)sink;
  return sources_open((struct sources **)state, consumer, d);
}

static int close_sources(const struct output_context *c, void *state, struct diag *d) {
  (void)d;
  if (!state)
    return -1;
  if (!c->read_failed)
    sources_print(state, SOURCES_TABLE_ROWS, c->request->full_names, c->request->out);
  sources_free(state);
  return 0;
}

const struct output sources_output = {
    .name = "sources",
    .kind = OUTPUT_REPORT,
    .option = "none: with the text tables",
    .input = OUTPUT_READS_EVENTS,
    .reads = "device commands and their calls' stacks",
    .asked = asked,
    .open = open_sources,
    .close = close_sources,
};
