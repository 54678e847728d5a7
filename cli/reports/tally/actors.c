/* actors: see actors.h. */
#include "actors.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing from a 64-bit hash to a position in a list; the caller's same()
 * checks the entry, so equal hashes stay apart. */
struct hash_map {
  uint64_t *hashes; /* hash | 1: 0 marks an empty slot */
  size_t *values;
  size_t cap, len;
};

struct actors_index {
  struct hash_map actors, rows;
};

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

static uint64_t name_hash(const char *s, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static int map_grow(struct hash_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  uint64_t *hashes = calloc(cap, sizeof *hashes);
  size_t *values = calloc(cap, sizeof *values);
  if (!hashes || !values) {
    free(hashes);
    free(values);
    return -1;
  }
  for (size_t i = 0; i < m->cap; i++)
    if (m->hashes[i]) {
      size_t k = (size_t)(m->hashes[i] >> 7) & (cap - 1);
      while (hashes[k])
        k = (k + 1) & (cap - 1);
      hashes[k] = m->hashes[i];
      values[k] = m->values[i];
    }
  free(m->hashes);
  free(m->values);
  m->hashes = hashes;
  m->values = values;
  m->cap = cap;
  return 0;
}

/* The position stored under hash for which same(context, position) holds, or SIZE_MAX. */
static size_t map_find(const struct hash_map *m, uint64_t hash,
                       bool (*same)(const void *context, size_t position), const void *context) {
  hash |= 1;
  for (size_t i = m->cap ? (size_t)(hash >> 7) & (m->cap - 1) : 0; m->cap && m->hashes[i];
       i = (i + 1) & (m->cap - 1))
    if (m->hashes[i] == hash && same(context, m->values[i]))
      return m->values[i];
  return SIZE_MAX;
}

static int map_put(struct hash_map *m, uint64_t hash, size_t position) {
  if ((m->len + 1) * 2 > m->cap && map_grow(m))
    return -1;
  hash |= 1;
  size_t i = (size_t)(hash >> 7) & (m->cap - 1);
  while (m->hashes[i])
    i = (i + 1) & (m->cap - 1);
  m->hashes[i] = hash;
  m->values[i] = position;
  m->len++;
  return 0;
}

static void map_free(struct hash_map *m) {
  free(m->hashes);
  free(m->values);
  memset(m, 0, sizeof *m);
}

static bool ensure_index(struct actors *a) {
  return a->index || (a->index = calloc(1, sizeof *a->index)) != NULL;
}

struct actor_probe {
  const struct actors *a;
  struct actor key;
};

static bool same_actor(const void *context, size_t position) {
  const struct actor_probe *p = context;
  const struct actor *x = &p->a->list[position];
  return x->rank == p->key.rank && x->host == p->key.host && x->pid == p->key.pid &&
         x->tid == p->key.tid;
}

static uint64_t actor_hash(const struct actor *k) {
  return mix(mix(mix(mix(0, (uint64_t)k->rank), (uint64_t)k->host), (uint64_t)k->pid),
             (uint64_t)k->tid);
}

long actors_find(struct actors *a, long rank, int host, int64_t pid, int64_t tid) {
  if (!ensure_index(a))
    return -1;
  struct actor_probe probe = {a, {rank, host, pid, tid}};
  uint64_t hash = actor_hash(&probe.key);
  size_t at = map_find(&a->index->actors, hash, same_actor, &probe);
  if (at != SIZE_MAX)
    return (long)at;
  if (a->count == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 16;
    struct actor *grown = realloc(a->list, cap * sizeof *grown);
    if (!grown)
      return -1;
    a->list = grown;
    a->cap = cap;
  }
  if (map_put(&a->index->actors, hash, a->count))
    return -1;
  a->list[a->count] = probe.key;
  return (long)a->count++;
}

struct row_probe {
  const struct actors *a;
  uint32_t actor, backend;
  int32_t function;
  int kind;
  const char *name;
  size_t len;
};

static bool same_row(const void *context, size_t position) {
  const struct row_probe *p = context;
  const struct actor_row *r = &p->a->rows[position];
  if (r->actor != p->actor || r->backend != p->backend || r->function != p->function)
    return false;
  return p->function >= 0 || (r->kind == p->kind && strlen(r->name) == p->len &&
                               memcmp(r->name, p->name, p->len) == 0);
}

struct actor_row *actors_row(struct actors *a, uint32_t actor, uint32_t backend,
                             int32_t function, int kind, const char *name, size_t len) {
  if (!ensure_index(a))
    return NULL;
  struct row_probe probe = {a, actor, backend, function, kind, name, len};
  uint64_t hash = mix(mix(mix(0, actor), backend), (uint64_t)(int64_t)function);
  if (function < 0)
    hash = mix(mix(hash, (uint64_t)kind), name_hash(name, len));
  size_t at = map_find(&a->index->rows, hash, same_row, &probe);
  if (at != SIZE_MAX)
    return &a->rows[at];
  if (a->row_count == a->row_cap) {
    size_t cap = a->row_cap ? a->row_cap * 2 : 64;
    struct actor_row *grown = realloc(a->rows, cap * sizeof *grown);
    if (!grown)
      return NULL;
    a->rows = grown;
    a->row_cap = cap;
  }
  struct actor_row *r = &a->rows[a->row_count];
  memset(r, 0, sizeof *r);
  r->actor = actor;
  r->backend = backend;
  r->function = function;
  r->kind = kind;
  if (function < 0 && !(r->name = strndup(name, len)))
    return NULL;
  if (map_put(&a->index->rows, hash, a->row_count)) {
    free(r->name);
    return NULL;
  }
  a->row_count++;
  return r;
}

int actors_merge(struct actors *into, const struct actors *from, const int *host_map,
                 long rank) {
  long *map = calloc(from->count + 1, sizeof *map);
  if (!map)
    return -1;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < from->count; i++) {
    const struct actor *x = &from->list[i];
    map[i] = actors_find(into, rank == ACTORS_KEEP_RANK ? x->rank : rank,
                         host_map ? host_map[x->host] : x->host, x->pid, x->tid);
    if (map[i] < 0)
      rc = -1;
  }
  for (size_t i = 0; rc == 0 && i < from->row_count; i++) {
    const struct actor_row *src = &from->rows[i];
    struct actor_row *dst =
        actors_row(into, (uint32_t)map[src->actor], src->backend, src->function, src->kind,
                   src->name ? src->name : "", src->name ? strlen(src->name) : 0);
    if (!dst) {
      rc = -1;
      break;
    }
    tally_stat_merge(&dst->time, &src->time);
    dst->bytes += src->bytes;
  }
  free(map);
  return rc;
}

