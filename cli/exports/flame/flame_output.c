/* flame_output: folded stacks for flame graphs as an export (output.h; --flame FILE):
 * a consumer of the trace's records (flame.h). */
#include "flame.h"
#include "output.h"

static bool asked(const struct analysis_request *r) { return r->flame_path != NULL; }

static int open_flame(const struct output_context *c, void **state,
                      struct trace_consumer *consumer, struct timeline_sink *sink,
                      struct diag *d) {
  (void)sink;
  struct flame_options options = {c->request->flame_path, c->request->app_name, -1};
  return flame_open(&options, (struct flame **)state, consumer, d);
}

static int close_flame(const struct output_context *c, void *state, struct diag *d) {
  if (!state)
    return 0; /* its open failed, and said why */
  struct flame_stats stats;
  if (flame_close(state, c->read_failed, &stats, d))
    return -1;
  c->result->flame = true;
  c->result->flame_device_lines = stats.device_lines;
  c->result->flame_host_lines = stats.host_lines;
  return 0;
}

const struct output flame_output = {
    .name = "flame",
    .kind = OUTPUT_EXPORT,
    .option = "--flame FILE",
    .input = OUTPUT_READS_EVENTS,
    .reads = "calls, regions and device commands: stacks weighted by device and host time",
    .asked = asked,
    .open = open_flame,
    .close = close_flame,
};
