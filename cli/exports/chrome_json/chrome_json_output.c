/* chrome_json_output: the timeline as Chrome trace-event JSON, an export (output.h;
 * --timeline-format json). */
#include "chrome_json.h"
#include "output.h"

static bool asked(const struct analysis_request *r) { return r->timeline_json_path != NULL; }

static int open_chrome_json(const struct output_context *c, void **state,
                            struct trace_consumer *consumer, struct timeline_sink *sink,
                            struct diag *d) {
  (void)state;
  (void)consumer;
  if (chrome_json_sink_open(c->request->timeline_json_path, sink, d))
    return diag_error(d, "Cannot write the timeline");
  return 0;
}

const struct output chrome_json_output = {
    .name = "chrome-json",
    .kind = OUTPUT_EXPORT,
    .option = "--timeline-format json",
    .input = OUTPUT_READS_TIMELINE,
    .reads = "the timeline: tracks, slices, flows, counters",
    .asked = asked,
    .open = open_chrome_json,
};
