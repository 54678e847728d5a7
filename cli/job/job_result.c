/* job_result: see job_result.h. */
#include "job_result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "job_folder.h"
#include "run_record.h"
#include "sources.h"
#include "trace_reader.h"

/* A map from 64-bit keys to row indices (open addressing); a key's rows are checked by
 * the caller, so equal hashes of different names (hostnames) stay apart. */
struct key_map {
  uint64_t *keys;  /* key + 1; 0 marks an empty slot */
  size_t *values;
  size_t cap, len;
};

struct job_index {
  struct key_map hosts, matrix, sizes;
};

static size_t key_slot(const struct key_map *m, uint64_t key) {
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
}

static int key_grow(struct key_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  uint64_t *keys = calloc(cap, sizeof *keys);
  size_t *values = calloc(cap, sizeof *values);
  if (!keys || !values) {
    free(keys);
    free(values);
    return -1;
  }
  struct key_map grown = {keys, values, cap, m->len};
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i]) {
      size_t k = key_slot(&grown, m->keys[i] - 1);
      while (keys[k])
        k = (k + 1) & (cap - 1);
      keys[k] = m->keys[i];
      values[k] = m->values[i];
    }
  free(m->keys);
  free(m->values);
  *m = grown;
  return 0;
}

/* The row of key for which same(context, row) holds, or (size_t)-1. */
static size_t key_find(const struct key_map *m, uint64_t key,
                       bool (*same)(const void *context, size_t row), const void *context) {
  if (!m->cap)
    return (size_t)-1;
  for (size_t i = key_slot(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1))
    if (m->keys[i] == key + 1 && (!same || same(context, m->values[i])))
      return m->values[i];
  return (size_t)-1;
}

static int key_put(struct key_map *m, uint64_t key, size_t row) {
  if ((m->len + 1) * 2 > m->cap && key_grow(m))
    return -1;
  size_t i = key_slot(m, key);
  while (m->keys[i])
    i = (i + 1) & (m->cap - 1);
  m->keys[i] = key + 1;
  m->values[i] = row;
  m->len++;
  return 0;
}

static void key_free(struct key_map *m) {
  free(m->keys);
  free(m->values);
  memset(m, 0, sizeof *m);
}

int job_result_init(struct job_result *r) {
  memset(r, 0, sizeof *r);
  struct tally *t = &r->tally;
  size_t n = t->backend_count = backends_count();
  t->backends = calloc(n + 1, sizeof *t->backends);
  r->host_share = calloc(n + 1, sizeof *r->host_share);
  r->device_share = calloc(n + 1, sizeof *r->device_share);
  r->function_ns = calloc(n + 1, sizeof *r->function_ns);
  r->index = calloc(1, sizeof *r->index);
  if (!t->backends || !r->host_share || !r->device_share || !r->function_ns || !r->index)
    return -1;
  for (size_t i = 0; i < n; i++) {
    struct tally_backend *b = &t->backends[i];
    uint32_t fc = tracer_backends[i]->function_count;
    b->desc = tracer_backends[i];
    r->function_ns[i] = calloc(fc + 1, sizeof **r->function_ns);
    /* Every backend's arrays: a job's ranks may hold any of them (tally_free frees them). */
    if (tally_backend_arrays(b) || !r->function_ns[i])
      return -1;
  }
  return 0;
}

void job_result_free(struct job_result *r) {
  for (size_t i = 0; r->function_ns && i < r->tally.backend_count; i++)
    free(r->function_ns[i]);
  /* The counts-only id_sets have no slots: tally_free frees NULL. */
  tally_free(&r->tally);
  free(r->function_ns);
  free(r->host_share);
  free(r->device_share);
  free(r->ranks);
  free(r->failed);
  free(r->sizes);
  free(r->matrix);
  collectives_free(&r->collectives);
  samples_free(&r->samples);
  hta_free(&r->hta);
  sources_table_free(&r->sources);
  stragglers_free(&r->stragglers);
  comm_peers_free(&r->peers);
  if (r->index) {
    key_free(&r->index->hosts);
    key_free(&r->index->matrix);
    key_free(&r->index->sizes);
    free(r->index);
  }
  memset(r, 0, sizeof *r);
}

