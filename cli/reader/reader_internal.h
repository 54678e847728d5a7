/* reader_internal: what the reader's files share. Not for consumers.
 *
 * A decoder turns events into records and hands them to its targets (each consumer
 * with the context it gets: its own, or a worker's copy). One decoder per thread that
 * reads: its scratch space and clock state are its own. */
#ifndef TRACER_READER_INTERNAL_H
#define TRACER_READER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "trace_consumer.h"
#include "trace_reader.h"
#include "trace_stacks.h"
#include "trace_window.h"

enum { READER_MAX_ARGS = 24, READER_TEXT_BYTES = 1024, READER_MAX_FIELDS = 256,
       READER_MAX_SLOTS = 256, READER_CALL_TARGETS = 16, READER_STACK_CACHE = 64 };

/* Fields the event map does not name, by event class index: a device command's
 * submitting call and device, a region's depth; -1 when absent. */
struct reader_extra_fields {
  int call_tid, call_start, depth, device, device_name, call_stack;
};

struct trace_reader {
  struct ctf_trace *trace;        /* owned */
  struct event_map map;
  struct reader_extra_fields *extra; /* by event class index; owned */
  const char **hosts;             /* hostnames by host index; the trace's strings */
  size_t host_count;
  int *stream_host;               /* host index by stream index; owned */
  uint64_t bytes;                 /* the streams' sizes, summed */
  bool has_batches;               /* minimal mode's batch events are in the trace */
  /* The processes' least clock read cost in ns, from the run record (run_record.h), which
   * every decoder takes off call ends from the start: the clock_read events lie in one
   * stream each, and a read stream by stream would otherwise correct only the calls of
   * the streams read after them. has_clock_read_least: the record had it. */
  uint64_t clock_read_least_ns;
  bool has_clock_read_least;
  /* The stacks the records refer to, filled as their definitions are decoded
   * (trace_stacks.h); owned. */
  struct trace_stacks *stacks;
  const struct trace_window *window; /* borrowed; NULL: the whole trace */
  struct trace_losses losses;     /* reader_losses.c; its list owned */
  /* The events the last read found in each stream, by stream index (each written by the
   * one thread that read the stream), for the estimates of what is missing; owned. */
  uint64_t *stream_events;
  struct reader_loss_names {      /* the paths of stream files that are gone; owned */
    char **names;
    size_t count;
  } loss_names;
};

/* reader_losses.c: fills reader->losses when the trace is opened; -1: out of memory. */
int reader_losses_find(struct trace_reader *reader);
void reader_losses_free(struct trace_reader *reader);

struct reader_target {
  const struct trace_consumer *consumer;
  void *context;
};

/* What the tally counts of a stream, as it is read. */
struct reader_stream_count {
  uint64_t events, own_events, batch_events, discarded;
  uint64_t packet; /* index of the packet being read; UINT64_MAX before the first */
};

/* A target that takes calls, its callback read once: a call goes to each of them. */
struct reader_call_target {
  int (*call)(void *context, const struct trace_call *call);
  void *context;
};

struct decoder {
  const struct trace_reader *reader;
  const struct reader_target *targets;
  size_t target_count;
  struct reader_call_target call_targets[READER_CALL_TARGETS];
  size_t call_target_count;
  bool call_targets_all;          /* every call target is in call_targets */
  unsigned needs;                 /* of every target */
  int status;                     /* the first non-zero return of a target */
  /* Wall-clock conversion (TRACE_NEEDS_TIMES): the clock last seen and a reference
   * point on it, and the least clock read met so far, taken off each call's end. */
  const struct ctf_clock_class *clock;
  const struct ctf_clock_class *clock_ns; /* clock when it counts ns: its time is base + value */
  uint64_t clock_base;
  int64_t clock_base_ns;
  double clock_scale;
  uint64_t clock_read_ns;
  bool has_clock_read;
  /* Calls' ends are left as recorded (the least clock read is taken off them later, by
   * the thread that puts the records in time order: reader_ordered.c); the clock read
   * of the last event, if it was one, in event_clock_read. */
  bool defer_clock_read;
  bool event_has_clock_read;
  uint64_t event_clock_read;
  uint64_t time;                  /* the last event's time (TRACE_NEEDS_TIMES) */
  /* The reader's window (trace_window.h), NULL for none, and the process it found last. */
  const struct trace_window *window;
  size_t window_last;
  bool window_left_out;           /* the last event held a record outside the window */
  /* The call being handed out: the record, its slots, arguments and their strings. */
  struct trace_call call;
  uint64_t slots[READER_MAX_SLOTS];
  struct trace_arg args[READER_MAX_ARGS];
  char text[READER_TEXT_BYTES];
  struct call_args *arg_cache;     /* TRACE_NEEDS_ARGS (call_args.h); owned */
  struct ctf_value *values;       /* READER_MAX_FIELDS; owned */
  /* The stacks the last records named, by id (the table takes a lock). */
  struct reader_stack_cache {
    int host;
    int64_t pid;
    uint64_t id;
    const struct trace_stack *stack;
  } stack_cache[READER_STACK_CACHE];
};

