/* collectives_ties: which operation of the collectives table launched each kernel
 * (collectives.h says why and how). Fed the read's calls and device commands in time
 * order, it adds each kernel's device time to the row of the operation that launched
 * it, or shares it among the operations of the group whose end launched it.
 *
 * A launch call (meaning kernel_launch) waits in a ring of the last COLLECTIVES_LAUNCHES
 * for two things, which come in either order: the call that encloses it on its thread
 * (an operation, a group's end, or any outermost call, which means none), and its kernel
 * (by the kernel's submitting call, or by order). An operation inside an open group
 * (group_begin ... group_end on its thread) joins the group, with its size.
 */
#ifndef TRACER_COLLECTIVES_TIES_H
#define TRACER_COLLECTIVES_TIES_H

#include "collectives.h"

struct ties;

/* Ties for the rows of table (borrowed). NULL when out of memory. */
struct ties *ties_new(struct collectives *table);
void ties_free(struct ties *t);

/* A call of the read (its times with TRACE_NEEDS_TIMES), and for an operation of the
 * table its row's index and size S (row -1 otherwise). Returns 0, or -1 when out of
 * memory. */
int ties_call(struct ties *t, const struct trace_call *c, long row, uint64_t size);
/* A device command of the read; only kernels are tied. Returns 0, or -1 when out of
 * memory. */
int ties_device(struct ties *t, const struct trace_device *d);

#endif
