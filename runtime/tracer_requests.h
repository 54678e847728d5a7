/* tracer_requests: work one call starts and another completes (MPI's non-blocking calls:
 * MPI_Isend, then MPI_Wait), and the bytes it moves, kept from the one to the other so
 * that the completing call's record says what it completed (trace.messages). The
 * generated code calls these with the requests' values as their records hold them.
 *
 * A process keeps at most TRACER_REQUESTS requests in flight (tracer_map.h, one lock);
 * past that, the bytes of new requests are not kept and their completions count 0 bytes.
 * A persistent request counts its bytes at its first completion only.
 */
#ifndef TRACER_REQUESTS_H
#define TRACER_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TRACER_REQUESTS = 4096 };

/* A call that started request (when started: it succeeded) moving bytes: kept, and the
 * bytes returned, for its own record. */
uint64_t tracer_request_started(bool started, uint64_t request, uint64_t bytes);

/* The bytes of request, which a call completed: forgotten. 0 for a request not kept. */
uint64_t tracer_request_completed(uint64_t request);

/* The bytes of the count requests of an array (elements of size bytes, sign-extended as
 * the records hold them when is_signed), all of which a call completes. */
uint64_t tracer_requests_completed(const void *requests, size_t size, bool is_signed,
                                   int64_t count);

#endif
