/* tally: see tally.h. Each worker of the read tallies its streams into a tally of its
 * own (tally_fork), added into the run's at the end (tally_join). */
#include "tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "device_label.h"
#include "tracer_runtime.h"

static void stat_add(struct tally_stat *s, uint64_t ns, bool error) {
  tally_stat_add(s, ns, error);
}

static void stat_merge(struct tally_stat *into, const struct tally_stat *from) {
  tally_stat_merge(into, from);
}

/* A backend's per-function arrays, made at its first record (tally_backend.function_count
 * is 0 until then): a trace holds a few of the compiled-in backends, whose thousands of
 * functions (MPI, CUDA, HIP, Level Zero) cost each worker a calloc and its page faults
 * otherwise. Returns 0, or -1 when out of memory. */
int tally_backend_arrays(struct tally_backend *b) {
  if (b->host)
    return 0;
  uint32_t n = b->desc->function_count;
  /* One block: host and inside, then unfinished, message bytes and outer. */
  struct tally_stat *stats = calloc(1, (2 * sizeof *stats + 3 * sizeof(uint64_t)) * (n + 1));
  if (!stats)
    return -1;
  uint64_t *counts = (uint64_t *)(stats + 2 * (n + 1));
  b->host = stats;
  b->inside = stats + (n + 1);
  b->unfinished = counts;
  b->message_bytes = counts + (n + 1);
  b->outer = counts + 2 * (n + 1);
  b->function_count = n;
  return 0;
}

static int tally_init(struct tally *t) {
  memset(t, 0, sizeof *t);
  t->backend_count = backends_count();
  t->backends = calloc(t->backend_count ? t->backend_count : 1, sizeof *t->backends);
  if (!t->backends)
    return -1;
  for (size_t i = 0; i < t->backend_count; i++)
    t->backends[i].desc = tracer_backends[i];
  return 0;
}

/* The backend's tally, its arrays made at its first record; NULL when out of memory. */
static inline struct tally_backend *backend_of(struct tally *t, int backend) {
  struct tally_backend *b = &t->backends[backend];
  return __builtin_expect(b->host != NULL, 1) || tally_backend_arrays(b) == 0 ? b : NULL;
}

static struct tally_device *device_row(struct tally_backend *b, const char *name, size_t len,
                                       int kind, const char *device) {
  for (size_t i = 0; i < b->device_count; i++) {
    struct tally_device *d = &b->device[i];
    if (d->kind == kind && strlen(d->name) == len && strncmp(d->name, name, len) == 0 &&
        tally_same_device(d->device, device))
      return d;
  }
  if (b->device_count == b->device_cap) {
    size_t cap = b->device_cap ? b->device_cap * 2 : 16;
    struct tally_device *grown = realloc(b->device, cap * sizeof *grown);
    if (!grown)
      return NULL;
    b->device = grown;
    b->device_cap = cap;
  }
  struct tally_device *d = &b->device[b->device_count];
  memset(d, 0, sizeof *d);
  d->name = strndup(name, len);
  d->device = device ? strdup(device) : NULL;
  if (!d->name || (device && !d->device)) {
    free(d->name);
    return NULL;
  }
  d->kind = kind;
  b->device_count++;
  return d;
}

/* Notes the record's host, process and thread; returns its actor when the tally is
 * broken down per actor, else -1. */
static struct tally_noted *noted_slot(struct tally_backend *b, int64_t tid) {
  return &b->noted[(uint64_t)tid % TALLY_NOTED];
}

static bool was_noted(const struct tally_noted *n, int host, int64_t pid, int64_t tid) {
  return n->noted && n->tid == tid && n->pid == pid && n->host == host;
}

static long note_actor(struct tally *t, struct tally_backend *b, int host, int64_t pid,
                       int64_t tid, bool device) {
  struct tally_noted *n = noted_slot(b, tid);
  if (device || !was_noted(n, host, pid, tid)) {
    uint64_t h = (uint64_t)(uint32_t)host << 32;
    id_set_add(&b->hosts, (uint64_t)host);
    id_set_add(device ? &b->device_processes : &b->processes, h | (uint32_t)pid);
    id_set_add(device ? &b->device_threads : &b->threads, h | (uint32_t)tid);
    if (!device)
      *n = (struct tally_noted){true, host, pid, tid};
  }
  return t->by_actor ? actors_find(&t->actors, -1, host, pid, tid) : -1;
}

