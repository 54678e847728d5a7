/* line_order: puts `tracer -t` lines back in time order. A call is one event written when
 * it returns, so its entry line comes out of the trace late, after the lines of calls
 * nested in it. Lines wait here until no event still to come can precede them:
 *   - a nested call's lines (depth > 0) wait with their thread until the thread's
 *     outermost call returns, so nested calls print inside their caller;
 *   - every line waits in a time-ordered heap until the trace's read position passes its
 *     time.
 * A thread's lines are therefore in start order and nested as the calls were. Across
 * threads, an outermost call's entry line can only be placed when the call returns:
 * another thread's lines from meanwhile may precede it.
 */
#ifndef TRACER_LINE_ORDER_H
#define TRACER_LINE_ORDER_H

#include <stdint.h>
#include <stdio.h>

struct line_order;

struct line_order *line_order_new(FILE *out);

/* A line of its own (not a call's), at time `at`. Takes ownership of text. */
int line_order_add(struct line_order *o, uint64_t at, char *text);

/* A call's two lines: entry at `start`, exit ordered at `exit_at` (the event's
 * timestamp). thread identifies host, process and thread. Takes ownership of both. */
int line_order_add_call(struct line_order *o, uint64_t thread, unsigned depth, uint64_t start,
                        char *entry, uint64_t exit_at, char *exit);

/* Prints every line that nothing after `now` (the trace's read position) can precede. */
void line_order_flush(struct line_order *o, uint64_t now);

/* Prints what is left and frees everything. */
void line_order_finish(struct line_order *o);

#endif
