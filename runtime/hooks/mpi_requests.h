/* mpi_requests: the bytes of non-blocking MPI calls, kept from the call that starts a
 * request until the call that completes it, so that MPI_Wait, MPI_Waitall, MPI_Test and
 * MPI_Testall record the bytes they completed (trace.messages, kind complete). Shared by
 * the MPICH and Open MPI hooks, which include it once with MPI_Request defined by their
 * mpi.h; everything here is static.
 *
 * A process keeps at most REQUESTS requests in flight (open addressing, one lock); past
 * that, the bytes of new requests are not kept and their completions count 0 bytes.
 * MPI_Waitany, MPI_Waitsome, MPI_Testany, MPI_Testsome and MPI_Testall complete some
 * requests of an array, which ones only the library knows after the call: they count 0
 * bytes. A persistent request counts its bytes at its first completion only.
 */
#ifndef MPI_REQUESTS_H
#define MPI_REQUESTS_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

enum { REQUESTS = 4096 };

static struct {
  MPI_Request request;
  uint64_t bytes;
  int used;
} requests[REQUESTS];
static pthread_mutex_t requests_lock = PTHREAD_MUTEX_INITIALIZER;

/* What the calling thread's completion call completed, read when its event is written;
 * the request an MPI_Test in flight may complete. */
static __thread uint64_t completed_bytes;
static __thread MPI_Request testing;

static size_t request_slot(MPI_Request request) {
  uint64_t key = 0;
  memcpy(&key, &request, sizeof request < sizeof key ? sizeof request : sizeof key);
  return (size_t)((key * 0x9e3779b97f4a7c15u) >> 52) % REQUESTS;
}

static void request_started(MPI_Request request, uint64_t bytes) {
  if (request == MPI_REQUEST_NULL)
    return;
  pthread_mutex_lock(&requests_lock);
  size_t i = request_slot(request);
  for (size_t n = 0; n < REQUESTS; n++, i = (i + 1) % REQUESTS)
    if (!requests[i].used || requests[i].request == request) {
      requests[i].request = request;
      requests[i].bytes = bytes;
      requests[i].used = 1;
      break;
    }
  pthread_mutex_unlock(&requests_lock);
}

/* The bytes of request, which is completed: forgotten. Slots after it are moved back so
 * that lookups never stop at a hole. */
static uint64_t request_completed(MPI_Request request) {
  uint64_t bytes = 0;
  if (request == MPI_REQUEST_NULL)
    return 0;
  pthread_mutex_lock(&requests_lock);
  size_t i = request_slot(request);
  for (size_t n = 0; n < REQUESTS && requests[i].used; n++, i = (i + 1) % REQUESTS) {
    if (requests[i].request != request)
      continue;
    bytes = requests[i].bytes;
    requests[i].used = 0;
    for (size_t j = (i + 1) % REQUESTS; requests[j].used; j = (j + 1) % REQUESTS) {
      size_t home = request_slot(requests[j].request);
      /* Entry j may move into the hole at i unless its home lies in (i, j]. */
      if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
        requests[i] = requests[j];
        requests[j].used = 0;
        i = j;
      }
    }
    break;
  }
  pthread_mutex_unlock(&requests_lock);
  return bytes;
}

#endif
