/* chrome_json: the timeline as Chrome trace-event JSON (--timeline-format json), for
 * chrome://tracing, ui.perfetto.dev and the tools that read that format; a sink of the
 * timeline writer (timeline_sink.h). "X" events for slices, "C" for counters, "s"/"f" for
 * flows, "M" for names. Devices and lanes get made-up pids and tids (from 1000000000),
 * since JSON has no other tracks. Written as it comes, never split. */
#ifndef TRACER_CHROME_JSON_H
#define TRACER_CHROME_JSON_H

#include "diag.h"
#include "timeline_sink.h"

/* Creates path. Returns 0, or -1 with a cause in d. */
int chrome_json_sink_open(const char *path, struct timeline_sink *sink, struct diag *d);

#endif