/* One call of minimal mode's batch: no arguments, so no rows or messages. */
static void on_batched_call(struct tally *t, struct tally_backend *b, const struct trace_call *c) {
  b->events++;
  t->batched_calls++;
  if (c->inside_other && !t->runtime_calls) {
    stat_add(&b->inside[c->function], c->duration_ns, c->failed);
    return;
  }
  stat_add(&b->host[c->function], c->duration_ns, c->failed);
  if (!c->depth)
    b->outer[c->function] += c->duration_ns;
  long actor = note_actor(t, b, c->from.host, c->pid, c->tid, false);
  struct actor_row *row =
      actor >= 0 ? actors_row(&t->actors, (uint32_t)actor, (uint32_t)c->backend,
                              (int32_t)c->function, 0, NULL, 0)
                 : NULL;
  if (row)
    stat_add(&row->time, c->duration_ns, c->failed);
}

int tally_call_row(const struct trace_call *c) {
  const struct tracer_function_desc *f = &c->desc->functions[c->function];
  const struct event_info *info = c->from.info;
  if (c->batched || !info || info->row < 0)
    return c->function;
  uint64_t slots[256];
  if ((size_t)f->slots[info->row].index >=
      trace_call_record(c, slots, f->slots[info->row].index + 1u))
    return c->function;
  /* Tallied per value of a param: the value's row (trace.rows of the spec). */
  int64_t value = event_map_slot_value(&f->slots[info->row], slots[f->slots[info->row].index]);
  for (uint32_t k = 0; f->row_names && k < f->row_names->count; k++)
    if (f->row_names->values[k].value == value && f->row_first + k < c->desc->function_count)
      return (int)(f->row_first + k);
  return c->function;
}

static int on_call(void *context, const struct trace_call *c) {
  struct tally *t = context;
  struct tally_backend *b = backend_of(t, c->backend);
  if (!b)
    return -1;
  if (c->batched) {
    on_batched_call(t, b, c);
    return 0;
  }
  if (c->inside_other && !t->runtime_calls) {
    /* A library's own call: under the call it was made in (-t, the timeline), not the
     * app's; no actor, no message. */
    stat_add(&b->inside[c->function], c->duration_ns, c->failed);
    b->events++;
    return 0;
  }
  const struct tracer_function_desc *f = &c->desc->functions[c->function];
  bool error = c->failed;
  int64_t function = tally_call_row(c);
  uint64_t slots[256];
  uint64_t ns = c->duration_ns;
  stat_add(&b->host[function], ns, error);
  if (!c->depth)
    b->outer[function] += ns;
  if (f->message.kind != TRACER_MESSAGE_NONE && f->message.bytes >= 0 && !error) {
    /* The bytes a message call moved (trace.messages of the spec). */
    size_t n = trace_call_record(c, slots, sizeof slots / sizeof *slots);
    if ((size_t)f->message.bytes < n)
      b->message_bytes[c->function] += slots[f->message.bytes];
  }
  b->events++;
  /* The common case first: the thread of the last call, no tally per actor. */
  if (!t->by_actor && was_noted(noted_slot(b, c->tid), c->from.host, c->pid, c->tid))
    return 0;
  long actor = note_actor(t, b, c->from.host, c->pid, c->tid, false);
  struct actor_row *row =
      actor >= 0 ? actors_row(&t->actors, (uint32_t)actor, (uint32_t)c->backend, (int32_t)function, 0,
                              NULL, 0)
                 : NULL;
  if (row)
    stat_add(&row->time, ns, error);
  return 0;
}