unsigned job_size_bucket(uint64_t bytes) {
  if (!bytes)
    return 0;
  unsigned k = 1;
  for (uint64_t limit = 64; bytes > limit && k < JOB_SIZE_BUCKETS - 1; limit *= 4)
    k++;
  return k;
}

uint64_t job_size_bucket_limit(unsigned bucket) {
  if (bucket == 0)
    return 0;
  if (bucket >= JOB_SIZE_BUCKETS - 1)
    return UINT64_MAX;
  return (uint64_t)64 << (2 * (bucket - 1));
}

static void spread_add(struct job_spread *s, uint64_t v, long rank) {
  struct job_spread one = {v, v, v, 1, rank, rank};
  job_spread_merge(s, &one);
}

void job_spread_merge(struct job_spread *into, const struct job_spread *from) {
  if (!from->count)
    return;
  if (!into->count || from->min < into->min ||
      (from->min == into->min && from->min_rank < into->min_rank))
    into->min = from->min, into->min_rank = from->min_rank;
  if (!into->count || from->max > into->max ||
      (from->max == into->max && from->max_rank < into->max_rank))
    into->max = from->max, into->max_rank = from->max_rank;
  into->sum += from->sum;
  into->count += from->count;
}

static void stat_merge(struct tally_stat *into, const struct tally_stat *from) {
  tally_stat_merge(into, from);
}

static void *grow(void *array, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return array;
  size_t cap2 = *cap ? *cap * 2 : 16;
  while (cap2 < need)
    cap2 *= 2;
  void *grown = realloc(array, cap2 * size);
  if (grown)
    *cap = cap2;
  return grown;
}

int job_result_add_rank(struct job_result *r, long rank) {
  long *ranks = grow(r->ranks, &r->rank_cap, r->rank_count + 1, sizeof *ranks);
  if (!ranks)
    return -1;
  r->ranks = ranks;
  r->ranks[r->rank_count++] = rank;
  return 0;
}

/* A tracer on this host that still runs: its record of a run whose end it did not see
 * is not the last word yet. */
static bool tracer_runs(const struct run_record *run) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return strcmp(host, run->daemon_host) == 0 && job_folder_process_runs(run->tracer_pid, "tracer");
}

void job_rank_status_of(long rank, const struct run_record *run, struct job_rank_status *s) {
  memset(s, 0, sizeof *s);
  s->rank = rank;
  s->end_seen = run && run->present && run->exit_code >= 0;
  s->running = run && run->present && !s->end_seen && tracer_runs(run);
  s->ended_at_ns = run && s->end_seen ? run->ended_at_ns : 0;
  snprintf(s->status, sizeof s->status, "%s", run && run->present ? run->status : "no run record");
}

int job_result_add_failed(struct job_result *r, const struct job_rank_status *s) {
  struct job_rank_status *f = realloc(r->failed, (r->failed_count + 1) * sizeof *f);
  if (!f)
    return -1;
  r->failed = f;
  r->failed[r->failed_count++] = *s;
  return 0;
}

int job_result_add_size(struct job_result *r, const struct job_size_row *row) {
  uint64_t key = (uint64_t)row->backend << 40 | (uint64_t)row->function << 8 | row->bucket;
  size_t i = key_find(&r->index->sizes, key, NULL, NULL);
  if (i == (size_t)-1) {
    struct job_size_row *grown = realloc(r->sizes, (r->size_count + 1) * sizeof *grown);
    if (!grown)
      return -1;
    r->sizes = grown;
    if (key_put(&r->index->sizes, key, r->size_count))
      return -1;
    i = r->size_count++;
    r->sizes[i] = *row;
    r->sizes[i].calls = r->sizes[i].bytes = 0;
  }
  r->sizes[i].calls += row->calls;
  r->sizes[i].bytes += row->bytes;
  return 0;
}

