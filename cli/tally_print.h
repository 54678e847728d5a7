/* tally_print: a tally as the text tables of docs/analysis-output.md, or as JSON. */
#ifndef TRACER_TALLY_PRINT_H
#define TRACER_TALLY_PRINT_H

#include <stdio.h>

#include "tally.h"

/* trace_dir and discarded (as counted by the session; the tally's own count from packet
 * contexts is used when larger) appear in the output. */
void tally_print_text(const struct tally *t, FILE *out);
void tally_print_json(const struct tally *t, const char *trace_dir, FILE *out);

#endif
