/* tally_print: a tally as the text tables of docs/analysis-output.md, or as JSON. */
#ifndef TRACER_TALLY_PRINT_H
#define TRACER_TALLY_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "run_record.h"
#include "tally.h"

/* What another report adds to the tally's output, from its own product (the collectives
 * table): a section after each backend's tables, and a member of the JSON object. */
struct tally_addition {
  const char *json_name;                                        /* the member's name */
  void (*json)(const void *product, FILE *out);                 /* its value */
  void (*text)(const void *product, size_t backend, FILE *out); /* after backend's tables
                                                                   (tracer_backends[]) */
  const void *product;
};

struct tally_additions {
  const struct tally_addition *list; /* borrowed */
  size_t count;
};

/* How the text tables are shown: extended (-e) adds, per backend, its tables per actor
 * (t->actors: hostname, rank, process, thread); full_names (--full-names) shows kernel
 * names whole instead of shortened (device_kernel_short_name). */
struct tally_print_options {
  bool extended, full_names;
};

/* The version of -j's JSON, its first member ("tracer_result": 1), which the JSON's
 * readers check (tracer diff: reports/diff/result_json.h). Raised when a member changes
 * meaning or goes; members added keep it. */
#define TALLY_JSON_VERSION 1

/* run (may be NULL, or not present) says how the app ended: a line before the tables, an
 * "app" object in JSON. trace_dir appears in the JSON. extended (-e) adds in JSON an
 * "actors" list. more (may be NULL) adds the other reports' sections and members. JSON
 * has every name whole. */
void tally_print_text(const struct tally *t, const struct run_record *run,
                      const struct tally_print_options *how, const struct tally_additions *more,
                      FILE *out);
/* tally_print_text in its two parts, for a report that puts lines between them (the
 * verdict): how the app ended, losses, notes and pauses; then the tables and the cost. */
void tally_print_prologue(const struct tally *t, const struct run_record *run, FILE *out);
void tally_print_tables(const struct tally *t, const struct run_record *run,
                        const struct tally_print_options *how,
                        const struct tally_additions *more, FILE *out);
void tally_print_json(const struct tally *t, const char *trace_dir, const struct run_record *run,
                      bool extended, const struct tally_additions *more, FILE *out);

#endif
