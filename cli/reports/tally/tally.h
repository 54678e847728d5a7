/* tally: per backend, the time spent in each API function (host), on each kernel and
 * transfer (device), and the bytes each transfer kind moved, with the hostnames,
 * processes and threads that took part.
 *
 * A consumer of the read (trace_consumer.h) in any order: read stream by stream, each
 * worker tallies into a tally of its own, added up at the end (a tally of tallies is a
 * tally), so memory grows with the number of functions and kernel names, never with the
 * trace's length.
 * A call's duration is its record's end minus its start, both read right around the real
 * call (docs/trace-format.md), so the tracer's own work is in neither.
 */
#ifndef TRACER_TALLY_H
#define TRACER_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "actors.h"
#include "diag.h"
#include "id_set.h"
#include "regions.h"
#include "tally_stat.h"
#include "trace_consumer.h"
#include "trace_reader.h"

/* A device table row: a kernel (by name) or a transfer (by API function), on one device. */
struct tally_device {
  char *name; /* owned */
  int kind;   /* enum tracer_command_kind */
  struct tally_stat time;
  uint64_t bytes, min_bytes, max_bytes;
  /* The device (device_label.h: "GPU 0: NVIDIA H100 80GB HBM3"), owned; NULL when the
   * trace names none (one device per backend); in a job, with the rank's host ("GPU 0:
   * NVIDIA H100 on node7": result_file.h, version 5). */
  char *device;
};