static int on_device(void *context, const struct trace_device *c) {
  struct tally *t = context;
  if (c->backend < 0)
    return 0;
  struct tally_backend *b = &t->backends[c->backend];
  char label[DEVICE_LABEL_SIZE];
  if (c->device >= 0)
    device_label(b->desc->name, c->device, c->device_name, label, sizeof label);
  struct tally_device *d =
      device_row(b, c->name, c->name_len, c->kind, c->device >= 0 ? label : NULL);
  if (!d)
    return 0;
  uint64_t ns = c->duration_ns;
  stat_add(&d->time, ns, false);
  if (d->time.calls == 1 || c->bytes < d->min_bytes)
    d->min_bytes = c->bytes;
  if (c->bytes > d->max_bytes)
    d->max_bytes = c->bytes;
  d->bytes += c->bytes;
  /* The command's thread is the one that submitted it, where known: CUPTI hands its
   * records over on a thread of its own, whose id the event carries. */
  int64_t tid = c->call_tid > 0 ? c->call_tid : c->tid;
  long actor = note_actor(t, b, c->from.host, c->pid, tid, true);
  struct actor_row *row =
      actor >= 0 ? actors_row(&t->actors, (uint32_t)actor, (uint32_t)c->backend, -1, c->kind,
                              c->name, c->name_len)
                 : NULL;
  if (row) {
    stat_add(&row->time, ns, false);
    row->bytes += c->bytes;
  }
  return 0;
}

static int on_unfinished(void *context, const struct trace_unfinished *u) {
  struct tally_backend *b = backend_of(context, u->backend);
  if (!b)
    return -1;
  b->unfinished[u->function]++;
  return 0;
}

/* Calls of a counted function on one thread: a block of calls added at once. */
static int on_counted(void *context, const struct trace_counted *c) {
  struct tally *t = context;
  struct tally_backend *b = backend_of(t, c->backend);
  if (!b)
    return -1;
  struct tally_stat block = {
      .calls = c->calls,
      .errors = c->failed ? c->calls : 0,
      .total = c->total_ns,
      .min = c->min_ns,
      .max = c->max_ns,
  };
  b->events++;
  t->counted_calls += c->calls;
  if (c->inside_other && !t->runtime_calls) {
    stat_merge(&b->inside[c->function], &block);
    return 0;
  }
  stat_merge(&b->host[c->function], &block);
  /* Counted calls: getters and polls, not nested, but for those made inside another
   * backend's call (counted as the app's with --runtime-calls: in their caller's time). */
  if (!c->inside_other)
    b->outer[c->function] += block.total;
  long actor = note_actor(t, b, c->from.host, c->pid, c->tid, false);
  struct actor_row *row =
      actor >= 0 ? actors_row(&t->actors, (uint32_t)actor, (uint32_t)c->backend,
                              (int32_t)c->function, 0, NULL, 0)
                 : NULL;
  if (row)
    stat_merge(&row->time, &block);
  return 0;
}

static int on_cost(void *context, const struct trace_cost *c) {
  struct tally *t = context;
  if (c->kind == TRACE_COST_CLOCK_READ) {
    if (!t->has_clock_read || c->clock_read_ns < t->clock_read_ns)
      t->clock_read_ns = c->clock_read_ns;
    t->has_clock_read = true;
    if (c->counted_ps)
      t->counted_call_ps = counted_cost_least(t->counted_call_ps, c->counted_ps);
  } else {
    t->calibration_event_ps = c->event_ps;
    t->calibration_byte_ps = c->byte_ps;
    if (c->call_ps)
      t->calibration_call_ps = c->call_ps;
    t->has_calibration = true;
    t->clock_is_tsc = c->clock_is_tsc;
  }
  return 0;
}

static int on_region(void *context, const struct trace_region *r) {
  struct tally *t = context;
  regions_add(&t->regions, r->backend, r->backend_len, r->name, r->name_len, r->duration_ns);
  return 0;
}

static int on_pause(void *context, const struct trace_pause *p) {
  struct tally *t = context;
  t->pauses++;
  t->paused_ns += p->duration_ns;
  return 0;
}

int tally_add_notice(struct tally *t, const char *text, size_t len) {
  for (size_t i = 0; i < t->notice_count; i++)
    if (strlen(t->notices[i]) == len && memcmp(t->notices[i], text, len) == 0)
      return 0;
  char **grown = realloc(t->notices, (t->notice_count + 1) * sizeof *grown);
  if (!grown)
    return -1;
  t->notices = grown;
  if (!(t->notices[t->notice_count] = strndup(text, len)))
    return -1;
  t->notice_count++;
  return 0;
}

