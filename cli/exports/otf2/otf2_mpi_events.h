/* otf2_mpi_events: the runtime's events that the OTF2 MPI records need beside the calls
 * (runtime/tracer_tracepoints.h): lttng_ust_tracer:group, a communicator or window made
 * with its members, and lttng_ust_tracer:completed, the requests a call completed through
 * an array. Read from the raw event, on the thread that decodes it (prepare_other), into
 * a flat form that reaches the writer in time order. */
#ifndef TRACER_OTF2_MPI_EVENTS_H
#define TRACER_OTF2_MPI_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_consumer.h"

enum otf2_mpi_event_type { OTF2_MPI_EVENT_GROUP = 1, OTF2_MPI_EVENT_COMPLETED = 2 };

/* Followed by otf2_mpi_event_values uint64_t values: a group's members (world ranks,
 * signed), or the count requests completed, then what their statuses say: count senders
 * (ranks of their communicators, signed; -1: none, as when the call ignored its statuses
 * or the trace is older) and count bytes received. */
struct otf2_mpi_event {
  uint8_t type;                 /* enum otf2_mpi_event_type */
  uint8_t kind;                 /* a group's: enum tracer_group_kind */
  int32_t size;                 /* a group's members (count 0: the world's in order) */
  uint32_t count;
  int64_t pid, tid;
  uint64_t handle, from, call_start;
};

/* How many values follow e. */
static inline size_t otf2_mpi_event_values(const struct otf2_mpi_event *e) {
  return (size_t)e->count * (e->type == OTF2_MPI_EVENT_COMPLETED ? 3 : 1);
}

/* Whether ev is one of them. */
bool otf2_mpi_event_is(const struct ctf_event *ev);

/* ev (one of them) as its flat form appended to out; 0, or -1 out of memory. */
int otf2_mpi_event_prepare(const struct ctf_event *ev, struct trace_bytes *out);

/* ev as its flat form in *buffer (grown with realloc, *cap its size): 0; 1 when ev is
 * not one of them or unreadable; -1 out of memory. */
int otf2_mpi_event_read(const struct ctf_event *ev, void **buffer, size_t *cap);

#endif
