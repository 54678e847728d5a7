/* call_args: a call's record slots as its arguments (trace_call.args): the arguments as
 * passed, then the result, the status and the out values (absent where their pointer was
 * NULL), each value shown by name where the spec names it. Not for consumers: the reader
 * decodes them where the events are read, or, for consumers beside the read
 * (consumer_thread.h), on their thread.
 *
 * A cache of each function's named slots (where each lies, its kind, its format), made at
 * the function's first call: one per thread that decodes (the value names it keeps are
 * its own). */
#ifndef TRACER_CALL_ARGS_H
#define TRACER_CALL_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "trace_arg.h"
#include "tracer_backend_desc.h"

struct call_args;

/* NULL when out of memory. */
struct call_args *call_args_new(void);
void call_args_free(struct call_args *cache);

/* Appends the named slots of a call of fd, whose record's slots are slots[0, n), to
 * args[*count, max), in the spec's order; *count grows by those added. */
void call_args_add(struct call_args *cache, const struct tracer_function_desc *fd,
                   const uint64_t *slots, size_t n, struct trace_arg *args, size_t *count,
                   size_t max);

#endif
