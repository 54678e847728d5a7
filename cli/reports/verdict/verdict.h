/* verdict: the one or two lines that open a report: where the run's wall time went (each
 * backend's host calls, each device's busy and idle time) and which bound the run is:
 * a device (its kernels, or its copies: transfers), communication (the host calls of a
 * backend whose calls move messages: MPI, NCCL), a host API, or none of the traced APIs.
 *
 * The rules, in order (docs/analysis-output.md): a device busy half the run or more, and
 * at least as long as any backend's host calls, bounds it (by its copies when they were
 * busier than its kernels); else communication calls taking a quarter of the run or
 * more, and at least any other backend's host calls; else the host calls of a backend
 * taking a quarter of the run or more; else none of the traced APIs. Shares are of the
 * app's wall time (the run record's), else of the trace's span.
 */
#ifndef TRACER_VERDICT_H
#define TRACER_VERDICT_H

#include <stdint.h>
#include <stdio.h>

struct gap_report;
struct run_record;
struct tally;

enum verdict_bound {
  VERDICT_UNKNOWN,        /* no wall time to compare with */
  VERDICT_NONE,           /* none of the traced APIs */
  VERDICT_HOST_API,
  VERDICT_COMMUNICATION,
  VERDICT_DEVICE,
  VERDICT_TRANSFERS,
};

struct verdict {
  enum verdict_bound bound;
  uint64_t wall_ns;
  const char *what;       /* the backend's or device's name in the verdict line */
  double share;           /* of the wall time, 0..1, for `what` */
};

/* The verdict of a run: tally and run are required (run may lack a wall time), gaps may
 * be NULL (no device work, or not worked out). */
void verdict_make(const struct tally *tally, const struct run_record *run,
                  const struct gap_report *gaps, struct verdict *v);

/* The lines that open the text report. */
void verdict_print_text(const struct tally *tally, const struct run_record *run,
                        const struct gap_report *gaps, FILE *out);

#endif