static int on_notice(void *context, const struct trace_notice *n) {
  return tally_add_notice(context, n->text, n->text_len);
}

static int add_rank(struct tally *t, const struct tally_rank *r) {
  for (size_t i = 0; i < t->rank_count; i++)
    if (t->ranks[i].host == r->host && t->ranks[i].pid == r->pid)
      return 0;
  struct tally_rank *grown = realloc(t->ranks, (t->rank_count + 1) * sizeof *grown);
  if (!grown)
    return -1;
  t->ranks = grown;
  t->ranks[t->rank_count++] = *r;
  return 0;
}

static int on_rank(void *context, const struct trace_rank *r) {
  struct tally_rank rank = {r->from.host, r->pid, r->rank, r->size, ""};
  snprintf(rank.launcher, sizeof rank.launcher, "%s", r->launcher);
  return add_rank(context, &rank);
}

static void set_error(struct tally *t, const char *message) {
  if (!t->error)
    t->error = strdup(message);
}

/* A stream read: its events, and what it lost. */
static int on_stream_done(void *context, const struct trace_stream_stats *s) {
  struct tally *t = context;
  t->events += s->events;
  t->own_events += s->own_events;
  t->batch_events += s->batch_events;
  t->trace_bytes += s->bytes;
  t->discarded += s->discarded;
  if (s->discarded) {
    struct tally_loss *grown = realloc(t->losses, (t->loss_count + 1) * sizeof *grown);
    if (grown) {
      t->losses = grown;
      t->losses[t->loss_count].stream = strdup(s->path);
      t->losses[t->loss_count++].discarded = s->discarded;
    }
  }
  return 0;
}

static int merge_into(struct tally *into, struct tally *from) {
  into->events += from->events;
  into->own_events += from->own_events;
  into->counted_calls += from->counted_calls;
  into->batched_calls += from->batched_calls;
  into->batch_events += from->batch_events;
  into->trace_bytes += from->trace_bytes;
  if (from->has_clock_read && (!into->has_clock_read || from->clock_read_ns < into->clock_read_ns))
    into->clock_read_ns = from->clock_read_ns;
  into->has_clock_read |= from->has_clock_read;
  into->counted_call_ps = counted_cost_least(into->counted_call_ps, from->counted_call_ps);
  if (from->has_calibration) {
    into->calibration_event_ps = from->calibration_event_ps;
    into->calibration_byte_ps = from->calibration_byte_ps;
    into->calibration_call_ps = from->calibration_call_ps;
    into->has_calibration = true;
    into->clock_is_tsc = from->clock_is_tsc;
  }
  into->discarded += from->discarded;
  if (from->loss_count) {
    struct tally_loss *grown =
        realloc(into->losses, (into->loss_count + from->loss_count) * sizeof *grown);
    if (!grown)
      return -1;
    into->losses = grown;
    for (size_t i = 0; i < from->loss_count; i++) {
      into->losses[into->loss_count++] = from->losses[i];
      from->losses[i].stream = NULL; /* moved */
    }
  }
  if (from->error)
    set_error(into, from->error);
  into->pauses += from->pauses;
  into->paused_ns += from->paused_ns;
  for (size_t i = 0; i < from->notice_count; i++)
    if (tally_add_notice(into, from->notices[i], strlen(from->notices[i])))
      return -1;
  for (size_t i = 0; i < from->rank_count; i++)
    if (add_rank(into, &from->ranks[i]))
      return -1;
  if (regions_merge(&into->regions, &from->regions))
    return -1;
  /* The workers share the host indices (stream_host). */
  if (from->actors.count && actors_merge(&into->actors, &from->actors, NULL, ACTORS_KEEP_RANK))
    return -1;
  for (size_t i = 0; i < into->backend_count; i++) {
    struct tally_backend *a = &into->backends[i], *b = &from->backends[i];
    if (b->function_count && tally_backend_arrays(a))
      return -1;
    for (uint32_t f = 0; f < b->function_count; f++) {
      stat_merge(&a->host[f], &b->host[f]);
      stat_merge(&a->inside[f], &b->inside[f]);
      a->unfinished[f] += b->unfinished[f];
      a->message_bytes[f] += b->message_bytes[f];
      a->outer[f] += b->outer[f];
    }
    for (size_t d = 0; d < b->device_count; d++) {
      struct tally_device *src = &b->device[d];
      struct tally_device *dst =
          device_row(a, src->name, strlen(src->name), src->kind, src->device);
      if (!dst)
        return -1;
      tally_device_merge(dst, src);
    }
    a->events += b->events;
    if (id_set_merge(&a->hosts, &b->hosts) || id_set_merge(&a->processes, &b->processes) ||
        id_set_merge(&a->threads, &b->threads) ||
        id_set_merge(&a->device_processes, &b->device_processes) ||
        id_set_merge(&a->device_threads, &b->device_threads))
      return -1;
  }
  return 0;
}

