/* tally_print: a tally as the text tables of docs/analysis-output.md, or as JSON. */
#ifndef TRACER_TALLY_PRINT_H
#define TRACER_TALLY_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "run_record.h"
#include "tally.h"

/* run (may be NULL, or not present) says how the app ended: a line before the tables, an
 * "app" object in JSON. trace_dir appears in the JSON. extended (-e) adds, per backend,
 * its tables per actor (t->actors: hostname, rank, process, thread); in JSON an
 * "actors" list. */
void tally_print_text(const struct tally *t, const struct run_record *run, bool extended,
                      FILE *out);
/* tally_print_text in its two parts, for a report that puts lines between them (the
 * verdict): how the app ended, losses, notes and pauses; then the tables and the cost. */
void tally_print_prologue(const struct tally *t, const struct run_record *run, FILE *out);
void tally_print_tables(const struct tally *t, const struct run_record *run, bool extended,
                        FILE *out);
void tally_print_json(const struct tally *t, const char *trace_dir, const struct run_record *run,
                      bool extended, FILE *out);

#endif
