/* trace_window: the part of each process's run that the reader hands out (a region,
 * some steps, a time range: cli/reports/steps/window_build.h makes one), the one filter
 * of the read: every report and export sees the same records, none filters on its own.
 *
 * A window is, per process (host index in the read, pid), a sorted list of disjoint
 * time ranges [start, end) on the trace clock. A record is inside when its start lies in
 * one of its process's ranges, and is then handed out whole (never clipped): a call, a
 * region and a pause by their start; a device command by its submitting call's start
 * where the trace names that call, else by its own start on the device (the work a step
 * submitted is the step's, even when the GPU runs it later); a block of counted calls,
 * a call that never returned and any other event by the time it was written. A record
 * that names no process (a device command without ids, an event of the user's own
 * provider) is inside when any process of its host holds its time. The runtime's
 * measures of itself, notices and ranks are always handed out. Reports that need a
 * record cut to a step (the steps table) clip it themselves.
 *
 * Checking costs one test of a pointer per record when no window is set.
 */
#ifndef TRACER_TRACE_WINDOW_H
#define TRACER_TRACE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_window_range {
  uint64_t start, end; /* trace clock, [start, end) */
};

struct trace_window_process {
  int host;        /* index in the read's hosts (trace_source.host) */
  int64_t pid;
  struct trace_window_range *ranges; /* owned; sorted, disjoint */
  size_t count;
  uint64_t ns;     /* the ranges' length in ns, added up */
};

struct trace_window {
  struct trace_window_process *processes; /* owned */
  size_t count;
  char label[256]; /* what the window is, in words, for the report's first line */
};

/* Whether a record of (host, pid) at clock is inside the window; has_pid false: of any
 * process of that host. `last` caches the process found last (start it at 0). */
bool trace_window_holds(const struct trace_window *w, int host, int64_t pid, bool has_pid,
                        uint64_t clock, size_t *last);

/* The process's entry, or NULL. */
const struct trace_window_process *trace_window_process(const struct trace_window *w, int host,
                                                        int64_t pid);

/* The longest of the processes' windows, in ns (0 when empty). */
uint64_t trace_window_longest_ns(const struct trace_window *w);

void trace_window_free(struct trace_window *w);

#endif