int job_result_add_matrix(struct job_result *r, long from, long to, uint64_t bytes,
                          uint64_t messages) {
  uint64_t key = (uint64_t)(uint32_t)from << 32 | (uint32_t)to;
  size_t i = key_find(&r->index->matrix, key, NULL, NULL);
  if (i == (size_t)-1) {
    struct job_matrix_row *m =
        grow(r->matrix, &r->matrix_cap, r->matrix_count + 1, sizeof *r->matrix);
    if (!m)
      return -1;
    r->matrix = m;
    if (key_put(&r->index->matrix, key, r->matrix_count))
      return -1;
    i = r->matrix_count++;
    r->matrix[i] = (struct job_matrix_row){from, to, 0, 0};
  }
  r->matrix[i].bytes += bytes;
  r->matrix[i].messages += messages;
  return 0;
}

struct host_probe {
  const struct tally *t;
  const char *name;
};

static bool same_host(const void *context, size_t row) {
  const struct host_probe *p = context;
  return strcmp(p->t->hostnames[row], p->name) == 0;
}

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

int job_result_host(struct job_result *r, const char *hostname) {
  struct tally *t = &r->tally;
  struct host_probe probe = {t, hostname};
  uint64_t key = name_hash(hostname);
  size_t i = key_find(&r->index->hosts, key, same_host, &probe);
  if (i != (size_t)-1)
    return (int)i;
  char **names = realloc(t->hostnames, (t->host_count + 1) * sizeof *names);
  if (!names)
    return -1;
  t->hostnames = names;
  if (!(names[t->host_count] = strdup(hostname)) ||
      key_put(&r->index->hosts, key, t->host_count))
    return -1;
  return (int)t->host_count++;
}

struct tally_device *job_result_device_row(struct tally_backend *b,
                                          const struct tally_device *src, const char *device,
                                          size_t hint) {
  for (size_t k = 0; k < b->device_count; k++) {
    struct tally_device *d = &b->device[(hint + k) % b->device_count];
    if (d->kind == src->kind && strcmp(d->name, src->name) == 0 &&
        tally_same_device(d->device, device))
      return d;
  }
  struct tally_device *grown = grow(b->device, &b->device_cap, b->device_count + 1, sizeof *grown);
  if (!grown)
    return NULL;
  b->device = grown;
  struct tally_device *d = &b->device[b->device_count];
  memset(d, 0, sizeof *d);
  if (!(d->name = strdup(src->name)) || (device && !(d->device = strdup(device)))) {
    free(d->name);
    return NULL;
  }
  d->kind = src->kind;
  b->device_count++;
  return d;
}

/* A rank's device as the job names it: with the rank's host (GPU 0 of two nodes are two
 * devices), unless the label has it already (a node's merged result). Into label. */
static const char *job_device(const char *device, const struct tally *from, char *label,
                              size_t size) {
  if (!device || from->host_count != 1)
    return device;
  const char *host = from->hostnames[0];
  size_t length = strlen(device), host_length = strlen(host);
  if (length > host_length + 4 && strcmp(device + length - host_length, host) == 0 &&
      strncmp(device + length - host_length - 4, " on ", 4) == 0)
    return device;
  snprintf(label, size, "%s on %s", device, host);
  return label;
}

