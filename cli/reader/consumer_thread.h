/* consumer_thread: runs consumers on a thread of their own, so that reading and decoding
 * the trace (the reader's thread) and what they do with each record (encoding and
 * writing a timeline) take two cores instead of one. The reader opens one when it reads
 * in time order with a core to spare (trace_reader.c).
 *
 * Calls, device commands, regions, ranks and samples are copied, with their arguments,
 * slots (for a consumer that needs them) and strings, into a bounded ring, so memory
 * stays fixed; names that live as long as the trace (function, argument and host names)
 * are passed as they are. The records reach the consumers in the order the reader made
 * them, each record to every consumer in the order given, without their event
 * (trace_source.event is NULL). */
#ifndef TRACER_CONSUMER_THREAD_H
#define TRACER_CONSUMER_THREAD_H

#include <stdbool.h>

#include "trace_consumer.h"

struct consumer_thread;

/* Whether the ring carries all that c takes: its callbacks are among call, device,
 * region, rank, sample, finish (and fork and join, which a read in time order leaves
 * alone), and it needs no raw event nor horizon. */
bool consumer_thread_can_take(const struct trace_consumer *c);

/* Starts the thread for the n consumers (each one that consumer_thread_can_take());
 * *upstream is the one consumer to give the read in their place: it needs what they
 * need, and has no finish(). Returns 0, or -1 when the thread cannot start or one of
 * them cannot be taken: then give the read the consumers themselves. */
int consumer_thread_open(const struct trace_consumer *const *downstream, size_t n,
                         struct consumer_thread **thread, struct trace_consumer *upstream);

/* Waits until the consumers have taken every record, stops the thread and frees it; call
 * their finish() after. Returns the first non-zero status of their callbacks, else 0. */
int consumer_thread_close(struct consumer_thread *thread);

#endif