int decoder_init(struct decoder *d, const struct trace_reader *reader,
                 const struct reader_target *targets, size_t count);
void decoder_free(struct decoder *d);

/* Decodes one event of stream host `host` and hands its records to the targets; counts
 * it in *count. Returns the targets' status (non-zero stops the read). */
int decoder_event(struct decoder *d, const struct ctf_event *ev, int host,
                  struct reader_stream_count *count);

/* The wall-clock ns of a trace clock value (TRACE_NEEDS_TIMES): inline for a clock of 1 GHz
 * seen last (three times a call), else decoder_time_slow(). */
uint64_t decoder_time_slow(struct decoder *d, const struct ctf_event *ev, uint64_t value);
static inline uint64_t decoder_time(struct decoder *d, const struct ctf_event *ev,
                                    uint64_t value) {
  if (d->clock_ns && ev->event_class->stream_class->clock == d->clock_ns)
    return (uint64_t)(d->clock_base_ns + (int64_t)value);
  return decoder_time_slow(d, ev, value);
}

/* A call's end less the least clock read met so far (TRACE_NEEDS_TIMES). */
static inline uint64_t decoder_end_less_clock_read(uint64_t start, uint64_t end,
                                                   uint64_t clock_read_ns) {
  return end - start > clock_read_ns ? end - clock_read_ns : start;
}

/* What one read found, for the summary and the result (trace_reader.c). */
struct read_state {
  const struct trace_reader *reader;
  const struct trace_read_options *options;
  struct trace_summary summary;
  char *error;           /* the first error met; owned */
  bool failed;           /* a consumer stopped the read, or out of memory */
  unsigned threads;      /* the threads that decoded */
  unsigned beside;       /* consumers on a thread of their own (consumer_thread.h) */
  char beside_names[160];
};

void reader_note_error(char **error, const char *message);
/* stream_done() of each target for a stream once read. */
void reader_hand_out_stream(const struct reader_target *targets, size_t n,
                            const struct trace_reader *reader, size_t stream,
                            const struct reader_stream_count *count);

/* After an event read in time order, for the targets that take it: minimal mode's
 * horizon (TRACE_NEEDS_HORIZON), the event's time held back to the earliest call of the
 * batches still to come (until[], reader_batch_horizons(); *batches_read counts those
 * met). Returns the first non-zero status of a target. */
int reader_hand_out_horizon(const struct reader_target *targets, size_t n,
                            const struct event_info *info, uint64_t timestamp,
                            const uint64_t *until, size_t batch_count, size_t *batches_read);

/* The progress of a read in time order, about five times a second: called once an event,
 * with each stream's read offset. */
struct reader_progress {
  uint64_t seen, last;
};
void reader_progress_step(struct read_state *st, struct reader_progress *progress,
                          const uint64_t *offsets, size_t streams);

/* The read in time order on several threads (reader_ordered.c). False when these
 * consumers or this trace cannot be read so (one stream, one thread, a consumer that
 * needs the event without a way to prepare): then nothing was read. */
bool reader_read_ordered_parallel(struct read_state *st, const struct reader_target *targets,
                                  size_t n);
/* The threads a read in time order takes to decode and merge (1: the calling thread
 * alone). */
unsigned reader_ordered_threads(const struct read_state *st);

/* minimal mode's batches: the horizon of each batch in read order (reader_horizon.c). */
uint64_t *reader_batch_horizons(const struct trace_reader *reader, size_t *count);

#endif
