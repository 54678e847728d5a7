/* consumer_thread: runs consumers on a thread of their own, so that reading and decoding
 * the trace (the reader's thread) and what they do with each record (encoding and
 * writing a timeline, the reports beside it) take two cores instead of one. The reader
 * opens one when it reads in time order with a core to spare (trace_reader.c).
 *
 * Every kind of record is copied, with its arguments, slots (for a consumer that needs
 * them) and strings, into a bounded ring, so memory stays fixed; names that live as long
 * as the trace (function, argument and host names, a stream's path) are passed as they
 * are. The records reach the consumers in the order the reader made them, each record to
 * every consumer in the order given, without their event (trace_source.event is NULL).
 * Raw events (`other`) and minimal mode's horizon are not carried. */
#ifndef TRACER_CONSUMER_THREAD_H
#define TRACER_CONSUMER_THREAD_H

#include <stdbool.h>

#include "trace_consumer.h"

struct consumer_thread;

/* Whether the ring carries all that c takes: it takes no raw event (`other`, or
 * TRACE_NEEDS_EVENT and its prepare_*()), no horizon, and reads no call's record itself
 * (TRACE_NEEDS_RECORD). (fork and join are left alone by a read in time order.) */
bool consumer_thread_can_take(const struct trace_consumer *c);

/* Starts the thread for the n consumers (each one that consumer_thread_can_take());
 * *upstream is the one consumer to give the read in their place: it needs what they
 * need, and has no finish(). With args_beside (no consumer left on the reading thread
 * decodes arguments), a call's arguments are decoded from its slots on the thread beside
 * the read: upstream needs the slots and full mode's strings (TRACE_NEEDS_STRINGS)
 * instead of TRACE_NEEDS_ARGS, which takes that work off the reading thread and a
 * call's arguments out of the ring. Returns 0, or -1 when the thread cannot start or one
 * of them cannot be taken: then give the read the consumers themselves. */
int consumer_thread_open(const struct trace_consumer *const *downstream, size_t n,
                         bool args_beside, struct consumer_thread **thread,
                         struct trace_consumer *upstream);

/* Waits until the consumers have taken every record, stops the thread and frees it; call
 * their finish() after. Returns the first non-zero status of their callbacks, else 0. */
int consumer_thread_close(struct consumer_thread *thread);

#endif