void actors_take_off(struct actors *a, uint64_t c) {
  for (size_t i = 0; c && i < a->row_count; i++) {
    struct tally_stat *s = &a->rows[i].time;
    if (a->rows[i].function < 0)
      continue;
    s->total = s->total > s->calls * c ? s->total - s->calls * c : 0;
    s->min = s->min > c ? s->min - c : 0;
    s->max = s->max > c ? s->max - c : 0;
  }
}

int actors_set_rank(struct actors *a, int host, int64_t pid, long rank) {
  bool changed = false;
  for (size_t i = 0; i < a->count; i++)
    if (a->list[i].host == host && a->list[i].pid == pid && a->list[i].rank != rank)
      a->list[i].rank = rank, changed = true;
  if (!changed || !a->index)
    return 0;
  /* The actors' keys changed: index them again (their positions, hence the rows, stay). */
  map_free(&a->index->actors);
  for (size_t i = 0; i < a->count; i++)
    if (map_put(&a->index->actors, actor_hash(&a->list[i]), i))
      return -1;
  return 0;
}

void actors_free(struct actors *a) {
  for (size_t i = 0; i < a->row_count; i++)
    free(a->rows[i].name);
  free(a->rows);
  free(a->list);
  if (a->index) {
    map_free(&a->index->actors);
    map_free(&a->index->rows);
    free(a->index);
  }
  memset(a, 0, sizeof *a);
}
