/* calibrate: the machine's cost of recording, measured once per machine and trace
 * clock in a session of its own (so that no app's trace holds the calibration's events),
 * then cached (cli/model/tracing_cost.h). */
#ifndef TRACER_COMMANDS_CALIBRATE_H
#define TRACER_COMMANDS_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

#include "tracing_cost.h"

/* The cached cost, or a new measurement: a short-lived process preloaded with the runtime
 * (runtime_library) runs runtime/tracer_calibration.c under a session with the given clock
 * plugin (NULL: LTTng's monotonic clock). Returns false, with the cause in why, when
 * neither can be had; the run goes on without the figure. */
bool calibrate_cost(const char *clock_plugin, const char *runtime_library,
                    struct tracing_cost *cost, char *why, size_t why_size);

#endif
