/* tracer_requests: work one call starts and another completes (MPI's non-blocking calls:
 * MPI_Isend, then MPI_Wait), and the bytes it moves, kept from the one to the other so
 * that the completing call's record says what it completed (trace.messages). The
 * generated code calls these with the requests' values as their records hold them.
 *
 * A process keeps at most TRACER_REQUESTS requests in flight (tracer_map.h, one lock);
 * past that, the bytes of new requests are not kept and their completions count 0 bytes.
 * A persistent request counts its bytes at its first completion only.
 *
 * Completions through an array are also written as an lttng_ust_tracer:completed event
 * (the requests completed, in array order, with what their statuses say when the call
 * gave them) just before the completing call's own event: the call's record holds no
 * array.
 */
#ifndef TRACER_REQUESTS_H
#define TRACER_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { TRACER_REQUESTS = 4096 };

/* A call that started request (when started: it succeeded) moving bytes: kept, and the
 * bytes returned, for its own record. */
uint64_t tracer_request_started(bool started, uint64_t request, uint64_t bytes);

/* The bytes of request, which a call completed: forgotten. 0 for a request not kept. */
uint64_t tracer_request_completed(uint64_t request);

/* The array of the completing call in progress on this thread (its requests as passed),
 * and what the statuses of those it completed say (sources, received: their sender and
 * bytes); grown, never shrunk. */
struct tracer_requests_kept {
  uint64_t *values;
  int32_t *sources;
  uint64_t *received;
  int64_t count, cap;
};
/* Initial-exec, as the runtime's other thread state: filled at every MPI_Testany poll. */
extern __thread struct tracer_requests_kept tracer_requests_kept
    __attribute__((tls_model("initial-exec")));

/* tracer_requests_before when the kept arrays must grow first (tracer_requests.c). */
void tracer_requests_keep(const void *requests, size_t size, bool is_signed, int64_t count);

/* A call that completes requests of an array (MPI_Waitall, MPI_Waitany, MPI_Testsome):
 * before it, the count requests of the array (elements of size bytes, sign-extended as the
 * records hold them when is_signed), kept for this thread, since the call resets those it
 * completes. Inline: a poll (MPI_Testany of one request, millions of times) pays a few
 * loads and stores, not a call. */
static inline void tracer_requests_before(const void *requests, size_t size, bool is_signed,
                                          int64_t count) {
  struct tracer_requests_kept *kept = &tracer_requests_kept;
  if (!requests || count <= 0 || count > kept->cap || (size != 8 && size != 4)) {
    tracer_requests_keep(requests, size, is_signed, count);
    return;
  }
  const char *element = requests;
  for (int64_t i = 0; i < count; i++, element += size) {
    if (size == 8) {
      memcpy(&kept->values[i], element, 8);
    } else {
      int32_t value;
      memcpy(&value, element, 4);
      kept->values[i] = is_signed ? (uint64_t)(int64_t)value : (uint64_t)(uint32_t)value;
    }
  }
  kept->count = count;
}

/* Which of them the call completed (when completed: it succeeded and said so). */
enum tracer_completed {
  TRACER_COMPLETED_ALL,     /* all of them (MPI_Waitall) */
  TRACER_COMPLETED_INDEX,   /* the one at index `which` (MPI_Waitany) */
  TRACER_COMPLETED_INDICES, /* the `which` ones at the indices of the array indices, whose
                               elements are signed integers of index_size bytes
                               (MPI_Waitsome) */
};

/* Reads the status at index of a call's array of statuses (trace.message_status): its
 * sender, a rank of its request's communicator (-1: none), and the bytes it received; false
 * when the call ignored them. Generated per backend (args.h). */
typedef bool tracer_status_read(void *statuses, int64_t index, int64_t *source, uint64_t *bytes);
/* After the call that started at call_start (the trace clock): the bytes of the requests
 * it completed, forgotten, and an lttng_ust_tracer:completed event naming them, for the
 * exports to match each with the call that started it. Indices out of the array (MPI_UNDEFINED)
 * name none. statuses (NULL, read NULL: none), one per request completed in the order the
 * call names them, add each one's sender and received bytes to the event. */
uint64_t tracer_requests_after(uint64_t call_start, bool completed, enum tracer_completed how,
                               int64_t which, const void *indices, size_t index_size,
                               void *statuses, tracer_status_read *read);

#endif