/* Each call's end - start holds one clock read (the end's): take it off, as if the clock
 * were free. The same for every call, so totals, minimums and maximums shift alike. */
static void take_off_clock_reads(struct tally *t) {
  uint64_t c = t->clock_read_ns;
  for (size_t i = 0; c && i < t->backend_count; i++) {
    struct tally_backend *b = &t->backends[i];
    for (uint32_t f = 0; f < 2 * b->function_count; f++) {
      struct tally_stat *s =
          f < b->function_count ? &b->host[f] : &b->inside[f - b->function_count];
      s->total = s->total > s->calls * c ? s->total - s->calls * c : 0;
      s->min = s->min > c ? s->min - c : 0;
      s->max = s->max > c ? s->max - c : 0;
    }
  }
  actors_take_off(&t->actors, c);
}

static void *tally_fork(void *context) {
  const struct tally *t = context;
  struct tally *worker = malloc(sizeof *worker);
  if (!worker || tally_init(worker)) {
    if (worker)
      tally_free(worker);
    free(worker);
    return NULL;
  }
  worker->by_actor = t->by_actor;
  worker->runtime_calls = t->runtime_calls;
  return worker;
}

static int tally_join(void *context, void *worker) {
  struct tally *t = context, *w = worker;
  int rc = merge_into(t, w);
  tally_free(w);
  free(w);
  return rc;
}

/* Ranks by rank, then host and pid: the report's order, whatever order the read met
 * them in (stream by stream on several threads, the streams' order varies). */