static int merge_tally(struct job_result *into, const struct tally *from) {
  struct tally *t = &into->tally;
  t->events += from->events;
  t->own_events += from->own_events;
  t->counted_calls += from->counted_calls;
  t->batched_calls += from->batched_calls;
  t->batch_events += from->batch_events;
  t->trace_bytes += from->trace_bytes;
  if (from->has_clock_read && (!t->has_clock_read || from->clock_read_ns < t->clock_read_ns))
    t->clock_read_ns = from->clock_read_ns;
  t->has_clock_read |= from->has_clock_read;
  t->counted_call_ps = counted_cost_least(t->counted_call_ps, from->counted_call_ps);
  if (from->has_calibration && !t->has_calibration) {
    t->calibration_event_ps = from->calibration_event_ps;
    t->calibration_byte_ps = from->calibration_byte_ps;
    t->calibration_call_ps = from->calibration_call_ps;
    t->clock_is_tsc = from->clock_is_tsc;
    t->has_calibration = true;
  }
  t->discarded += from->discarded;
  if (from->loss_count) {
    struct tally_loss *l = realloc(t->losses, (t->loss_count + from->loss_count) * sizeof *l);
    if (!l)
      return -1;
    t->losses = l;
    for (size_t i = 0; i < from->loss_count; i++) {
      l[t->loss_count].discarded = from->losses[i].discarded;
      if (!(l[t->loss_count++].stream = strdup(from->losses[i].stream)))
        return -1;
    }
  }
  if (from->error && !t->error && !(t->error = strdup(from->error)))
    return -1;
  t->pauses += from->pauses;
  for (size_t i = 0; i < from->notice_count; i++)
    if (tally_add_notice(t, from->notices[i], strlen(from->notices[i])))
      return -1;
  t->paused_ns += from->paused_ns;
  if (regions_merge(&t->regions, &from->regions))
    return -1;
  /* Host indices of from, as indices of into. */
  int *host = calloc(from->host_count + 1, sizeof *host);
  if (!host)
    return -1;
  int rc = 0;
  for (size_t i = 0; i < from->host_count && rc == 0; i++)
    if ((host[i] = job_result_host(into, from->hostnames[i])) < 0)
      rc = -1;
  if (rc == 0 && into->want_actors && from->actors.count &&
      actors_merge(&t->actors, &from->actors, host, ACTORS_KEEP_RANK))
    rc = -1;
  for (size_t i = 0; rc == 0 && i < t->backend_count; i++) {
    struct tally_backend *a = &t->backends[i];
    const struct tally_backend *b = &from->backends[i];
    /* A rank's tally has arrays for the backends its trace holds (tally.h), the job's
     * for every backend. */
    for (uint32_t f = 0; f < b->function_count && f < a->function_count; f++) {
      stat_merge(&a->host[f], &b->host[f]);
      stat_merge(&a->inside[f], &b->inside[f]);
      a->unfinished[f] += b->unfinished[f];
      a->message_bytes[f] += b->message_bytes[f];
      a->outer[f] += b->outer[f];
    }
    for (size_t d = 0; d < b->device_count && rc == 0; d++) {
      const struct tally_device *src = &b->device[d];
      char label[256];
      struct tally_device *dst =
          job_result_device_row(a, src, job_device(src->device, from, label, sizeof label), d);
      if (!dst) {
        rc = -1;
        break;
      }
      tally_device_merge(dst, src);
    }
    a->events += b->events;
    /* Hosts by name; processes and threads by count (distinct ranks never share one). */
    for (size_t k = 0; rc == 0 && k < b->hosts.cap; k++)
      if (b->hosts.slots[k] && (size_t)(b->hosts.slots[k] - 1) < from->host_count)
        rc = id_set_add(&a->hosts, (uint64_t)host[b->hosts.slots[k] - 1]);
    if (!b->hosts.cap && b->hosts.len) /* a counts-only tally: hosts came by name */
      rc = -1;
    a->processes.len += b->processes.len;
    a->threads.len += b->threads.len;
    a->device_processes.len += b->device_processes.len;
    a->device_threads.len += b->device_threads.len;
  }
  free(host);
  return rc;
}

int job_result_merge(struct job_result *into, const struct job_result *from) {
  if (merge_tally(into, &from->tally))
    return -1;
  for (size_t i = 0; i < from->rank_count; i++)
    if (job_result_add_rank(into, from->ranks[i]))
      return -1;
  into->ranks_timed += from->ranks_timed;
  for (size_t i = 0; i < from->failed_count; i++)
    if (job_result_add_failed(into, &from->failed[i]))
      return -1;
  for (size_t b = 0; b < into->tally.backend_count; b++) {
    job_spread_merge(&into->host_share[b], &from->host_share[b]);
    job_spread_merge(&into->device_share[b], &from->device_share[b]);
    for (uint32_t f = 0; f < into->tally.backends[b].function_count; f++)
      job_spread_merge(&into->function_ns[b][f], &from->function_ns[b][f]);
  }
  for (size_t i = 0; i < from->size_count; i++)
    if (job_result_add_size(into, &from->sizes[i]))
      return -1;
  for (size_t i = 0; i < from->matrix_count; i++) {
    const struct job_matrix_row *m = &from->matrix[i];
    if (job_result_add_matrix(into, m->from, m->to, m->bytes, m->messages))
      return -1;
  }
  if (stragglers_merge(&into->stragglers, &from->stragglers) ||
      comm_peers_merge(&into->peers, &from->peers) ||
      samples_append(&into->samples, &from->samples, -1) ||
      hta_append(&into->hta, from->hta.gpus, from->hta.gpu_count, -1) ||
      sources_table_merge(&into->sources, &from->sources))
    return -1;
  into->untraced_peer_bytes += from->untraced_peer_bytes;
  into->untraced_peer_messages += from->untraced_peer_messages;
  return collectives_merge(&into->collectives, &from->collectives);
}

