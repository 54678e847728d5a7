/* trace_text: `tracer -t`: every event of a trace in time order, one line each, with its
 * arguments decoded: enum and status values by name, handles in hex, out values after the
 * call, strings, array contents and struct members.
 *
 *   13:36:02.387547645 - host - vpid: 1234, vtid: 1234 - lttng_ust_opencl:clFinish_exit: { result: CL_SUCCESS }
 */
#ifndef TRACER_TRACE_TEXT_H
#define TRACER_TRACE_TEXT_H

#include <stdio.h>

#include "ctf.h"
#include "event_map.h"

/* Returns 0, or -1 with a message in *error (owned by the caller, free()) when part of the
 * trace could not be read; what could be read was printed. */
int trace_text_print(const struct ctf_trace *trace, const struct event_map *map, FILE *out,
                     char **error);

#endif
