/* otf2_output: the trace as an OTF2 archive, an export (output.h; --otf2 DIR): a
 * consumer of the trace's records (otf2_writer.h). */
#include "otf2_writer.h"
#include "output.h"

static bool asked(const struct analysis_request *r) { return r->otf2_path != NULL; }

static int open_otf2(const struct output_context *c, void **state,
                     struct trace_consumer *consumer, struct timeline_sink *sink,
                     struct diag *d) {
  (void)sink;
  struct otf2_options options = {c->request->otf2_path, c->request->app_name, -1};
  return otf2_export_open(&options, (struct otf2_export **)state, consumer, d);
}

static int close_otf2(const struct output_context *c, void *state, struct diag *d) {
  if (!state)
    return 0; /* its open failed, and said why */
  struct otf2_stats stats;
  if (otf2_export_close(state, c->read_failed, &stats, d))
    return -1;
  c->result->otf2 = true;
  c->result->otf2_locations = stats.locations;
  c->result->otf2_events = stats.events;
  return 0;
}

const struct output otf2_output = {
    .name = "otf2",
    .kind = OUTPUT_EXPORT,
    .option = "--otf2 DIR",
    .input = OUTPUT_READS_EVENTS,
    .reads = "calls, regions, device commands and messages: an OTF2 archive",
    .asked = asked,
    .open = open_otf2,
    .close = close_otf2,
};