static int by_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static int by_failed_rank(const void *a, const void *b) {
  return by_long(&((const struct job_rank_status *)a)->rank,
                 &((const struct job_rank_status *)b)->rank);
}

static int by_from_to(const void *a, const void *b) {
  const struct job_matrix_row *x = a, *y = b;
  if (x->from != y->from)
    return (x->from > y->from) - (x->from < y->from);
  return (x->to > y->to) - (x->to < y->to);
}

static int by_size_row(const void *a, const void *b) {
  const struct job_size_row *x = a, *y = b;
  if (x->backend != y->backend)
    return x->backend < y->backend ? -1 : 1;
  if (x->function != y->function)
    return x->function < y->function ? -1 : 1;
  return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

int job_result_resolve_peers(struct job_result *r) {
  for (size_t i = 0; i < r->peers.send_count; i++) {
    const struct comm_send *s = &r->peers.sends[i];
    long to = comm_peers_rank_of(&r->peers, s->comm, s->peer);
    if (to < 0) {
      r->untraced_peer_bytes += s->bytes;
      r->untraced_peer_messages += s->messages;
    } else if (job_result_add_matrix(r, s->from, to, s->bytes, s->messages)) {
      return -1;
    }
  }
  /* Put in once: the sends are gone, the members stay for nothing else. */
  comm_peers_free(&r->peers);
  return 0;
}

void job_result_sort(struct job_result *r) {
  if (r->rank_count)
    qsort(r->ranks, r->rank_count, sizeof *r->ranks, by_long);
  if (r->failed_count)
    qsort(r->failed, r->failed_count, sizeof *r->failed, by_failed_rank);
  if (r->matrix_count)
    qsort(r->matrix, r->matrix_count, sizeof *r->matrix, by_from_to);
  if (r->size_count)
    qsort(r->sizes, r->size_count, sizeof *r->sizes, by_size_row);
  collectives_sort(&r->collectives);
  samples_sort(&r->samples);
  /* The maps point at rows by position: sorting moved them. */
  key_free(&r->index->matrix);
  key_free(&r->index->sizes);
  for (size_t i = 0; i < r->matrix_count; i++)
    key_put(&r->index->matrix, (uint64_t)(uint32_t)r->matrix[i].from << 32 |
                                   (uint32_t)r->matrix[i].to, i);
  for (size_t i = 0; i < r->size_count; i++)
    key_put(&r->index->sizes, (uint64_t)r->sizes[i].backend << 40 |
                                  (uint64_t)r->sizes[i].function << 8 | r->sizes[i].bucket, i);
}

/* The messages of a rank: the size and the peer of every message call, a consumer of
 * the same read as the rank's tally. Each worker of the read counts into a result of its
 * own, added into the rank's at the end. */
struct messages {
  struct job_result *into;
  long rank;
  long job_size; /* the launcher's count of ranks; 0: unknown */
  bool runtime_calls; /* a library's own calls count as the app's (tally.runtime_calls) */
};

/* The value of slot index of f's record (slots, n of them read); false when absent. */
static bool slot_value(const struct tracer_function_desc *f, const uint64_t *slots, size_t n,
                       int16_t index, int64_t *value) {
  if (index < 0 || (size_t)index >= n)
    return false;
  *value = (int64_t)slots[index];
  for (uint32_t k = 0; k < f->slot_count; k++)
    if (f->slots[k].index == (uint32_t)index)
      *value = event_map_slot_value(&f->slots[k], slots[index]);
  return true;
}

static int on_message(void *context, const struct trace_call *c) {
  struct messages *m = context;
  const struct tracer_function_desc *f = &c->desc->functions[c->function];
  const struct tracer_message *msg = &f->message;
  /* A batched call's record is its head alone: no message bytes in it. */
  if (msg->kind == TRACER_MESSAGE_NONE || msg->kind == TRACER_MESSAGE_COMPLETE || msg->bytes < 0 ||
      c->failed || c->batched || (c->inside_other && !m->runtime_calls))
    return 0;
  uint64_t slots[256];
  size_t n = trace_call_record(c, slots, sizeof slots / sizeof *slots);
  if ((size_t)msg->bytes >= n)
    return 0;
  uint64_t bytes = slots[msg->bytes];
  struct job_size_row row = {(uint32_t)c->backend, (uint32_t)c->function,
                             job_size_bucket(bytes), 1, bytes};
  job_result_add_size(m->into, &row);
  /* A communicator with an id: the rank's place in it, and its sends by the peer's rank
   * in it, which the job's report turns into a rank of the job (comm_peers.h). */
  int64_t peer, comm_rank, comm_size, comm;
  if (slot_value(f, slots, n, msg->comm_id, &comm) && comm != 0 &&
      slot_value(f, slots, n, msg->comm_rank, &comm_rank) && comm_rank >= 0) {
    if (comm_peers_add_member(&m->into->peers, (uint64_t)comm, (long)comm_rank, m->rank))
      return -1;
    if (msg->kind == TRACER_MESSAGE_SEND && slot_value(f, slots, n, msg->peer, &peer) &&
        peer >= 0) {
      struct comm_send send = {(uint64_t)comm, m->rank, (long)peer, bytes, 1};
      if (comm_peers_add_send(&m->into->peers, &send))
        return -1;
    }
    return 0;
  }
  /* The matrix counts what a rank sends (or puts) to a peer, by the sender. */
  if ((msg->kind == TRACER_MESSAGE_SEND || msg->kind == TRACER_MESSAGE_PUT) &&
      slot_value(f, slots, n, msg->peer, &peer) && peer >= 0) { /* MPI_PROC_NULL: < 0 */
    long from = m->rank;
    /* A peer named in a communicator whose ranks are not the job's (of another size, or
     * where the sender's rank is not its rank in the job): sender and peer in its ranks. */
    if (slot_value(f, slots, n, msg->comm_rank, &comm_rank) &&
        slot_value(f, slots, n, msg->comm_size, &comm_size) && comm_rank >= 0 &&
        (comm_size != m->job_size || comm_rank != m->rank))
      from = (long)comm_rank;
    job_result_add_matrix(m->into, from, (long)peer, bytes, 1);
  }
  return 0;
}

static void *messages_fork(void *context) {
  const struct messages *m = context;
  struct messages *worker = calloc(1, sizeof *worker);
  struct job_result *r = calloc(1, sizeof *r);
  if (!worker || !r || job_result_init(r)) {
    if (r)
      job_result_free(r);
    free(r);
    free(worker);
    return NULL;
  }
  *worker = (struct messages){r, m->rank, m->job_size, m->runtime_calls};
  return worker;
}

static int messages_join(void *context, void *worker) {
  struct messages *m = context, *w = worker;
  int rc = 0;
  for (size_t i = 0; i < w->into->size_count && rc == 0; i++)
    rc = job_result_add_size(m->into, &w->into->sizes[i]);
  for (size_t i = 0; i < w->into->matrix_count && rc == 0; i++) {
    const struct job_matrix_row *row = &w->into->matrix[i];
    rc = job_result_add_matrix(m->into, row->from, row->to, row->bytes, row->messages);
  }
  if (rc == 0)
    rc = comm_peers_merge(&m->into->peers, &w->into->peers);
  job_result_free(w->into);
  free(w->into);
  free(w);
  return rc;
}

/* The collectives table of a rank and its arrivals at each collective: a read of their
 * own, in time order (collectives.h, stragglers.h). */
static int reduce_collectives(struct trace_reader *reader, long rank, unsigned threads,
                              struct job_result *r, struct diag *d) {
  struct collectives_reading *reading;
  struct stragglers_reading *arrivals;
  struct trace_consumer consumer, arrivals_consumer;
  if (collectives_read_open(&r->collectives, &reading, &consumer, d))
    return -1;
  if (stragglers_read_open(&r->stragglers, rank, &arrivals, &arrivals_consumer, d)) {
    collectives_read_close(reading, d);
    return -1;
  }
  const struct trace_consumer *consumers[] = {&consumer, &arrivals_consumer};
  struct trace_read_options options = {.threads = threads};
  struct diag read;
  diag_init(&read);
  int rc = 0;
  if (trace_read(reader, consumers, 2, &options, &read) == TRACE_READ_FAILED) {
    char chain[1024];
    rc = diag_error(d, "%s", diag_join(&read, chain, sizeof chain));
  }
  diag_clear(&read);
  if (collectives_read_close(reading, d))
    rc = -1;
  if (stragglers_read_close(arrivals, d))
    rc = -1;
  return rc;
}

int job_result_reduce(const char *rank_dir, long rank, unsigned threads, struct job_result *r,
                      struct diag *d) {
  struct run_record run;
  run_record_read(rank_dir, &run);
  struct trace_reader *reader;
  if (trace_reader_open(rank_dir, &reader, d))
    return -1;
  /* The window asked for: the reader hands out only its records to every reduction. */
  struct trace_window window = {0};
  if (r->window) {
    int wrc = window_apply(reader, r->window, r->steps_pattern, threads, &window, d);
    if (wrc) {
      if (d->count && !r->window_error[0])
        snprintf(r->window_error, sizeof r->window_error, "%s",
                 d->causes[d->count - 1].message);
      trace_reader_close(reader);
      return -1;
    }
  }
  struct tally tally;
  struct trace_consumer tally_consumer;
  /* A library's own calls count as the app's as the rank's run was asked, or the replay. */
  bool runtime_calls = run.runtime_calls || r->runtime_calls;
  struct messages messages = {r, rank, run.job_ranks, runtime_calls};
  struct trace_consumer messages_consumer = {.name = "messages", .needs = TRACE_NEEDS_RECORD,
                                             .context = &messages,
                                             .fork = messages_fork, .join = messages_join,
                                             .call = on_message};
  int rc = -1;
  if (tally_open(&tally, r->want_actors, &tally_consumer)) {
    tally_free(&tally);
    trace_reader_close(reader);
    trace_window_free(&window);
    return diag_error(d, "out of memory");
  }
  tally.runtime_calls = runtime_calls;
  /* The lines of code that launched device work (sources.h). */
  struct sources *sources;
  struct trace_consumer sources_consumer;
  if (sources_open(&sources, &sources_consumer, d)) {
    tally_free(&tally);
    trace_reader_close(reader);
    trace_window_free(&window);
    return -1;
  }
  /* The device counters, in a sampling rank's trace (tracer --sample). */
  struct samples *samples;
  struct trace_consumer samples_consumer;
  if (samples_open(&samples, &samples_consumer, d)) {
    sources_free(sources);
    tally_free(&tally);
    trace_reader_close(reader);
    trace_window_free(&window);
    return -1;
  }
  /* Each GPU's time as HTA defines it (hta.h). */
  struct hta *hta;
  struct trace_consumer hta_consumer;
  if (hta_open(&hta, &hta_consumer, d)) {
    struct samples_report unread;
    samples_close(samples, &unread, d);
    samples_free(&unread);
    sources_free(sources);
    tally_free(&tally);
    trace_reader_close(reader);
    trace_window_free(&window);
    return -1;
  }
  const struct trace_consumer *consumers[] = {&tally_consumer, &messages_consumer,
                                              &samples_consumer, &hta_consumer,
                                              &sources_consumer};
  struct trace_read_options options = {.threads = threads};
  /* A stream that could not be read is in the tally's error; only a failed read fails. */
  struct diag read;
  diag_init(&read);
  if (trace_read(reader, consumers, 5, &options, &read) == TRACE_READ_FAILED) {
    char chain[1024];
    diag_error(d, "%s", diag_join(&read, chain, sizeof chain));
  } else {
    if (run.discarded_events > tally.discarded)
      tally.discarded = run.discarded_events;
    /* A rank's trace holds no calibration event when the cost was cached: the run record
     * has what the rank measured or read. */
    if (!tally.has_calibration && run.event_ps) {
      tally.calibration_event_ps = run.event_ps;
      tally.calibration_byte_ps = run.byte_ps;
      tally.calibration_call_ps = run.call_ps;
      tally.has_calibration = true;
    }
    for (size_t i = 0; i < tally.actors.count; i++)
      tally.actors.list[i].rank = rank;
    /* A rank whose trace stopped short (cli/control/trace_budget.h) marks the job's
     * tables partial: a notice, which the result files carry and the report prints. */
    if (run.partial_reason != RUN_PARTIAL_NONE) {
      char partial[320];
      int len = snprintf(partial, sizeof partial,
                         "PARTIAL: rank %ld's trace stops %.2f s into the run (%s), keeping "
                         "%.1f MiB; %s",
                         rank, (double)run.partial_at_ns / 1e9,
                         run.partial_reason == RUN_PARTIAL_MAX_SIZE ? "--max-size reached"
                                                                    : "its file system filled up",
                         (double)run.kept_bytes / (double)(1u << 20),
                         run.partial_counting ? "its calls after that are counted with their "
                                                "times, not recorded"
                                              : "its calls after that are not in the tables");
      size_t shown = (size_t)len < sizeof partial ? (size_t)len : sizeof partial - 1;
      tally_add_notice(&tally, partial, shown);
    }
    rc = merge_tally(r, &tally);
    struct samples_report sampled;
    if (samples_close(samples, &sampled, d) || samples_append(&r->samples, &sampled, rank))
      rc = -1;
    samples = NULL;
    samples_free(&sampled);
    struct hta_report gpus;
    if (hta_close(hta, &gpus, d) || hta_append(&r->hta, gpus.gpus, gpus.gpu_count, rank))
      rc = -1;
    hta = NULL;
    hta_free(&gpus);
    /* Named now: the stacks' names live as long as the reader. */
    struct sources_table lines = {0};
    if (rc == 0 && sources_name(sources, &lines) == 0) {
      sources_table_set_rank(&lines, rank);
      rc = sources_table_merge(&r->sources, &lines);
    } else {
      rc = -1;
    }
    sources_table_free(&lines);
    for (size_t b = 0; rc == 0 && b < tally.backend_count; b++) {
      const struct tally_backend *tb = &tally.backends[b];
      uint64_t host_ns = 0, device_ns = 0;
      for (uint32_t f = 0; f < tb->function_count; f++)
        if (tb->host[f].calls) {
          spread_add(&r->function_ns[b][f], tb->host[f].total, rank);
          host_ns += tb->host[f].total;
        }
      for (size_t k = 0; k < tb->device_count; k++)
        device_ns += tb->device[k].time.total;
      /* Shares of the rank's time: its window's when one was asked. */
      uint64_t wall = r->window ? trace_window_longest_ns(&window) : run.wall_ns;
      if (wall && (host_ns || device_ns)) {
        spread_add(&r->host_share[b], (uint64_t)((double)host_ns * 1e6 / (double)wall), rank);
        spread_add(&r->device_share[b], (uint64_t)((double)device_ns * 1e6 / (double)wall),
                   rank);
      }
    }
  }
  diag_clear(&read);
  sources_free(sources);
  if (samples) { /* the read failed: nothing to report */
    struct samples_report unread;
    samples_close(samples, &unread, d);
    samples_free(&unread);
  }
  if (hta) {
    struct hta_report unread;
    hta_close(hta, &unread, d);
    hta_free(&unread);
  }
  if (rc == 0 && collectives_in_tally(&tally))
    rc = reduce_collectives(reader, rank, threads, r, d);
  tally_free(&tally);
  trace_reader_close(reader);
  trace_window_free(&window);
  if (rc == 0 && job_result_add_rank(r, rank))
    rc = -1;
  if (rc == 0 && run.wall_ns)
    r->ranks_timed++;
  if (rc == 0 && !(run.present && run.clean)) {
    struct job_rank_status s;
    job_rank_status_of(rank, &run, &s);
    rc = job_result_add_failed(r, &s);
  }
  return rc;
}
