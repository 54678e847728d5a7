/* tracer_handle_ids: see tracer_handle_ids.h. */
#include "tracer_handle_ids.h"

static const uint64_t hash_seed = 14695981039346656037ull;

/* FNV-1a over bytes, from h; never 0, which means "no id". */
static uint64_t hash_bytes(uint64_t h, const void *bytes, size_t size) {
  const unsigned char *p = bytes;
  for (size_t i = 0; i < size; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h ? h : 1;
}

static void remember(struct tracer_handle_ids *ids, uintptr_t handle, uint64_t id) {
  pthread_mutex_lock(&ids->lock);
  tracer_map_put(&ids->map, handle, &id);
  pthread_mutex_unlock(&ids->lock);
}

void tracer_handle_id_made(struct tracer_handle_ids *ids, uintptr_t handle, const void *from,
                           size_t size) {
  if (handle && from)
    remember(ids, handle, hash_bytes(hash_seed, from, size));
}

void tracer_handle_id_derived(struct tracer_handle_ids *ids, uintptr_t handle, uintptr_t parent,
                              const void *salt, size_t size) {
  if (!handle)
    return;
  uint64_t parent_id = tracer_handle_id(ids, parent);
  remember(ids, handle,
           hash_bytes(hash_bytes(hash_seed, &parent_id, sizeof parent_id), salt, size));
}

void tracer_handle_id_forget(struct tracer_handle_ids *ids, uintptr_t handle) {
  pthread_mutex_lock(&ids->lock);
  tracer_map_take(&ids->map, handle, NULL);
  pthread_mutex_unlock(&ids->lock);
}

uint64_t tracer_handle_id(struct tracer_handle_ids *ids, uintptr_t handle) {
  uint64_t id = 0;
  pthread_mutex_lock(&ids->lock);
  tracer_map_get(&ids->map, handle, &id);
  pthread_mutex_unlock(&ids->lock);
  return id;
}
