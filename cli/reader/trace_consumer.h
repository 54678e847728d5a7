/* trace_consumer: what the reader (trace_reader.h) hands out, and to whom.
 *
 * The reader decodes each event of a trace once into a typed record and calls, for each
 * consumer of the read, the callback of that record's kind: a finished host call, a
 * device command, a named region that closed, ... A consumer is a set of callbacks with
 * a context, in the spirit of perf's `struct perf_tool`: a report (the tally, -t, the
 * gaps), an export (the timeline) or a reduction (an MPI rank's result). Every callback
 * may be NULL; a non-zero return stops the read (the consumer keeps its own cause).
 *
 * Records and what they point to are borrowed: valid during the callback only, except
 * the names of functions, arguments and hosts (static data, or the trace's own), which
 * live as long as the trace is open.
 *
 * Times: each record has its times as the trace clock recorded them (`*_clock`) and its
 * duration in ns (`duration_ns`, the tally's figure). With TRACE_NEEDS_TIMES it also has
 * them as wall-clock ns (each trace's clock offset applied), which is what aligns the
 * ranks of several nodes (docs/timeline.md): `start`, `end`, and the event's own `time`.
 */
#ifndef TRACER_TRACE_CONSUMER_H
#define TRACER_TRACE_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf.h"
#include "event_map.h"
#include "trace_arg.h"
#include "trace_stacks.h"

/* What a consumer needs from the read (struct trace_consumer.needs). */
enum trace_need {
  /* Records in the trace's time order: the streams are merged, one thread reads. Without
   * it, the streams are read one by one, on several threads when every consumer can
   * fork (below), in no particular order across streams. */
  TRACE_NEEDS_ORDER = 1u << 0,
  TRACE_NEEDS_TIMES = 1u << 1,   /* wall-clock times (start, end, time) */
  TRACE_NEEDS_ARGS = 1u << 2,    /* a call's arguments, decoded (slower) */
  /* horizon(): minimal mode's batches come after their calls; with a read in time
   * order, says up to when nothing still to come can start (a first look at the
   * batches is made for it). */
  TRACE_NEEDS_HORIZON = 1u << 3,
  TRACE_NEEDS_SLOTS = 1u << 4,   /* all of a call's record slots (ARGS implies it) */
  /* The raw event (trace_source.event) in call and other: in a read in time order on
   * several threads, what the consumer does with it is done by its prepare_call and
   * prepare_other on the threads that decode (see below); without those the read takes
   * one thread. */
  TRACE_NEEDS_EVENT = 1u << 5,
  /* call() reads some calls' record itself, with trace_call_record() (a message's bytes,
   * a per-value row): they must come with their event, or with every slot copied. Such a
   * consumer stays on a thread that decodes (consumer_thread.h says why). */
  TRACE_NEEDS_RECORD = 1u << 6,
  /* A call's strings of full mode as its arguments, its slots left undecoded (ARGS
   * implies it): the reader's own, for consumers beside the read, which decode the
   * slots on their thread (consumer_thread.h). */
  TRACE_NEEDS_STRINGS = 1u << 7,
};

/* What a consumer's prepare_call or prepare_other made of a record: bytes appended with
 * trace_bytes_put() (the reader owns them). */
struct trace_bytes;
int trace_bytes_put(struct trace_bytes *bytes, const void *data, size_t size);

/* The event a record was decoded from. `event` is NULL for a consumer on a thread of its
 * own (consumer_thread.h) and in a read in time order on several threads
 * (trace_reader.h): read what is needed in the callback, or in prepare_call and
 * prepare_other, whose bytes are then in `prepared` (NULL when none were made). */
struct trace_source {
  const struct ctf_event *event;
  const struct event_info *info;
  int host;                     /* index in the read's hosts (trace_summary.hosts) */
  const char *host_name;        /* the trace's hostname, "unknown" when it has none */
  uint64_t time;                /* TRACE_NEEDS_TIMES: the event's time, wall-clock ns */
  const void *prepared;         /* this consumer's prepare_*() bytes for the record */
  size_t prepared_size;
};

/* A host call, written when it returned (docs/trace-format.md), or one of a minimal-mode
 * batch of a thread's calls. */
