/* steps: the steps of each process's run, found once, in a read of their own before the
 * read the reports share, so that the window (window_build.h), the steps table
 * (steps_report.h) and the verdict all ask the same answer (docs/steps.md).
 *
 * A step is an instance of a named region (NVTX range, ITT task, a spec's trace.regions)
 * of one thread. By default, a process's steps are its outermost repeating region: the
 * regions are grouped per thread by their name less its trailing digits (its stem:
 * `ProfilerStep#12` and `Step.3` are `ProfilerStep#` and `Step.`), a group repeats when
 * it has two instances or more, the groups at the least depth among a thread's
 * repeating groups are the candidates, and the candidate with the most time in all is
 * the steps. With a pattern (fnmatch), the steps are the regions whose whole name
 * matches, outermost ones only (a match inside another of its thread is not a step).
 *
 * Times are on the trace clock, as the records carry them; ns lengths beside them.
 */
#ifndef TRACER_STEPS_H
#define TRACER_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "trace_reader.h"

enum { STEPS_NAME = 64 };

struct step {
  uint64_t start, end;   /* trace clock */
  uint64_t ns;           /* its length */
  unsigned number;       /* 1, 2, ... in start order among its process's steps */
  char name[STEPS_NAME]; /* the region's name: "ProfilerStep#5" */
};

/* A region as the finder kept it (for windows by region name). */
struct steps_region {
  uint64_t start, end;
  int64_t tid;
  uint32_t stem;         /* id in steps.stems */
  uint32_t depth;
  int64_t number;        /* its name's trailing digits, -1 when none */
};

struct steps_process {
  int host;              /* index in the read's hosts */
  char host_name[64];
  int64_t pid;
  long rank;             /* its rank in a job (lttng_ust_tracer:rank), -1 when none */
  uint64_t first, last;  /* its first record's start, its last one's end (trace clock) */
  char what[STEPS_NAME]; /* what its steps are: "ProfilerStep#N", "Step", a pattern */
  struct step *steps;    /* owned; in start order */
  size_t count;
  struct steps_region *regions; /* every region it recorded; owned */
  size_t region_count, region_cap;
};

struct steps {
  struct steps_process *processes; /* owned */
  size_t count;
  char **stems;          /* region names less their trailing digits, by id; owned */
  size_t stem_count;
  const char *pattern;   /* --steps PATTERN, borrowed; NULL: the outermost repeating region */
  double ns_per_tick;    /* the trace clock's */
};

/* Reads reader's trace once (whatever its window) for its regions, and finds each
 * process's steps (pattern: NULL for the outermost repeating region). Returns 0, or -1
 * with a cause in d when the trace cannot be read. */
int steps_find(struct trace_reader *reader, const char *pattern, unsigned threads,
               struct steps *steps, struct diag *d);

/* A region's whole name (its stem and number) into out. */
void steps_region_name(const struct steps *steps, const struct steps_region *r, char *out,
                       size_t size);

/* The process's entry, or NULL. */
const struct steps_process *steps_process_of(const struct steps *steps, int host, int64_t pid);

/* How many processes have steps, and the steps of all of them. */
size_t steps_total(const struct steps *steps, size_t *processes);

void steps_free(struct steps *steps);

#endif
