/* consumer_thread: runs a consumer on a thread of its own, so that reading and decoding
 * the trace (the reader's thread) and what the consumer does with each record (encoding
 * and writing a timeline) take two cores instead of one.
 *
 * Calls, device commands and regions are copied, with their arguments and strings, into
 * a bounded ring (CONSUMER_THREAD_SLOTS records), so memory stays fixed; names that live
 * as long as the trace (function, argument and host names) are passed as they are. The
 * records reach the consumer in the order the reader made them, without their event
 * (trace_source.event is NULL) or slots. Its finish() runs once it has taken them all. */
#ifndef TRACER_CONSUMER_THREAD_H
#define TRACER_CONSUMER_THREAD_H

#include "trace_consumer.h"

struct consumer_thread;

/* Starts the thread for `downstream` (its call, device, region and finish callbacks);
 * *upstream is the consumer to give the read. Returns 0, or -1 when the thread cannot
 * start or downstream takes raw events (`other`, which the ring does not carry): then
 * give the read downstream itself. */
int consumer_thread_open(const struct trace_consumer *downstream,
                         struct consumer_thread **thread, struct trace_consumer *upstream);
/* Waits until the consumer has taken every record (when the read did not already finish
 * it), stops the thread and frees it. Returns the first non-zero status of the
 * consumer's callbacks, else 0. */
int consumer_thread_close(struct consumer_thread *thread);

#endif