struct trace_call {
  struct trace_source from;
  const struct tracer_backend_desc *desc;
  int backend;                  /* index in tracer_backends[] */
  int function;                 /* index in desc->functions */
  int64_t pid, tid;
  unsigned depth;               /* traced calls the thread was already in */
  /* Made inside a traced call of another backend, by that call's library (hwloc's
   * OpenCL probe inside MPI_Init, the CUDA runtime's driver calls): not the app's own
   * (docs/trace-format.md). The tally sets it apart unless asked (--runtime-calls). */
  bool inside_other;
  int64_t status;               /* its low 32 bits as recorded */
  bool has_status;              /* the function gives a status */
  bool failed;                  /* a status other than success (event_map_call_failed) */
  bool batched;                 /* from a batch: its record is its head alone */
  uint64_t start_clock, end_clock; /* trace clock, read right around the real call */
  uint64_t duration_ns;         /* end - start in ns; one clock read is in it */
  /* TRACE_NEEDS_TIMES: wall-clock ns; end less one clock read (the least measured so far
   * in the read, lttng_ust_tracer:clock_read). */
  uint64_t start, end;
  /* Where a call that submitted device work came from (trace_stacks.h): its Python and
   * native frames; NULL for other calls, and when the run kept no stacks. */
  const struct trace_stack *stack;
  const uint64_t *slots;        /* the record's slots read: its head, all with ARGS */
  size_t slot_count;
  /* TRACE_NEEDS_ARGS: the arguments as passed, then the result, status and out values
   * (absent where their pointer was NULL); full mode's strings after them. Strings taken
   * from the trace lie in text[0, text_used); the others (names of values) are static. */
  const struct trace_arg *args;
  size_t arg_count;
  const char *text;
  size_t text_used;
};

/* Up to max slots of the call's record into slots (the head, and beyond for a call of
 * its own event; without the event, those copied with the call); returns how many (0
 * when unreadable). A consumer that calls it needs TRACE_NEEDS_RECORD. */
size_t trace_call_record(const struct trace_call *call, uint64_t *slots, size_t max);

/* A command a device ran (lttng_ust_tracer:device_command): a kernel, a copy, or another
 * command, with the call that submitted it where the trace says. */
struct trace_device {
  struct trace_source from;
  const struct tracer_backend_desc *desc; /* NULL when the backend is not compiled in */
  int backend;                  /* index in tracer_backends[], -1 when not compiled in */
  int64_t pid, tid;             /* who recorded it (0 when !has_ids) */
  bool has_ids;
  int kind;                     /* enum tracer_command_kind */
  const char *name;             /* kernel name, or the enqueue function's (NUL-terminated) */
  size_t name_len;
  uint64_t bytes, queue;
  /* The device it ran on (docs/trace-format.md): its ordinal in the backend's numbering,
   * -1 when the trace does not say (one device per backend), and its name as the driver
   * gave it ("" when unknown; NUL-terminated). */
  int device;
  const char *device_name;
  size_t device_name_len;
  uint64_t start_clock, end_clock, duration_ns;
  uint64_t start, end;          /* TRACE_NEEDS_TIMES */
  /* The submitting call (docs/trace-format.md: call_tid, call_start): its thread, 0 when
   * unknown, and its start (TRACE_NEEDS_TIMES). */
  int64_t call_tid;
  uint64_t call_start;
  const struct trace_stack *stack; /* the submitting call's stack; NULL when unknown */
};

/* A named region of one thread (ITT tasks, NVTX ranges: any backend's trace.regions),
 * when it closed. */
struct trace_region {
  struct trace_source from;
  int64_t pid, tid;
  bool has_ids;
  const char *backend, *name;   /* as recorded; NUL-terminated */
  size_t backend_len, name_len;
  unsigned depth;               /* 0: the outermost open region of its thread */
  uint64_t start_clock, end_clock, duration_ns;
  uint64_t start, end;          /* TRACE_NEEDS_TIMES */
};

/* The recording was paused (lttng_ust_tracer:paused) for this span. */
struct trace_pause {
  struct trace_source from;
  uint64_t start_clock, end_clock, duration_ns;
};

/* Calls of a counted function on one thread, added up (lttng_ust_tracer:counted). */
struct trace_counted {
  struct trace_source from;
  const struct tracer_backend_desc *desc;
  int backend, function;
  int64_t pid, tid;
  int64_t status;
  bool failed;
  bool inside_other; /* made inside another backend's calls (trace_call's) */
  uint64_t calls, total_ns, min_ns, max_ns;
};

/* A call that never returned (lttng_ust_tracer:unfinished). */
struct trace_unfinished {
  struct trace_source from;
  const struct tracer_backend_desc *desc;
  int backend, function;
};

/* A sentence for the report (lttng_ust_tracer:notice): why a backend records nothing, or
 * what it leaves out by default. */
struct trace_notice {
  struct trace_source from;
  const char *backend, *text;   /* as recorded; NUL-terminated */
  size_t backend_len, text_len;
};

/* A process's rank in a job, from its launcher's variables when it started
 * (lttng_ust_tracer:rank): a trace of a launcher and its ranks is split by these. */
struct trace_rank {
  struct trace_source from;
  int64_t pid;
  const char *launcher;         /* "torchrun", "Open MPI", ...; NUL-terminated */
  long rank, size, local_rank, local_size; /* -1 when the launcher does not say */
};

/* A device counter's value, read by the sampler beside the app (lttng_ust_sampler:sample,
 * `tracer --sample`), or, with `why` set, a management library it could not use
 * (lttng_ust_sampler:unavailable: no device, value and unit). */
