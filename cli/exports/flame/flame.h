/* flame: folded stacks for flame graphs (`--flame FILE`), the format flamegraph.pl,
 * inferno and speedscope read: one line per distinct stack, its frames joined by ';',
 * then a space and its weight (docs/flame.md).
 *
 * Two files, so that both sides of the work have a view:
 *   FILE, weighted by device time (ns): `ROOT;REGION...;CALL...;-;KERNEL`, each device
 *     command (kernel, copy, other command) under the stack of the call that submitted
 *     it: the regions open around that call and the traced calls it was made in;
 *   FILE's host twin (flame_host_path: stacks.folded -> stacks.host.folded), weighted by
 *     the time in the API calls (ns): `ROOT;REGION...;CALL...`, each call weighted by its
 *     own time, less that of the traced calls made inside it, so that a frame's width is
 *     the call's whole time.
 * ROOT is `rank N` in an MPI job, else the process (`APP (pid N)`). The weights of each
 * file add up to the tally's device and host times (a counted function's calls on a line
 * of their own under ROOT, a device command whose call is unknown right under ROOT).
 *
 * A consumer of the reader (trace_consumer.h) that keeps one node per distinct stack:
 * memory grows with the distinct stacks, not with the events. Stacks come from
 * call_stacks.h, which reads a trace with regions twice. */
#ifndef TRACER_FLAME_H
#define TRACER_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "trace_consumer.h"

struct flame_options {
  const char *path;     /* the device-time file; the host-time one beside it */
  const char *app_name; /* names the processes; may be NULL */
  long rank;            /* >= 0: one rank of an MPI job, the root frame `rank N` */
};

struct flame_stats {
  uint64_t device_lines, host_lines;
  uint64_t device_ns, host_ns;  /* the weights' sums */
};

struct flame;

/* *consumer is what to give the read. Returns 0, or -1 with a cause in d. */
int flame_open(const struct flame_options *options, struct flame **flame,
               struct trace_consumer *consumer, struct diag *d);
/* Writes both files (each whole, then renamed into place) unless read_failed, and frees
 * the consumer. Returns 0, or -1 with a cause in d. */
int flame_close(struct flame *flame, bool read_failed, struct flame_stats *stats,
                struct diag *d);

/* The host-time file of path: `.host` before its extension (or at its end). */
void flame_host_path(const char *path, char *out, size_t size);

/* An MPI job's files from its ranks' (each rank's stacks start with its own `rank N`,
 * so the lines stay distinct): parts[i] is rank i's device-time file, its host twin
 * beside it; missing parts are skipped. Returns 0, or -1 with a cause in d. */
int flame_join(const char *const *parts, size_t n, const char *path, struct flame_stats *stats,
               struct diag *d);

#endif
