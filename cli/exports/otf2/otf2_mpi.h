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
 * Peers and roots are ranks of MPI_COMM_WORLD (the hooks translate them, for the job's
 * matrix) and every record names the world communicator (comm 0); the communicator the
 * app passed is an attribute of the record ("MPI communicator handle"). A call that
 * failed, a send to a negative rank (MPI_PROC_NULL) and minimal mode's calls (no values
 * recorded) have none. Bytes sent and received are both the call's bytes (its count
 * times its datatype's size, as recorded). Completions through an array of requests (MPI_Waitall) name no
 * request, so those requests get no completion record. */
#ifndef TRACER_OTF2_MPI_H
#define TRACER_OTF2_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "call_stacks.h"
#include "key_map.h"
#include "tracer_backend_desc.h"

/* The requests started and not yet completed, per location. */
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
  uint64_t records;             /* MPI records written */
};

/* A message call's values for its frame (payload[0] 0: none). */
void otf2_mpi_payload(const struct trace_call *call, uint64_t payload[STACK_PAYLOAD]);

/* The region role of a function (its message kind and collective operation). */
OTF2_RegionRole otf2_mpi_role(const struct tracer_function_desc *function);

/* The records a call's frame gets when it begins (enter) or ends; attributes: the
 * writer's list, attribute: the communicator handle's. Return an OTF2 error code. */
OTF2_ErrorCode otf2_mpi_enter(struct otf2_mpi *m, OTF2_EvtWriter *writer, uint64_t location,
                              const struct stack_frame *frame, OTF2_AttributeList *attributes,
                              OTF2_AttributeRef attribute);
OTF2_ErrorCode otf2_mpi_leave(struct otf2_mpi *m, OTF2_EvtWriter *writer, uint64_t location,
                              const struct stack_frame *frame, OTF2_AttributeList *attributes,
                              OTF2_AttributeRef attribute);

/* Whether the call's function sends MPI records (a message kind the records cover). */
bool otf2_mpi_has_records(const struct tracer_function_desc *function);

void otf2_mpi_reset(struct otf2_mpi *m);
void otf2_mpi_free(struct otf2_mpi *m);

#endif
