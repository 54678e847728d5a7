/* perfetto_output: the timeline as Perfetto protobuf, an export (output.h; -l [FILE]). */
#include "output.h"
#include "perfetto.h"

static bool asked(const struct analysis_request *r) { return r->timeline_path != NULL; }

static int open_perfetto(const struct output_context *c, void **state,
                         struct trace_consumer *consumer, struct timeline_sink *sink,
                         struct diag *d) {
  (void)state;
  (void)consumer;
  struct perfetto_options options = {.path = c->request->timeline_path,
                                     .split_bytes = c->request->timeline_split};
  if (perfetto_sink_open(&options, sink, d))
    return diag_error(d, "Cannot write the timeline");
  return 0;
}

const struct output perfetto_output = {
    .name = "perfetto",
    .kind = OUTPUT_EXPORT,
    .option = "-l [FILE], --timeline-split SIZE",
    .input = OUTPUT_READS_TIMELINE,
    .reads = "the timeline: tracks, slices, flows, counters",
    .asked = asked,
    .open = open_perfetto,
};
