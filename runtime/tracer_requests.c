/* tracer_requests: see tracer_requests.h. */
#include "tracer_requests.h"

#include <pthread.h>
#include <string.h>

#include "tracer_map.h"

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
