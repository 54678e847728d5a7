/* comm_peers: see comm_peers.h. */
#include "comm_peers.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t comm, long a, long b) {
  uint64_t h = comm * 0x9E3779B97F4A7C15ull;
  h = (h ^ (uint64_t)a) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (uint64_t)b) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

static uint64_t member_key(const struct comm_member *m) { return mix(m->comm, m->comm_rank, 0); }
static uint64_t send_key(const struct comm_send *s) { return mix(s->comm, s->from, s->peer); }

/* An index of count rows whose keys key(rows, i) gives, rebuilt with cap slots. */
static int reindex(size_t **index, size_t *index_cap, size_t cap, size_t count,
                   uint64_t (*key)(const void *rows, size_t i), const void *rows) {
  size_t *grown = malloc(cap * sizeof *grown);
  if (!grown)
    return -1;
  for (size_t i = 0; i < cap; i++)
    grown[i] = SIZE_MAX;
  for (size_t i = 0; i < count; i++) {
    size_t at = key(rows, i) & (cap - 1);
    while (grown[at] != SIZE_MAX)
      at = (at + 1) & (cap - 1);
    grown[at] = i;
  }
  free(*index);
  *index = grown;
  *index_cap = cap;
  return 0;
}

static uint64_t member_key_at(const void *rows, size_t i) {
  return member_key(&((const struct comm_member *)rows)[i]);
}

static uint64_t send_key_at(const void *rows, size_t i) {
  return send_key(&((const struct comm_send *)rows)[i]);
}

static void *grow(void *rows, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return rows;
  size_t n = *cap ? 2 * *cap : 16;
  void *grown = realloc(rows, n * size);
  if (grown)
    *cap = n;
  return grown;
}

static size_t find_member(const struct comm_peers *p, uint64_t comm, long comm_rank,
                          size_t *slot) {
  if (!p->member_index_cap)
    return SIZE_MAX;
  size_t at = mix(comm, comm_rank, 0) & (p->member_index_cap - 1);
  for (; p->member_index[at] != SIZE_MAX; at = (at + 1) & (p->member_index_cap - 1)) {
    const struct comm_member *m = &p->members[p->member_index[at]];
    if (m->comm == comm && m->comm_rank == comm_rank)
      break;
  }
  if (slot)
    *slot = at;
  return p->member_index[at];
}

int comm_peers_add_member(struct comm_peers *p, uint64_t comm, long comm_rank, long rank) {
  if ((p->member_count + 1) * 2 > p->member_index_cap &&
      reindex(&p->member_index, &p->member_index_cap,
              p->member_index_cap ? 2 * p->member_index_cap : 64, p->member_count,
              member_key_at, p->members))
    return -1;
  size_t slot;
  if (find_member(p, comm, comm_rank, &slot) != SIZE_MAX)
    return 0;
  struct comm_member *grown =
      grow(p->members, &p->member_cap, p->member_count + 1, sizeof *grown);
  if (!grown)
    return -1;
  p->members = grown;
  p->members[p->member_count] = (struct comm_member){comm, comm_rank, rank};
  p->member_index[slot] = p->member_count++;
  return 0;
}

int comm_peers_add_send(struct comm_peers *p, const struct comm_send *send) {
  if ((p->send_count + 1) * 2 > p->send_index_cap &&
      reindex(&p->send_index, &p->send_index_cap,
              p->send_index_cap ? 2 * p->send_index_cap : 64, p->send_count, send_key_at,
              p->sends))
    return -1;
  size_t at = send_key(send) & (p->send_index_cap - 1);
  for (; p->send_index[at] != SIZE_MAX; at = (at + 1) & (p->send_index_cap - 1)) {
    struct comm_send *s = &p->sends[p->send_index[at]];
    if (s->comm == send->comm && s->from == send->from && s->peer == send->peer) {
      s->bytes += send->bytes;
      s->messages += send->messages;
      return 0;
    }
  }
  struct comm_send *grown = grow(p->sends, &p->send_cap, p->send_count + 1, sizeof *grown);
  if (!grown)
    return -1;
  p->sends = grown;
  p->sends[p->send_count] = *send;
  p->send_index[at] = p->send_count++;
  return 0;
}

int comm_peers_merge(struct comm_peers *into, const struct comm_peers *from) {
  for (size_t i = 0; i < from->member_count; i++) {
    const struct comm_member *m = &from->members[i];
    if (comm_peers_add_member(into, m->comm, m->comm_rank, m->rank))
      return -1;
  }
  for (size_t i = 0; i < from->send_count; i++)
    if (comm_peers_add_send(into, &from->sends[i]))
      return -1;
  return 0;
}

long comm_peers_rank_of(const struct comm_peers *p, uint64_t comm, long comm_rank) {
  size_t i = find_member(p, comm, comm_rank, NULL);
  return i == SIZE_MAX ? -1 : p->members[i].rank;
}

void comm_peers_free(struct comm_peers *p) {
  free(p->members);
  free(p->sends);
  free(p->member_index);
  free(p->send_index);
  memset(p, 0, sizeof *p);
}
