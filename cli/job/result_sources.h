/* result_sources: the top source lines (sources_table.h) in a result file
 * (result_file.h, version 8), after the backends:
 *
 *   st STACKED_NS OTHER_NS     the device time of commands with a stack, and without
 *   sl KIND LINE NS COMMANDS RANKS LEAST_NS LEAST_RANK MOST_NS MOST_RANK
 *      <TAB>FILE<TAB>FUNCTION<TAB>LABEL   (one line: a source line of code)
 *   sk NS COMMANDS KERNEL      a kernel of the `sl` line before it
 *
 * Names come last, after tabs (they hold spaces); a tab or a line break in a name is
 * written as a space. */
#ifndef TRACER_RESULT_SOURCES_H
#define TRACER_RESULT_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sources_table.h"

/* Returns 0, or -1 when out of memory (nothing written then). */
int result_sources_write(FILE *f, const struct sources_table *t);

/* The reading of a file's lines: the `sl` line the `sk` lines that follow belong to. */
struct result_sources_reader {
  struct sources_table *into; /* borrowed */
  size_t line;                /* its position + 1 in into; 0 before any */
};

/* Reads a line of word `st`, `sl` or `sk` (p: after the word) into rd->into. Returns
 * false when the line is not one of them, or is malformed, or memory ran out. */
bool result_sources_read(struct result_sources_reader *rd, const char *word, char *p);

#endif
