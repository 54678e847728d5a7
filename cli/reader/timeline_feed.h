/* timeline_feed: the one place that turns the trace's events into what the timeline and
 * the gap analysis take: finished host calls (start, end, thread, function, status,
 * arguments), device commands (queue, kind, name, bytes, start, end, the submitting
 * call) and closed regions, in the trace's time order, on one clock in nanoseconds.
 *
 * A call is one event written when it returns (docs/trace-format.md): its record gives
 * the times, ids, status and arguments. Times are wall-clock ns (each trace's clock
 * offset applied), which is what aligns the ranks of several nodes (docs/timeline.md).
 *
 * Records and their strings are borrowed: valid during the callback only, except the
 * names of arguments and functions, which live as long as the trace and the backends'
 * descriptions (timeline_slice.stable_names).
 */
#ifndef TRACER_TIMELINE_FEED_H
#define TRACER_TIMELINE_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "ctf.h"
#include "event_map.h"
#include "timeline.h"

struct feed_call {
  const char *host;
  int64_t pid, tid;
  const struct tracer_backend_desc *desc;
  int function;                      /* index in desc->functions */
  uint64_t start, end;               /* ns */
  bool has_status, failed;           /* failed: a status other than success */
  int64_t status;
  const struct timeline_arg *args;   /* entry arguments, then results; may be empty */
  size_t arg_count;
  /* The strings of args taken from the trace lie in text[0, text_used); the others
   * (names of values) are static. */
  const char *text;
  size_t text_used;
};

struct feed_device {
  const char *host;
  int64_t pid;                       /* the process that submitted it */
  const struct tracer_backend_desc *desc; /* NULL when the backend is not compiled in */
  int kind;                          /* enum tracer_command_kind */
  const char *name;                  /* kernel name, or the enqueue function's */
  uint64_t bytes, queue, start, end; /* start, end: ns */
  /* The call that submitted it, where the trace says (docs/trace-format.md: call_tid,
   * call_start): its thread and its start in ns; call_tid 0 when unknown. */
  int64_t call_tid;
  uint64_t call_start;
};

/* A named region of one thread (ITT tasks, NVTX ranges: any backend's trace.regions),
 * fed when it closes, with the times the tally counts. */
struct feed_region {
  const char *host;
  int64_t pid, tid;
  const char *backend;               /* the backend's name as recorded; borrowed */
  const char *name;                  /* borrowed */
  unsigned depth;                    /* 0: outermost open region of its thread */
  uint64_t start, end;               /* ns */
};

struct feed_consumer {
  void *context;
  int (*call)(void *context, const struct feed_call *call);       /* may be NULL */
  int (*device)(void *context, const struct feed_device *device); /* may be NULL */
  bool want_args;                    /* decode arguments (slower) */
  int (*region)(void *context, const struct feed_region *region); /* may be NULL */
};

struct feed_span {
  uint64_t first, last;              /* ns: the first and last event's times */
  uint64_t events;
};

/* Reads the whole trace in time order and hands each call and device command to the
 * consumer. A callback's non-zero return stops the feed with that status. Returns 0;
 * -1 when part of the trace could not be read (a message in *error, owned by the
 * caller, free()); what could be read was fed. */
int timeline_feed(const struct ctf_trace *trace, const struct event_map *map,
                  const struct feed_consumer *consumer, struct feed_span *span, char **error);

#endif