struct trace_sample {
  struct trace_source from;
  const char *backend;          /* the spec whose library was read: "nvml" */
  uint32_t device;              /* the device's index in that library */
  const char *device_name;      /* as the library names it */
  const char *counter, *unit;   /* "power", "W" */
  double value;
  uint64_t clock;               /* the event's time on the trace clock */
  const char *why;              /* unavailable: why; NULL for a value */
};

/* The GPU's samples of one instruction of a kernel's function, found stalled for one
 * reason (lttng_ust_tracer:pc_sample, `tracer --pc-sampling`): those taken since the
 * function's previous event of that instruction and reason, in the process pid. */
struct trace_pc_sample {
  struct trace_source from;
  int64_t pid, tid;             /* the process, and the thread that gathered them */
  const char *function;         /* as device commands name kernels (NUL-terminated) */
  size_t function_len;
  uint64_t pc_offset;           /* the instruction's offset in the function */
  const char *stall;            /* CUPTI's reason less its counter's prefix: long_scoreboard */
  size_t stall_len;
  uint64_t samples;
};

/* The runtime's measures of itself: what one clock read costs, and the calibration. */
enum trace_cost_kind { TRACE_COST_CLOCK_READ, TRACE_COST_CALIBRATION };
struct trace_cost {
  struct trace_source from;
  enum trace_cost_kind kind;
  uint64_t clock_read_ns;       /* a clock read */
  uint64_t counted_ps;          /* a clock read: a counted call's measured cost; 0: unknown */
  uint64_t event_ps, byte_ps, call_ps; /* the calibration (call_ps 0: unknown) */
  bool clock_is_tsc;            /* the calibration's clock is the tracer's TSC */
};

/* A stream once read: what the tally counts of every stream. */
struct trace_stream_stats {
  size_t index;                 /* ctf_trace_stream() */
  const char *path;
  int host;
  uint64_t events;              /* every event read */
  uint64_t own_events;          /* of them, the runtime's bookkeeping (clock reads,
                                   calibration and its samples) */
  uint64_t batch_events;        /* of them, minimal mode's batches holding calls */
  uint64_t discarded;           /* events the tracer dropped (the packets' counts) */
  uint64_t bytes;               /* the stream file's size */
};

/* The read as a whole, at its end. */
struct trace_summary {
  /* TRACE_NEEDS_TIMES: the first and last event, in ns (with a window, of those that
   * held a record inside it) */
  uint64_t first, last;
  uint64_t events;
  const char *error;            /* the first error met (the rest was read), or NULL */
  const char *const *hosts;     /* hostnames by host index */
  size_t host_count;
};

/* finish()'s answer when the consumer needs the whole trace once more: the reader then
 * hands it every record again (a second pass, for it alone) and calls finish again. */
enum { TRACE_READ_AGAIN = 1 };

struct trace_consumer {
  const char *name;             /* for messages: "tally", "timeline", ... */
  unsigned needs;               /* enum trace_need */
  void *context;
  /* Reading stream by stream on several threads: fork() makes a worker's own context,
   * join() adds it back into context and frees it (workers join in a fixed order).
   * Without them the read takes one thread. A consumer that needs order is forked only
   * for its prepare_*() (below). */
  void *(*fork)(void *context);
  int (*join)(void *context, void *worker);
  /* In a read in time order on several threads, the part of the work on a call or an
   * `other` event that needs no order (formatting it, say), done on the thread that
   * decoded it, with a context from fork() and the raw event at hand: what it appends
   * to `out` reaches call() or other() in time order as trace_source.prepared. A read on
   * one thread calls neither: call() and other() then get the event. */
  int (*prepare_call)(void *worker, const struct trace_call *call, struct trace_bytes *out);
  int (*prepare_other)(void *worker, const struct trace_source *event, struct trace_bytes *out);
  int (*call)(void *context, const struct trace_call *call);
  int (*device)(void *context, const struct trace_device *device);
  int (*region)(void *context, const struct trace_region *region);
  int (*pause)(void *context, const struct trace_pause *pause);
  int (*counted)(void *context, const struct trace_counted *counted);
  int (*unfinished)(void *context, const struct trace_unfinished *unfinished);
  int (*cost)(void *context, const struct trace_cost *cost);
  int (*notice)(void *context, const struct trace_notice *notice);
  int (*rank)(void *context, const struct trace_rank *rank);
  int (*sample)(void *context, const struct trace_sample *sample);
  int (*pc_sample)(void *context, const struct trace_pc_sample *sample);
  /* Every event not handed out as a call, raw (device commands and regions too; never
   * the calibration's samples), for a consumer that shows events. */
  int (*other)(void *context, const struct trace_source *event);
  /* TRACE_NEEDS_HORIZON: after each event, a trace clock value before which nothing
   * still to come can start. */
  int (*horizon)(void *context, uint64_t until_clock);
  int (*stream_done)(void *context, const struct trace_stream_stats *stream);
  /* After the last record: 0, TRACE_READ_AGAIN, or non-zero to fail the read. */
  int (*finish)(void *context, const struct trace_summary *summary);
};

#endif
