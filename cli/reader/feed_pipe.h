/* feed_pipe: runs a timeline_feed consumer on a thread of its own, so that reading and
 * decoding the trace (the feed's thread) and what the consumer does with each record
 * (encoding and writing a timeline) take two cores instead of one.
 *
 * The pipe copies each record, its arguments and their strings into a bounded ring
 * (FEED_PIPE_SLOTS records), so memory stays fixed; names that live as long as the
 * trace (function, argument and host names) are passed as they are. Records reach the
 * consumer in the order the feed made them. */
#ifndef TRACER_FEED_PIPE_H
#define TRACER_FEED_PIPE_H

#include "timeline_feed.h"

struct feed_pipe;

/* Starts the consumer thread for `downstream`; *upstream is what to give timeline_feed.
 * Returns 0, or -1 when the thread cannot start (then use downstream directly). */
int feed_pipe_open(const struct feed_consumer *downstream, struct feed_pipe **pipe,
                   struct feed_consumer *upstream);
/* Waits until the consumer has taken every record, stops its thread and frees the pipe.
 * Returns the first non-zero status of the consumer's callbacks, else 0. */
int feed_pipe_close(struct feed_pipe *pipe);

#endif
