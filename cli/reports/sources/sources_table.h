/* sources_table: the "Top source lines" table by name, outliving the read that made it
 * (sources.h gathers it by stack, whose names live only as long as their reader): the
 * single run's table, and a job's, which keeps each rank's and merges them
 * (cli/job/job_result.h; the rows of the same line and kernel add up over ranks).
 *
 * A line is the source of its commands (trace_stack_source: kind, file, line and
 * function; label is how the flame graphs name it), with its device time and commands,
 * its kernels (each with its time and commands), and, over ranks, in how many ranks it
 * launched work and the least and most one did (with their ranks; ties go to the lower
 * rank, whatever the merge order). Everything is owned by the table.
 */
#ifndef TRACER_SOURCES_TABLE_H
#define TRACER_SOURCES_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The lines a report prints: the ten that launched the most device time. */
enum { SOURCES_TABLE_ROWS = 10 };

struct sources_kernel {
  char *name; /* owned */
  uint64_t ns, commands;
};

struct sources_line {
  int kind;                      /* enum trace_frame_kind */
  int line;                      /* 0: unknown */
  char *file, *function, *label; /* owned */
  uint64_t ns, commands;
  uint64_t ranks; /* the ranks whose commands it launched; 0 in a single run's table */
  uint64_t least_ns, most_ns;
  long least_rank, most_rank;
  struct sources_kernel *kernels; /* owned */
  size_t kernel_count;
};

struct sources_table {
  struct sources_line *lines; /* owned */
  size_t count, cap;
  size_t *slots; /* the lines by source (sources_table.c); owned */
  size_t slot_cap;
  /* The device time of commands with a stack, and without one (in no line). */
  uint64_t stacked_ns, other_ns;
};

/* The line of t with this source, added empty when t has none; NULL when out of memory. */
struct sources_line *sources_table_line(struct sources_table *t, int kind, int line,
                                        const char *file, const char *function, const char *label);

/* Adds ns and commands of kernel `name` to line l (and to the line's own). Returns 0, or
 * -1 when out of memory. */
int sources_line_add(struct sources_line *l, const char *name, uint64_t ns, uint64_t commands);

/* Marks each line of t as launched by rank alone (the spread of one rank). */
void sources_table_set_rank(struct sources_table *t, long rank);

/* Merges the ranks' spread of from (ranks, least, most) into into's. */
void sources_line_merge_spread(struct sources_line *into, const struct sources_line *from);

/* Adds from into into: lines and kernels of the same source and name add up, the ranks'
 * spreads merge. Returns 0, or -1 when out of memory. */
int sources_table_merge(struct sources_table *into, const struct sources_table *from);

/* Prints the table: the top `rows` lines by device time, each with its three biggest
 * kernels (named as the tally's tables name them: short unless full_names); with
 * per_rank, in how many ranks each line launched work and the most one did. Nothing
 * when no command had a stack. */
void sources_table_print(const struct sources_table *t, unsigned rows, bool full_names,
                         bool per_rank, FILE *out);

void sources_table_free(struct sources_table *t);

#endif
