/* tracer_requests: see tracer_requests.h. */
#include "tracer_requests.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tracer_map.h"
#include "tracer_recording.h"
#include "tracer_runtime.h"
#include "tracer_tracepoints.h"

static struct tracer_map requests = TRACER_MAP_INIT(uint64_t, TRACER_REQUESTS); /* bytes */
static pthread_mutex_t requests_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t tracer_request_started(bool started, uint64_t request, uint64_t bytes) {
  if (!started || !request)
    return bytes;
  pthread_mutex_lock(&requests_lock);
  tracer_map_put(&requests, request, &bytes);
  pthread_mutex_unlock(&requests_lock);
  return bytes;
}

uint64_t tracer_request_completed(uint64_t request) {
  uint64_t bytes = 0;
  pthread_mutex_lock(&requests_lock);
  tracer_map_take(&requests, request, &bytes);
  pthread_mutex_unlock(&requests_lock);
  return bytes;
}

__thread struct tracer_requests_kept tracer_requests_kept
    __attribute__((tls_model("initial-exec")));

/* Element i of an array of integers of size bytes, sign-extended when is_signed. */
static uint64_t element(const void *array, size_t size, bool is_signed, int64_t i) {
  uint64_t value = 0;
  memcpy(&value, (const char *)array + (size_t)i * size, size);
  if (is_signed && size < sizeof value && value >> (8 * size - 1) & 1)
    value |= ~UINT64_C(0) << (8 * size);
  return value;
}

void tracer_requests_keep(const void *array, size_t size, bool is_signed, int64_t count) {
  tracer_requests_kept.count = 0;
  if (!array || size > sizeof(uint64_t) || count <= 0)
    return;
  if (count > tracer_requests_kept.cap) {
    uint64_t *grown = realloc(tracer_requests_kept.values, (size_t)count * sizeof *grown);
    if (grown)
      tracer_requests_kept.values = grown;
    int32_t *sources =
        grown ? realloc(tracer_requests_kept.sources, (size_t)count * sizeof *sources) : NULL;
    if (sources)
      tracer_requests_kept.sources = sources;
    uint64_t *received =
        sources ? realloc(tracer_requests_kept.received, (size_t)count * sizeof *received) : NULL;
    if (!received)
      return;
    tracer_requests_kept.received = received;
    tracer_requests_kept.cap = count;
  }
  for (int64_t i = 0; i < count; i++)
    tracer_requests_kept.values[i] = element(array, size, is_signed, i);
  tracer_requests_kept.count = count;
}

/* What the status at position of the call's statuses says, as completed request n's;
 * a sender of -1 (unknown) when the call gave none (false then). */
static bool status_of(int64_t n, void *statuses, tracer_status_read *read, int64_t position) {
  int64_t source = -1;
  uint64_t bytes = 0;
  bool given = statuses && read && read(statuses, position, &source, &bytes);
  if (!given || source < INT32_MIN || source > INT32_MAX)
    source = -1, bytes = 0;
  tracer_requests_kept.sources[n] = (int32_t)source;
  tracer_requests_kept.received[n] = bytes;
  return given;
}

uint64_t tracer_requests_after(uint64_t call_start, bool completed, enum tracer_completed how,
                               int64_t which, const void *indices, size_t index_size,
                               void *statuses, tracer_status_read *read) {
  if (!completed || !tracer_requests_kept.count)
    return 0;
  /* The completed ones move to the front of the kept array, in the order named, each
   * with its status: the statuses are in that order (MPI_Waitany's one, MPI_Waitsome's
   * one per index). */
  int64_t n = 0;
  bool given = false;
  if (how == TRACER_COMPLETED_ALL) {
    for (n = 0; n < tracer_requests_kept.count; n++)
      given |= status_of(n, statuses, read, n);
  } else if (how == TRACER_COMPLETED_INDEX) {
    if (which >= 0 && which < tracer_requests_kept.count) {
      tracer_requests_kept.values[n] = tracer_requests_kept.values[which];
      given = status_of(n++, statuses, read, 0);
    }
  } else {
    for (int64_t i = 0; indices && index_size <= sizeof(uint64_t) && i < which; i++) {
      int64_t index = (int64_t)element(indices, index_size, true, i);
      /* Indices ascend (MPI says nothing of it; they are swapped into place anyway). */
      if (index >= n && index < tracer_requests_kept.count) {
        uint64_t value = tracer_requests_kept.values[index];
        tracer_requests_kept.values[index] = tracer_requests_kept.values[n];
        tracer_requests_kept.values[n] = value;
        given |= status_of(n++, statuses, read, i);
      }
    }
  }
  uint64_t bytes = 0;
  int64_t kept = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!tracer_requests_kept.values[i])
      continue; /* a null request completes nothing */
    bytes += tracer_request_completed(tracer_requests_kept.values[i]);
    tracer_requests_kept.sources[kept] = tracer_requests_kept.sources[i];
    tracer_requests_kept.received[kept] = tracer_requests_kept.received[i];
    tracer_requests_kept.values[kept++] = tracer_requests_kept.values[i];
  }
  /* Statuses ignored: no senders nor bytes (the exports keep those the starts named). */
  uint32_t with_status = given ? (uint32_t)kept : 0;
  if (kept && !tracer_recording_counting())
    lttng_ust_tracepoint(lttng_ust_tracer, completed, tracer_pid(), tracer_tid(), call_start,
                         tracer_requests_kept.values, (uint32_t)kept, tracer_requests_kept.sources,
                         tracer_requests_kept.received, with_status);
  tracer_requests_kept.count = 0;
  return bytes;
}
