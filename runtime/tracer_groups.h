/* tracer_groups: groups of processes an API call made (an MPI communicator or window),
 * recorded with their members as ranks of the job, so that the exports can name the
 * group a later call passes (an OTF2 communicator) and its peers as ranks in it. The
 * backend's hooks work out the members (MPI: the group translated against the world's,
 * locally, with no communication) and call this; the runtime writes the
 * lttng_ust_tracer:group event (runtime/tracer_tracepoints.h).
 */
#ifndef TRACER_GROUPS_H
#define TRACER_GROUPS_H

#include <stdint.h>

/* SELF: the process's own communicator (MPI_COMM_SELF), which no call makes: recorded
 * once the library is initialized, its one member the process itself. */
enum tracer_group_kind {
  TRACER_GROUP_COMMUNICATOR = 0,
  TRACER_GROUP_WINDOW = 1,
  TRACER_GROUP_SELF = 2,
};

/* The call that started at call_start made handle from the communicator from: its size
 * members, in the order of their ranks in it, as ranks of the job (-1: outside it);
 * members NULL when they are the job's ranks in order. Nothing while the recording only
 * counts. */
void tracer_group_made(enum tracer_group_kind kind, uint64_t handle, uint64_t from,
                       uint64_t call_start, int32_t size, const int32_t *members);

#endif
