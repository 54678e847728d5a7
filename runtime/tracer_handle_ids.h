/* tracer_handle_ids: an id that every process shares for a handle each made itself (the
 * spec's trace.handle_ids): NCCL's communicators, whose ranks each hold their own handle
 * of one communicator. The id is a hash of what the ranks made the handle from (an
 * ncclUniqueId), or of the parent handle's id and what the ranks split it by (a color).
 * Kept per handle from the call that makes it to the one that frees it; a handle made
 * before the tracer loaded, or beyond the table's bound, has none (0).
 *
 * The interposer owns one table per backend (TRACER_HANDLE_IDS_INIT), whose lock each
 * function takes. Handle 0 is no handle: nothing is kept or found under it.
 */
#ifndef TRACER_HANDLE_IDS_H
#define TRACER_HANDLE_IDS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer_map.h"

struct tracer_handle_ids {
  pthread_mutex_t lock;
  struct tracer_map map; /* uint64_t ids by handle */
};
#define TRACER_HANDLE_IDS_INIT(most)                                                               \
  { PTHREAD_MUTEX_INITIALIZER, TRACER_MAP_INIT(uint64_t, most) }

/* handle's id: a hash of the size bytes at from (none kept when from is NULL). */
void tracer_handle_id_made(struct tracer_handle_ids *ids, uintptr_t handle, const void *from,
                           size_t size);
/* handle's id: a hash of parent's id and the size bytes at salt. */
void tracer_handle_id_derived(struct tracer_handle_ids *ids, uintptr_t handle, uintptr_t parent,
                              const void *salt, size_t size);
/* handle was freed: its id is forgotten. */
void tracer_handle_id_forget(struct tracer_handle_ids *ids, uintptr_t handle);
/* handle's id; 0 when none is known. */
uint64_t tracer_handle_id(struct tracer_handle_ids *ids, uintptr_t handle);

#endif
