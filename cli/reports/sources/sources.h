/* sources: the lines of code that launched the most device time, with their kernels
 * (the report's "Top source lines" table, docs/flame.md).
 *
 * A consumer of device commands (trace_consumer.h): each command whose submitting call
 * kept its stack (struct trace_device.stack) adds its device time to that stack's source
 * (trace_stack_source: the innermost Python frame, else the innermost native frame) and
 * to its kernel under it. Stacks are named at the end, so the read may go stream by
 * stream. Commands without a stack are left out (the table says how much time they had).
 */
#ifndef TRACER_SOURCES_H
#define TRACER_SOURCES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "sources_table.h"
#include "trace_consumer.h"

struct sources;

/* *consumer is what to give the read. Returns 0, or -1 with a cause in d. */
int sources_open(struct sources **sources, struct trace_consumer *consumer, struct diag *d);

/* Adds the table by name (sources_table.h) into t: call it before the read's reader
 * closes (the stacks' names are its). Returns 0, or -1 when out of memory. */
int sources_name(const struct sources *sources, struct sources_table *t);

/* Prints the table (top `rows` sources, each with its top kernels, named as the tally's
 * tables name them: short unless full_names) onto out; nothing when no command had a
 * stack. */
void sources_print(const struct sources *sources, unsigned rows, bool full_names, FILE *out);

void sources_free(struct sources *sources);

#endif
