/* itt hooks: what the ITT collector exports besides the API. Its results (domains and
 * string handles interned, counters, the timestamp) are the spec's trace.results;
 * everything else is generated (generated/itt/itt_collector.c).
 */
#include "itt_args.h"

/* Present for the ITT static part: a collector that exports it gets every function looked
 * up by name (one without it only gets the legacy ones). */
const char *__itt_api_version(void) { return "tracer ITT collector 1"; }
