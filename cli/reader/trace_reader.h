/* trace_reader: the one loop over a trace's events. It opens a trace (its CTF streams and
 * the event map that says what each event is), reads it once and hands every event,
 * decoded once, to each consumer of the read (trace_consumer.h).
 *
 * How it reads follows what the consumers need: when one needs time order, the streams
 * are merged and every consumer gets every record in time order, on the calling
 * thread, the streams decoded ahead on threads of their own when there are several
 * (reader_ordered.c: what each consumer gets is what one thread gives it); otherwise each stream is read on its own, the streams shared out over worker
 * threads (largest first, to the least loaded), each worker with its own copy of every
 * consumer, joined back in worker order at the end. Decoding an event is the same in
 * both ways (reader_decode.c); only the order differs.
 *
 * Errors: a stream that cannot be read (a damaged packet, a cut file) does not stop the
 * read: the rest is read and the first error is in the summary and in the result.
 */
#ifndef TRACER_TRACE_READER_H
#define TRACER_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf.h"
#include "diag.h"
#include "event_map.h"
#include "trace_consumer.h"
#include "trace_window.h"

struct trace_reader;

/* Opens the trace in dir (a folder holding metadata, or above such folders). Returns 0,
 * or -1 with a cause in d. */
int trace_reader_open(const char *dir, struct trace_reader **reader, struct diag *d);
void trace_reader_close(struct trace_reader *reader);

const struct ctf_trace *trace_reader_trace(const struct trace_reader *reader);
const struct event_map *trace_reader_map(const struct trace_reader *reader);
/* The sum of the stream files' sizes. */
uint64_t trace_reader_bytes(const struct trace_reader *reader);

/* From now on, every read hands out only the records inside window (trace_window.h),
 * which the caller keeps until the reader closes or another is set; NULL: the whole
 * trace again. */
void trace_reader_set_window(struct trace_reader *reader, const struct trace_window *window);

/* How a read went (its first pass). */
struct trace_read_report {
  bool ordered;       /* in time order */
  unsigned threads;   /* the threads that decoded */
  unsigned beside;    /* consumers that ran on a thread of their own beside them */
  char beside_names[160]; /* their names, joined with ", " */
};

struct trace_read_options {
  unsigned threads;   /* threads that decode (0: one per core); at most one per stream */
  struct trace_read_report *report; /* filled when not NULL */
  /* Called on the calling thread about five times a second while the read goes on, and
   * once at its end (finished): how much of the streams' bytes was read. NULL: none. */
  void (*progress)(void *context, uint64_t done, uint64_t total, bool finished);
  void *progress_context;
};

enum trace_read_status {
  TRACE_READ_OK,
  TRACE_READ_PARTIAL, /* part of the trace could not be read; the rest was handed out */
  TRACE_READ_FAILED,  /* a consumer stopped the read, or out of memory */
};

/* Reads the whole trace once for these consumers (each called as its needs say), then
 * calls their finish(), and reads again for those that ask. A cause is added to d for
 * TRACE_READ_PARTIAL (the first error) and TRACE_READ_FAILED. */
enum trace_read_status trace_read(struct trace_reader *reader,
                                  const struct trace_consumer *const *consumers, size_t n,
                                  const struct trace_read_options *options, struct diag *d);

#endif