/* Whether two rows' devices are the same (NULL: the trace names none). */
static inline bool tally_same_device(const char *a, const char *b) {
  return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Adds a row of the same kernel or transfer from another tally (a worker's, a rank's). */
static inline void tally_device_merge(struct tally_device *into, const struct tally_device *from) {
  if (from->time.calls && (into->time.calls == 0 || from->min_bytes < into->min_bytes))
    into->min_bytes = from->min_bytes;
  if (from->max_bytes > into->max_bytes)
    into->max_bytes = from->max_bytes;
  tally_stat_merge(&into->time, &from->time);
  into->bytes += from->bytes;
}

enum { TALLY_NOTED = 8 };

/* A backend's arrays by function index are made at its first record: until then they
 * are NULL and function_count is 0, so that loops over `f < function_count` see none. */
struct tally_backend {
  const struct tracer_backend_desc *desc;
  struct tally_stat *host;     /* by function index; owned (one block with the others) */
  /* By function index: calls made inside a traced call of another backend, by that
   * call's library (trace_call.inside_other), set apart from the app's own (host) and
   * from the verdict, unless the run counts them (tally.runtime_calls); owned. */
  struct tally_stat *inside;
  uint64_t *unfinished;        /* by function index: calls that never returned; owned */
  uint64_t *message_bytes;     /* by function index: bytes of message calls (the
                                  function's tracer_message); owned */
  /* By function index: the time of its calls made at depth 0, in no other traced call
   * (a runtime call's driver calls are in it once): what the verdict adds up. owned */
  uint64_t *outer;
  uint32_t function_count;     /* the arrays' length: desc's, or 0 before the first record */
  struct tally_device *device; /* owned */
  size_t device_count, device_cap;
  struct id_set hosts, processes, threads, device_processes, device_threads;
  uint64_t events;
  /* The hosts, processes and threads whose calls were noted last (by thread id, direct
   * mapped): calls come in runs of a few threads that take turns, so the sets are not
   * searched again for each. */
  struct tally_noted {
    bool noted;
    int host;
    int64_t pid, tid;
  } noted[TALLY_NOTED];
};

struct tally {
  struct tally_backend *backends; /* by index in tracer_backends[]; owned */
  size_t backend_count;
  uint64_t events;          /* every event read */
  uint64_t own_events;      /* of them, the runtime's bookkeeping (clock_read, calibration) */
  uint64_t counted_calls;   /* calls of counted functions, tallied in blocks (no event each) */
  uint64_t batched_calls;   /* minimal mode's calls, in batch events (several an event) */
  uint64_t batch_events;    /* those batch events (counted in `events` too) */
  uint64_t trace_bytes;     /* the streams' sizes, summed */
  /* What one trace clock read costs, in ns (lttng_ust_tracer:clock_read; the least over
   * the run's processes): taken off every call's time, which holds one read. */
  uint64_t clock_read_ns;
  bool has_clock_read;
  /* What a counted call's clock reads cost on average, in ps (clock_read's counted_ps:
   * two reads of the counting clock, one call in 16); 0 when the trace does not say (before
   * 2026-11: two trace clock reads a call). For the cost of tracing only. */
  uint64_t counted_call_ps;
  /* The calibration, when this run made it (lttng_ust_tracer:calibration). */
  uint64_t calibration_event_ps, calibration_byte_ps, calibration_call_ps;
  bool has_calibration;
  bool clock_is_tsc;        /* the calibration's clock: the tracer's TSC, else monotonic */
  uint64_t discarded;       /* events the tracer dropped, from the packet contexts */
  struct tally_loss {
    char *stream;           /* the stream file; owned */
    uint64_t discarded;
  } *losses;                /* streams that lost events; owned */
  size_t loss_count;
  char **hostnames;         /* by host index; owned */
  size_t host_count;
  char *error;              /* first stream error, or NULL; the rest of the trace was read */
  /* Packets the trace should hold and does not (trace_reader.h), set after the read;
   * borrowed, NULL or count 0: none. */
  const struct trace_losses *missing;
  struct regions regions;   /* named regions of every backend */
  uint64_t pauses, paused_ns; /* times the recording was paused, and for how long in all */
  char **notices;           /* distinct notices (lttng_ust_tracer:notice), in the order
                               first seen; owned */
  size_t notice_count;
  struct tally_rank {       /* processes started with a launcher's rank (`tracer torchrun`) */
    int host;
    int64_t pid;
    long rank, size;
    char launcher[32];
  } *ranks;                 /* owned; their actors get the rank when the read ends */
  size_t rank_count;
  struct actors actors;     /* per thread (tally_open with by_actor), else empty */
  bool by_actor;            /* actors are being collected */
  /* A library's own calls (trace_call.inside_other) count as the app's: --runtime-calls,
   * now or when the run was made. Set before the read. */
  bool runtime_calls;
};

/* The least of two counted call costs, 0 being unknown. */
static inline uint64_t counted_cost_least(uint64_t a, uint64_t b) {
  return !a ? b : !b ? a : a < b ? a : b;
}

/* An empty tally (per actor too when by_actor) and its consumer for a read: after the
 * read, the tally is whole, its error the read's first one (the rest was counted).
 * Returns 0, or -1 when out of memory. */
int tally_open(struct tally *tally, bool by_actor, struct trace_consumer *consumer);
/* The tally of the trace in a read of its own. Returns 0 (part of the trace may not have
 * been read: tally->error), or -1 with a cause in d when nothing could be tallied. */
int tally_trace(struct trace_reader *reader, const struct trace_read_options *options,
                bool by_actor, struct tally *tally, struct diag *d);
void tally_free(struct tally *tally);
/* An empty tally of every backend, to fill from elsewhere than a read (a saved result),
 * every backend's arrays made. Returns 0, or -1 when out of memory (tally_free it then too). */
int tally_empty(struct tally *tally);
/* Makes b's arrays by function index (tally_backend.function_count then desc's), unless
 * made. Returns 0, or -1 when out of memory. */
int tally_backend_arrays(struct tally_backend *b);
/* b's device row of the kernel or transfer name (enum tracer_command_kind) on device
 * (NULL: none named), added empty when b has none. NULL when out of memory. */
struct tally_device *tally_device_row(struct tally_backend *b, const char *name, int kind,
                                      const char *device);
/* The function (the index in its backend's desc) a call is tallied under: its own, or
 * the row of its param's value for a function tallied per value (trace.rows), whose
 * name is "FUNCTION:VALUE". */
int tally_call_row(const struct trace_call *call);

/* Whether any backend of the tally ran device commands. */
bool tally_has_device_work(const struct tally *tally);

/* Adds a notice (its text, len bytes) unless tally has it. Returns 0, or -1 out of memory. */
int tally_add_notice(struct tally *tally, const char *text, size_t len);

/* Rows sorted for printing: host rows by time (then name), device rows likewise. */
void tally_sorted_host(const struct tally_backend *b, uint32_t *order);
void tally_sorted_device(const struct tally_backend *b, int kind, size_t *order, size_t *count);

#endif
