/* gaps: the verdict a user would otherwise look for by eye in the timeline: per device,
 * how busy it was over the run (and each of its queues), how long copies ran while
 * kernels ran, and its longest idle gaps with the host call that was in progress.
 *
 * Two passes over the trace through timeline_feed: the device commands first (busy
 * time, overlap, gaps), then the calls (what the host was in during each gap). Memory
 * grows with devices and queues, never with the trace's length: device commands are
 * put in start order through a bounded reorder window (they are recorded when they
 * complete, so nearly in order already).
 *
 * Busy time is the union of a device's (or queue's) commands; overlap is
 * |kernels| + |copies| - |kernels or copies| on one device. A gap is a span between
 * two commands of a device where none ran. What the host was in: the innermost traced
 * call of that host's processes in progress at the gap's middle; none means the app's
 * own code (or a call of an API that is not traced). */
#ifndef TRACER_GAPS_H
#define TRACER_GAPS_H

#include <stdio.h>

#include "ctf.h"
#include "event_map.h"

enum { GAPS_KEPT = 5 };

struct gap {
  uint64_t start, end;         /* ns, trace clock */
  char host_call[128];         /* "" when the host was in no traced call */
  int64_t host_pid, host_tid;
  uint64_t call_length;        /* of host_call; for the innermost choice */
};

struct gap_queue {
  uint64_t id, busy, commands;
  int64_t pid;                 /* the process the queue belongs to */
};

struct gap_device {
  char *host;                  /* owned */
  const char *backend;         /* static */
  uint64_t busy, kernels, copies, overlap, commands;
  struct gap_queue *queues;    /* owned */
  size_t queue_count;
  struct gap gaps[GAPS_KEPT];  /* longest first */
  size_t gap_count;
};

struct gap_report {
  uint64_t run_start, run_end; /* first and last event of the trace, ns */
  struct gap_device *devices;  /* owned */
  size_t device_count;
};

/* Returns 0, or -1 with a message in *error (owned by the caller) when part of the
 * trace could not be read (what could be read is reported). */
int gaps_analyse(const struct ctf_trace *trace, const struct event_map *map,
                 struct gap_report *report, char **error);
void gaps_print_text(const struct gap_report *report, FILE *out);
void gaps_free(struct gap_report *report);

#endif
