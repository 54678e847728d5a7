/* otf2_mpi: a message call's OTF2 MPI records, from what the event metadata says of it
 * (trace.messages of the spec: struct tracer_message) and the values its record holds.
 *
 *   send, no request (MPI_Send, ...)   MpiSend when the call begins
 *   send with a request (MPI_Isend)    MpiIsend when it begins; MpiIsendComplete when a
 *                                      call that completes that request ends
 *   recv, no request (MPI_Recv)        MpiRecv when it ends
 *   recv with a request (MPI_Irecv)    MpiIrecvRequest when it begins; MpiIrecv when a
 *                                      call that completes that request ends
 *   collective (MPI_Bcast)             MpiCollectiveBegin when it begins, MpiCollectiveEnd
 *                                      (operation, root, bytes) when it ends
 *   non-blocking collective (MPI_Ibcast) NonBlockingCollectiveRequest when it begins;
 *                                      NonBlockingCollectiveComplete (operation, root,
 *                                      bytes) when a call that completes it ends
 *   send with a recv (MPI_Sendrecv)    MpiSend when it begins, MpiRecv when it ends
 *   complete through an array          per request it completed (lttng_ust_tracer:
 *   (MPI_Waitall, MPI_Waitany, ...)    completed), its completion record (a receive's
 *                                      sender and bytes from its status, when given)
 *   put, get (MPI_Put, MPI_Get)        RmaPut or RmaGet (window, target, bytes) when it
 *                                      begins; RmaOpCompleteBlocking when it ends
 *                                      (RmaOpCompleteNonBlocking with a request)
 *   RMA synchronization (trace.rma_sync, on a window the trace saw made):
 *     fence (MPI_Win_fence)            RmaCollectiveBegin, RmaCollectiveEnd (barrier,
 *                                      processes and memory)
 *     lock, lock_all                   RmaRequestLock (the target; all: none, shared)
 *                                      when the call begins
 *     unlock, unlock_all               RmaReleaseLock when it ends
 *     flush (MPI_Win_flush)            RmaSync (memory) when it ends
 *     free (MPI_Win_free)              RmaWinDestroy when it ends
 *   a call that made a window          RmaWinCreate when it ends
 * A record names the communicator the call passed when the trace has it made
 * (lttng_ust_tracer:group: its members as world ranks), with peers and roots as ranks in
 * it; otherwise the world (comm 0), with peers as world ranks (the hooks translate them,
 * for the job's matrix). The handle the app passed is an attribute of each record ("MPI
 * communicator handle"). A call that failed, a send to a negative rank (MPI_PROC_NULL)
 * and minimal mode's calls (no values recorded) have none. Bytes sent and received are
 * both the call's bytes (its count times its datatype's size, as recorded). */
#ifndef TRACER_OTF2_MPI_H
#define TRACER_OTF2_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include "call_stacks.h"
#include "key_map.h"
#include "otf2_defs.h"
#include "otf2_library.h"
#include "otf2_mpi_events.h"
#include "tracer_backend_desc.h"

/* The requests started and not yet completed, per location; the communicators and
 * windows each process made, by handle; the requests calls completed through arrays,
 * until their calls end. */
struct otf2_mpi {
  struct key_map by_request;    /* (location, request) -> index + 1 */
  struct otf2_request {
    uint64_t location, request;
    uint64_t peer, tag, bytes, comm;
    uint8_t kind;               /* enum tracer_message_kind; 0: free */
    OTF2_CollectiveOp op;       /* a non-blocking collective's */
    bool has_root;
  } *requests;
  uint32_t count, cap, free_head;
  struct key_map by_handle;     /* (pid, kind, handle) -> index in groups + 1 */
  struct otf2_group {
    uint32_t id;                /* comm id, or window id */
    uint32_t comm;              /* a window's comm id; a comm's own */
    uint32_t size;
    uint64_t *members;          /* world ranks; owned */
    char *name;                 /* owned */
  } *groups;
  uint32_t group_count, group_cap;
  struct key_map ordinals;      /* (pid, parent, members) -> communicators so made */
  struct key_map by_call;       /* (pid, tid, call start) -> index in completions + 1 */
  struct otf2_completed {
    uint64_t key;               /* 0: free */
    uint64_t *requests;         /* owned; then count senders and count bytes (statuses) */
    uint32_t count;
  } *completions;
  uint32_t completion_count, completion_cap;
  struct key_map windows_made;  /* (pid, tid, call start) -> window id + 1 */
  uint64_t rma_ops;             /* matching ids of RMA operations */
  uint64_t records;             /* MPI records written */
};

/* A message call's values for its frame (payload[0] 0: none), with the communicator or
 * window its handle names when the call is read (in time order, after the runtime events
 * before it). */
void otf2_mpi_payload(struct otf2_mpi *m, const struct trace_call *call,
                      uint64_t payload[STACK_PAYLOAD]);

/* The region role of a function (its message kind and collective operation). */
OTF2_RegionRole otf2_mpi_role(const struct tracer_function_desc *function);

/* A runtime event (otf2_mpi_events.h) with its values: a communicator or window made is
 * defined in defs; completions are kept for their call's end. Returns 0, -1 out of
 * memory. */
int otf2_mpi_event(struct otf2_mpi *m, struct otf2_defs *defs, const struct otf2_mpi_event *e,
                   const uint64_t *values);

/* The records a call's frame gets when it begins (enter) or ends, on thread (pid, tid)'s
 * location; attributes: the writer's list, attribute: the communicator handle's. Return
 * an OTF2 error code. */
OTF2_ErrorCode otf2_mpi_enter(struct otf2_mpi *m, OTF2_EvtWriter *writer, uint64_t location,
                              const struct stack_frame *frame,
                              OTF2_AttributeList *attributes, OTF2_AttributeRef attribute);
OTF2_ErrorCode otf2_mpi_leave(struct otf2_mpi *m, OTF2_EvtWriter *writer, uint64_t location,
                              int64_t pid, int64_t tid, const struct stack_frame *frame,
                              OTF2_AttributeList *attributes, OTF2_AttributeRef attribute);

/* Whether the call's function sends MPI records (a message kind the records cover). */
bool otf2_mpi_has_records(const struct tracer_function_desc *function);

void otf2_mpi_reset(struct otf2_mpi *m);
void otf2_mpi_free(struct otf2_mpi *m);

#endif
