/* comm_peers: sends whose peer is a rank of a communicator that the trace names by an id
 * all its ranks share (trace.communicators' `id`: NCCL's), kept until the job knows which
 * of its ranks holds each rank of those communicators; then the job's message matrix
 * gets them in the job's ranks (docs/nccl.md).
 *
 * A rank's result notes its own place in each such communicator (a member) and its sends
 * by communicator, sender (its rank in the job) and peer (a rank of the communicator).
 * Both merge exactly, like the rest of a job's result; memory grows with communicators x
 * ranks and with the distinct (communicator, sender, peer), not with the messages.
 */
#ifndef TRACER_COMM_PEERS_H
#define TRACER_COMM_PEERS_H

#include <stddef.h>
#include <stdint.h>

struct comm_member {
  uint64_t comm;  /* the communicator's id; never 0 */
  long comm_rank; /* a rank of the communicator */
  long rank;      /* the rank of the job that holds it */
};

struct comm_send {
  uint64_t comm;
  long from, peer; /* the sender's rank in the job; the peer's in the communicator */
  uint64_t bytes, messages;
};

struct comm_peers {
  struct comm_member *members; /* owned */
  size_t member_count, member_cap;
  struct comm_send *sends; /* owned */
  size_t send_count, send_cap;
  size_t *member_index, *send_index; /* open addressing over each, by key; owned */
  size_t member_index_cap, send_index_cap;
};

/* Each returns 0, or -1 when out of memory. A member already known is kept. */
int comm_peers_add_member(struct comm_peers *p, uint64_t comm, long comm_rank, long rank);
int comm_peers_add_send(struct comm_peers *p, const struct comm_send *send);
int comm_peers_merge(struct comm_peers *into, const struct comm_peers *from);
/* The rank of the job that holds comm_rank of comm; -1 when no traced rank does. */
long comm_peers_rank_of(const struct comm_peers *p, uint64_t comm, long comm_rank);
void comm_peers_free(struct comm_peers *p);

#endif
