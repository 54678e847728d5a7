/* tracer_requests: see tracer_requests.h. */
#include "tracer_requests.h"

#include <pthread.h>
#include <string.h>

static struct {
  uint64_t request;
  uint64_t bytes;
  bool used;
} requests[TRACER_REQUESTS];
static pthread_mutex_t requests_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t home_of(uint64_t request) {
  return (size_t)((request * 0x9e3779b97f4a7c15u) >> 52) % TRACER_REQUESTS;
}

uint64_t tracer_request_started(bool started, uint64_t request, uint64_t bytes) {
  if (!started || !request)
    return bytes;
  pthread_mutex_lock(&requests_lock);
  size_t i = home_of(request);
  for (size_t n = 0; n < TRACER_REQUESTS; n++, i = (i + 1) % TRACER_REQUESTS)
    if (!requests[i].used || requests[i].request == request) {
      requests[i].request = request;
      requests[i].bytes = bytes;
      requests[i].used = true;
      break;
    }
  pthread_mutex_unlock(&requests_lock);
  return bytes;
}

uint64_t tracer_request_completed(uint64_t request) {
  uint64_t bytes = 0;
  if (!request)
    return 0;
  pthread_mutex_lock(&requests_lock);
  size_t i = home_of(request);
  for (size_t n = 0; n < TRACER_REQUESTS && requests[i].used; n++, i = (i + 1) % TRACER_REQUESTS) {
    if (requests[i].request != request)
      continue;
    bytes = requests[i].bytes;
    requests[i].used = false;
    /* Entries after the hole move back into it unless their home lies in (i, j], so that
     * lookups never stop at a hole. */
    for (size_t j = (i + 1) % TRACER_REQUESTS; requests[j].used; j = (j + 1) % TRACER_REQUESTS) {
      size_t home = home_of(requests[j].request);
      if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
        requests[i] = requests[j];
        requests[j].used = false;
        i = j;
      }
    }
    break;
  }
  pthread_mutex_unlock(&requests_lock);
  return bytes;
}

uint64_t tracer_requests_completed(const void *array, size_t size, bool is_signed, int64_t count) {
  uint64_t bytes = 0;
  for (int64_t i = 0; array && size <= sizeof(uint64_t) && i < count; i++) {
    uint64_t request = 0;
    memcpy(&request, (const char *)array + (size_t)i * size, size);
    if (is_signed && size < sizeof request && request >> (8 * size - 1) & 1)
      request |= ~UINT64_C(0) << (8 * size);
    bytes += tracer_request_completed(request);
  }
  return bytes;
}
