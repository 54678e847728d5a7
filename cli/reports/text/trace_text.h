/* trace_text: `tracer -t`: every event of a trace in time order, one line each, with its
 * arguments decoded: enum and status values by name, handles in hex, out values after the
 * call, strings, array contents and struct members.
 *
 *   13:36:02.387547645 - host - vpid: 1234, vtid: 1234 - lttng_ust_opencl:clFinish_exit: { result: CL_SUCCESS }
 */
#ifndef TRACER_TRACE_TEXT_H
#define TRACER_TRACE_TEXT_H

#include <stdio.h>

#include "diag.h"
#include "event_map.h"
#include "trace_consumer.h"

struct trace_text;

/* The printer of the trace whose event map is map, onto out, as a consumer of the read
 * (in time order). Lines wait until no event still to come can precede them
 * (line_order.h). In a read on several threads the lines are written on the threads
 * that decode (prepare_call, prepare_other: trace_consumer.h) and put in order on the
 * reading one. Returns 0, or -1 with a cause in d. */
int trace_text_open(const struct event_map *map, FILE *out, struct trace_text **text,
                    struct trace_consumer *consumer, struct diag *d);
/* Prints the lines still waiting and frees the printer. */
void trace_text_close(struct trace_text *text);

#endif