static int by_rank(const void *a, const void *b) {
  const struct tally_rank *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  if (x->host != y->host)
    return x->host < y->host ? -1 : 1;
  return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The read's end: its first error, the hostnames, the clock reads taken off, the ranks
 * in order. */
static int on_finish(void *context, const struct trace_summary *summary) {
  struct tally *t = context;
  if (summary->error)
    set_error(t, summary->error);
  t->hostnames = calloc(summary->host_count + 1, sizeof *t->hostnames);
  if (!t->hostnames)
    return -1;
  for (size_t i = 0; i < summary->host_count; i++)
    if (!(t->hostnames[t->host_count++] = strdup(summary->hosts[i])))
      return -1;
  take_off_clock_reads(t);
  if (t->rank_count > 1)
    qsort(t->ranks, t->rank_count, sizeof *t->ranks, by_rank);
  /* A launcher's ranks in one trace: their actors are theirs (the launcher keeps -1). */
  for (size_t i = 0; i < t->rank_count; i++)
    if (actors_set_rank(&t->actors, t->ranks[i].host, t->ranks[i].pid, t->ranks[i].rank))
      return -1;
  return 0;
}

int tally_open(struct tally *t, bool by_actor, struct trace_consumer *consumer) {
  if (tally_init(t))
    return -1;
  t->by_actor = by_actor;
  /* A message's bytes and a per-value row come from the call's record (tally_call_row). */
  *consumer = (struct trace_consumer){.name = "tally",
                                      .needs = TRACE_NEEDS_RECORD,
                                      .context = t,
                                      .fork = tally_fork,
                                      .join = tally_join,
                                      .call = on_call,
                                      .device = on_device,
                                      .region = on_region,
                                      .pause = on_pause,
                                      .counted = on_counted,
                                      .unfinished = on_unfinished,
                                      .cost = on_cost,
                                      .notice = on_notice,
                                      .rank = on_rank,
                                      .stream_done = on_stream_done,
                                      .finish = on_finish};
  return 0;
}

int tally_trace(struct trace_reader *reader, const struct trace_read_options *options,
                bool by_actor, struct tally *t, struct diag *d) {
  struct trace_consumer consumer;
  if (tally_open(t, by_actor, &consumer)) {
    set_error(t, "Cannot analyse the trace: out of memory");
    return diag_error(d, "Cannot analyse the trace: out of memory");
  }
  const struct trace_consumer *consumers[] = {&consumer};
  return trace_read(reader, consumers, 1, options, d) == TRACE_READ_FAILED ? -1 : 0;
}

int tally_empty(struct tally *t) {
  if (tally_init(t))
    return -1;
  for (size_t i = 0; i < t->backend_count; i++)
    if (tally_backend_arrays(&t->backends[i]))
      return -1;
  return 0;
}

struct tally_device *tally_device_row(struct tally_backend *b, const char *name, int kind,
                                      const char *device) {
  return device_row(b, name, strlen(name), kind, device);
}

void tally_free(struct tally *t) {
  free(t->ranks);
  for (size_t i = 0; i < t->notice_count; i++)
    free(t->notices[i]);
  free(t->notices);
  for (size_t i = 0; t->backends && i < t->backend_count; i++) {
    struct tally_backend *b = &t->backends[i];
    free(b->host); /* one block with the other arrays (tally_backend_arrays) */
    for (size_t d = 0; d < b->device_count; d++) {
      free(b->device[d].name);
      free(b->device[d].device);
    }
    free(b->device);
    id_set_free(&b->hosts);
    id_set_free(&b->processes);
    id_set_free(&b->threads);
    id_set_free(&b->device_processes);
    id_set_free(&b->device_threads);
  }
  free(t->backends);
  for (size_t i = 0; i < t->loss_count; i++)
    free(t->losses[i].stream);
  free(t->losses);
  for (size_t i = 0; i < t->host_count; i++)
    free(t->hostnames[i]);
  free(t->hostnames);
  free(t->error);
  regions_free(&t->regions);
  actors_free(&t->actors);
  memset(t, 0, sizeof *t);
}

bool tally_has_device_work(const struct tally *t) {
  for (size_t i = 0; i < t->backend_count; i++)
    if (t->backends[i].device_count)
      return true;
  return false;
}

static int by_time_then_name(uint64_t ta, uint64_t tb, const char *na, const char *nb) {
  if (ta != tb)
    return ta > tb ? -1 : 1;
  return strcmp(na, nb);
}

static int compare_host(const void *a, const void *b, void *context) {
  const struct tally_backend *backend = context;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return by_time_then_name(backend->host[x].total, backend->host[y].total,
                           backend->desc->functions[x].name, backend->desc->functions[y].name);
}

static int compare_device(const void *a, const void *b, void *context) {
  const struct tally_backend *backend = context;
  const struct tally_device *x = &backend->device[*(const size_t *)a];
  const struct tally_device *y = &backend->device[*(const size_t *)b];
  return by_time_then_name(x->time.total, y->time.total, x->name, y->name);
}

void tally_sorted_host(const struct tally_backend *b, uint32_t *order) {
  for (uint32_t i = 0; i < b->function_count; i++)
    order[i] = i;
  qsort_r(order, b->function_count, sizeof *order, compare_host, (void *)b);
}

void tally_sorted_device(const struct tally_backend *b, int kind, size_t *order, size_t *count) {
  size_t n = 0;
  for (size_t i = 0; i < b->device_count; i++)
    if (kind < 0 || b->device[i].kind == kind)
      order[n++] = i;
  qsort_r(order, n, sizeof *order, compare_device, (void *)b);
  *count = n;
}
