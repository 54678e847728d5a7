/* tally: see tally.h. */
#include "tally.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "tracer_runtime.h"

struct progress {
  atomic_uint_fast64_t bytes_done;
  uint64_t bytes_total;
  atomic_int workers_left;
};

struct worker {
  const struct ctf_trace *trace;
  const struct event_map *map;
  const int *stream_host;   /* host index by stream index */
  size_t *streams;          /* assigned stream indices; owned */
  size_t stream_count;
  struct tally tally;       /* this worker's partial tally */
  struct progress *progress;
};

static void stat_add(struct tally_stat *s, uint64_t ns, bool error) {
  tally_stat_add(s, ns, error);
}

static void stat_merge(struct tally_stat *into, const struct tally_stat *from) {
  tally_stat_merge(into, from);
}

static int tally_init(struct tally *t) {
  memset(t, 0, sizeof *t);
  t->backend_count = backends_count();
  t->backends = calloc(t->backend_count ? t->backend_count : 1, sizeof *t->backends);
  if (!t->backends)
    return -1;
  for (size_t i = 0; i < t->backend_count; i++) {
    t->backends[i].desc = tracer_backends[i];
    t->backends[i].function_count = tracer_backends[i]->function_count;
    t->backends[i].host = calloc(tracer_backends[i]->function_count + 1, sizeof(struct tally_stat));
    t->backends[i].unfinished = calloc(tracer_backends[i]->function_count + 1, sizeof(uint64_t));
    t->backends[i].message_bytes =
        calloc(tracer_backends[i]->function_count + 1, sizeof(uint64_t));
    if (!t->backends[i].host || !t->backends[i].unfinished || !t->backends[i].message_bytes)
      return -1;
  }
  return 0;
}

static struct tally_device *device_row(struct tally_backend *b, const char *name, size_t len,
                                       int kind) {
  for (size_t i = 0; i < b->device_count; i++) {
    struct tally_device *d = &b->device[i];
    if (d->kind == kind && strlen(d->name) == len && strncmp(d->name, name, len) == 0)
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
  if (!d->name)
    return NULL;
  d->kind = kind;
  b->device_count++;
  return d;
}

static int64_t as_int(const struct ctf_value *v) {
  return v->kind == CTF_VALUE_SIGNED ? v->u.s : (int64_t)v->u.u;
}

static bool field_int(const struct ctf_event *ev, int field, int64_t *out) {
  struct ctf_value v;
  if (field < 0 || ctf_event_decode_field(ev, (size_t)field, &v, NULL) != CTF_OK)
    return false;
  if (v.kind != CTF_VALUE_SIGNED && v.kind != CTF_VALUE_UNSIGNED)
    return false;
  *out = as_int(&v);
  return true;
}

/* Times in events (timestamps, `start` and `end` fields) are values of the trace clock:
 * nanoseconds for LTTng's monotonic clock, ticks for the tracer's TSC clock
 * (runtime/tracer_clock.h). The span between two of them, in nanoseconds. */
static uint64_t span_ns(const struct ctf_event *ev, uint64_t from, uint64_t to) {
  if (to <= from)
    return 0;
  uint64_t ticks = to - from;
  const struct ctf_clock_class *clock = ev->event_class->stream_class->clock;
  if (!clock || clock->frequency == 1000000000u || clock->frequency == 0)
    return ticks;
  return (uint64_t)((double)ticks * (1e9 / (double)clock->frequency) + 0.5);
}

/* Notes the event's host, process and thread; returns its actor when the tally is broken
 * down per actor, else -1. */
static long note_actor(struct tally *t, struct tally_backend *b, const struct event_map *map,
                       const struct event_info *info, const struct ctf_event *ev, int host,
                       bool device) {
  int64_t vpid = 0, vtid = 0;
  event_map_ids(map, info, ev, &vpid, &vtid);
  uint64_t h = (uint64_t)(uint32_t)host << 32;
  id_set_add(&b->hosts, (uint64_t)host);
  id_set_add(device ? &b->device_processes : &b->processes, h | (uint32_t)vpid);
  id_set_add(device ? &b->device_threads : &b->threads, h | (uint32_t)vtid);
  return t->by_actor ? actors_find(&t->actors, -1, host, vpid, vtid) : -1;
}

/* One call of minimal mode's batch: no arguments, so no rows or messages. */
static void on_batched_call(struct tally *t, struct tally_backend *b,
                            const struct event_info *info, const struct ctf_event *ev,
                            const struct event_call *call, long actor) {
  if (call->function < 0 || (uint64_t)call->function >= b->function_count)
    return;
  const struct tracer_function_desc *f = &info->desc->functions[call->function];
  bool error = event_map_call_failed(info->desc, f, call->status);
  uint64_t ns = span_ns(ev, call->start, call->end);
  stat_add(&b->host[call->function], ns, error);
  b->events++;
  t->batched_calls++;
  struct actor_row *row =
      actor >= 0 ? actors_row(&t->actors, (uint32_t)actor, (uint32_t)info->backend,
                              (int32_t)call->function, 0, NULL, 0)
                 : NULL;
  if (row)
    stat_add(&row->time, ns, error);
}

static void on_batch(struct tally *t, const struct event_map *map,
                     const struct event_info *info, const struct ctf_event *ev, int host) {
  struct tally_backend *b = &t->backends[info->backend];
  struct event_call calls[EVENT_BATCH_MAX];
  size_t n = event_map_batch(info, ev, calls, EVENT_BATCH_MAX);
  if (!n)
    return;
  t->batch_events++;
  long actor = note_actor(t, b, map, info, ev, host, false); /* one thread's calls */
  for (size_t i = 0; i < n; i++)
    on_batched_call(t, b, info, ev, &calls[i], actor);
}

static void on_call(struct tally *t, const struct event_map *map, const struct event_info *info,
                    const struct ctf_event *ev, int host) {
  struct tally_backend *b = &t->backends[info->backend];
  struct event_call call;
  if (info->batch) {
    on_batch(t, map, info, ev, host);
    return;
  }
  if (!event_map_call(info, ev, &call) || call.function < 0 ||
      (uint64_t)call.function >= b->function_count)
    return;
  const struct tracer_function_desc *f = &info->desc->functions[call.function];
  bool error = event_map_call_failed(info->desc, f, call.status);
  int64_t function = call.function;
  uint64_t slots[256];
  if (info->row >= 0 && (size_t)f->slots[info->row].index <
                            event_map_record(info, ev, slots, f->slots[info->row].index + 1u)) {
    /* Tallied per value of a param: the value's row (trace.rows of the spec). */
    int64_t value = event_map_slot_value(&f->slots[info->row], slots[f->slots[info->row].index]);
    for (uint32_t k = 0; f->row_names && k < f->row_names->count; k++)
      if (f->row_names->values[k].value == value && f->row_first + k < b->function_count) {
        function = f->row_first + k;
        break;
      }
  }
  uint64_t ns = span_ns(ev, call.start, call.end);
  stat_add(&b->host[function], ns, error);
  if (f->message.kind != TRACER_MESSAGE_NONE && f->message.bytes >= 0 && !error) {
    /* The bytes a message call moved (trace.messages of the spec). */
    size_t n = event_map_record(info, ev, slots, sizeof slots / sizeof *slots);
    if ((size_t)f->message.bytes < n)
      b->message_bytes[call.function] += slots[f->message.bytes];
  }
  b->events++;
  long actor = note_actor(t, b, map, info, ev, host, false);
  struct actor_row *row =
      actor >= 0 ? actors_row(&t->actors, (uint32_t)actor, (uint32_t)info->backend, (int32_t)function, 0,
                              NULL, 0)
                 : NULL;
  if (row)
    stat_add(&row->time, ns, error);
}

static void on_device(struct tally *t, const struct event_map *map,
                      const struct event_info *info, const struct ctf_event *ev, int host) {
  struct ctf_value backend, name;
  int64_t kind = 0, bytes = 0, start = 0, end = 0;
  if (ctf_event_decode_field(ev, (size_t)info->device_backend, &backend, NULL) != CTF_OK ||
      ctf_event_decode_field(ev, (size_t)info->device_name, &name, NULL) != CTF_OK ||
      backend.kind != CTF_VALUE_STRING || name.kind != CTF_VALUE_STRING ||
      !field_int(ev, info->device_kind, &kind) || !field_int(ev, info->start, &start) ||
      !field_int(ev, info->device_end, &end))
    return;
  field_int(ev, info->device_bytes, &bytes);
  for (size_t i = 0; i < t->backend_count; i++) {
    const char *bn = tracer_backends[i]->name;
    if (strlen(bn) != backend.u.string.length || strncmp(bn, backend.u.string.chars, backend.u.string.length))
      continue;
    struct tally_backend *b = &t->backends[i];
    struct tally_device *d = device_row(b, name.u.string.chars, name.u.string.length, (int)kind);
    if (!d)
      return;
    /* In uint64_t: end - start does not always fit in int64_t (a signed overflow on a
     * corrupt trace, found by tests/fuzz/fuzz_ctf_analysis.c). */
    uint64_t ns = span_ns(ev, (uint64_t)start, (uint64_t)end);
    stat_add(&d->time, ns, false);
    if (d->time.calls == 1 || (uint64_t)bytes < d->min_bytes)
      d->min_bytes = (uint64_t)bytes;
    if ((uint64_t)bytes > d->max_bytes)
      d->max_bytes = (uint64_t)bytes;
    d->bytes += (uint64_t)bytes;
    long actor = note_actor(t, b, map, info, ev, host, true);
    struct actor_row *row =
        actor >= 0 ? actors_row(&t->actors, (uint32_t)actor, (uint32_t)i, -1, (int)kind,
                                name.u.string.chars, name.u.string.length)
                   : NULL;
    if (row) {
      stat_add(&row->time, ns, false);
      row->bytes += (uint64_t)bytes;
    }
    return;
  }
}

/* The backend an event names in its `backend` field, and the function it names, when
 * both are known: else NULL. */
static struct tally_backend *named_function(struct tally *t, const struct event_info *info,
                                            const struct ctf_event *ev, int64_t *function) {
  struct ctf_value backend;
  if (ctf_event_decode_field(ev, (size_t)info->device_backend, &backend, NULL) != CTF_OK ||
      backend.kind != CTF_VALUE_STRING || !field_int(ev, info->function_field, function))
    return NULL;
  for (size_t i = 0; i < t->backend_count; i++) {
    const char *bn = tracer_backends[i]->name;
    if (strlen(bn) == backend.u.string.length &&
        strncmp(bn, backend.u.string.chars, backend.u.string.length) == 0 && *function >= 0 &&
        (uint64_t)*function < t->backends[i].function_count)
      return &t->backends[i];
  }
  return NULL;
}

static void on_unfinished(struct tally *t, const struct event_info *info,
                          const struct ctf_event *ev) {
  int64_t function = -1;
  struct tally_backend *b = named_function(t, info, ev, &function);
  if (b)
    b->unfinished[function]++;
}

/* Calls of a counted function on one thread: a block of calls added at once. */
static void on_counted(struct tally *t, const struct event_map *map,
                       const struct event_info *info, const struct ctf_event *ev, int host) {
  int64_t function = -1, status = 0, calls = 0, total = 0, min = 0, max = 0;
  struct tally_backend *b = named_function(t, info, ev, &function);
  if (!b || !field_int(ev, info->status, &status) || !field_int(ev, info->calls, &calls) ||
      !field_int(ev, info->total, &total) || !field_int(ev, info->min, &min) ||
      !field_int(ev, info->max, &max) || calls <= 0)
    return;
  bool error = event_map_call_failed(b->desc, &b->desc->functions[function], status);
  struct tally_stat block = {
      .calls = (uint64_t)calls,
      .errors = error ? (uint64_t)calls : 0,
      .total = span_ns(ev, 0, (uint64_t)total),
      .min = span_ns(ev, 0, (uint64_t)min),
      .max = span_ns(ev, 0, (uint64_t)max),
  };
  stat_merge(&b->host[function], &block);
  b->events++;
  t->counted_calls += (uint64_t)calls;
  long actor = note_actor(t, b, map, info, ev, host, false);
  struct actor_row *row =
      actor >= 0 ? actors_row(&t->actors, (uint32_t)actor, (uint32_t)(b - t->backends),
                              (int32_t)function, 0, NULL, 0)
                 : NULL;
  if (row)
    stat_merge(&row->time, &block);
}

static void on_cost(struct tally *t, const struct event_info *info, const struct ctf_event *ev) {
  int64_t cost, counted_ps, event_ps, byte_ps, call_ps = 0;
  if (info->role == EVENT_CLOCK_READ && field_int(ev, info->cost, &cost) && cost >= 0) {
    uint64_t ns = span_ns(ev, 0, (uint64_t)cost);
    if (!t->has_clock_read || ns < t->clock_read_ns)
      t->clock_read_ns = ns;
    t->has_clock_read = true;
    if (field_int(ev, info->counted_ps, &counted_ps) && counted_ps > 0)
      t->counted_call_ps = counted_cost_least(t->counted_call_ps, (uint64_t)counted_ps);
  } else if (info->role == EVENT_CALIBRATION && field_int(ev, info->event_ps, &event_ps) &&
             field_int(ev, info->byte_ps, &byte_ps) && event_ps > 0 && byte_ps >= 0) {
    t->calibration_event_ps = (uint64_t)event_ps;
    t->calibration_byte_ps = (uint64_t)byte_ps;
    if (field_int(ev, info->call_ps, &call_ps) && call_ps > 0)
      t->calibration_call_ps = (uint64_t)call_ps;
    t->has_calibration = true;
    const struct ctf_clock_class *clock = ev->event_class->stream_class->clock;
    t->clock_is_tsc = clock && clock->frequency && clock->frequency != 1000000000u;
  }
}

static void on_region(struct tally *t, const struct event_info *info,
                      const struct ctf_event *ev) {
  struct ctf_value backend, name;
  int64_t start = 0, end = 0;
  if (!field_int(ev, info->start, &start) || !field_int(ev, info->device_end, &end))
    return;
  if (info->role == EVENT_PAUSED) {
    t->pauses++;
    t->paused_ns += span_ns(ev, (uint64_t)start, (uint64_t)end);
    return;
  }
  if (ctf_event_decode_field(ev, (size_t)info->device_backend, &backend, NULL) != CTF_OK ||
      ctf_event_decode_field(ev, (size_t)info->device_name, &name, NULL) != CTF_OK ||
      backend.kind != CTF_VALUE_STRING || name.kind != CTF_VALUE_STRING)
    return;
  regions_add(&t->regions, backend.u.string.chars, backend.u.string.length,
              name.u.string.chars, name.u.string.length,
              span_ns(ev, (uint64_t)start, (uint64_t)end));
}

static void set_error(struct tally *t, const char *message) {
  if (!t->error)
    t->error = strdup(message);
}

static void read_stream(struct worker *w, size_t stream) {
  struct tally *t = &w->tally;
  struct ctf_cursor *cursor;
  struct ctf_error error;
  if (ctf_cursor_open(w->trace, stream, &cursor, &error) != CTF_OK) {
    set_error(t, error.message);
    return;
  }
  int host = w->stream_host[stream];
  uint64_t discarded_before = t->discarded;
  uint64_t packet = UINT64_MAX; /* index of the packet being read: the cursor reuses its struct */
  const struct ctf_event *ev;
  uint64_t last_offset = 0, count = 0;
  enum ctf_status st;
  for (;;) {
    st = ctf_cursor_next(cursor, &ev, &error);
    if (st != CTF_OK) {
      if (st == CTF_END || ctf_cursor_failed(cursor))
        break;
      set_error(t, error.message); /* a damaged packet, skipped: the rest still counts */
      continue;
    }
    t->events++;
    if (ev->packet->index != packet) {
      packet = ev->packet->index;
      t->discarded += ev->packet->events_discarded_new;
    }
    const struct event_info *info = &w->map->infos[ev->event_class->index];
    if (info->role == EVENT_CALL)
      on_call(t, w->map, info, ev, host);
    else if (info->role == EVENT_DEVICE_COMMAND)
      on_device(t, w->map, info, ev, host);
    else if (info->role == EVENT_UNFINISHED)
      on_unfinished(t, info, ev);
    else if (info->role == EVENT_COUNTED)
      on_counted(t, w->map, info, ev, host);
    else if (info->role == EVENT_CLOCK_READ || info->role == EVENT_CALIBRATION)
      on_cost(t, info, ev);
    if (info->role == EVENT_CLOCK_READ || info->role == EVENT_CALIBRATION ||
        info->role == EVENT_CALIBRATION_SAMPLE)
      t->own_events++;
    else if (info->role == EVENT_REGION || info->role == EVENT_PAUSED)
      on_region(t, info, ev);
    if ((++count & 0xffff) == 0) {
      atomic_fetch_add(&w->progress->bytes_done, ev->offset - last_offset);
      last_offset = ev->offset;
    }
  }
  if (st != CTF_END && ctf_cursor_failed(cursor))
    set_error(t, error.message);
  const struct ctf_stream *s = ctf_trace_stream(w->trace, stream);
  atomic_fetch_add(&w->progress->bytes_done, s->file_size - last_offset);
  if (t->discarded > discarded_before) {
    struct tally_loss *grown = realloc(t->losses, (t->loss_count + 1) * sizeof *grown);
    if (grown) {
      t->losses = grown;
      t->losses[t->loss_count].stream = strdup(s->path);
      t->losses[t->loss_count++].discarded = t->discarded - discarded_before;
    }
  }
  ctf_cursor_close(cursor);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  for (size_t i = 0; i < w->stream_count; i++)
    read_stream(w, w->streams[i]);
  atomic_fetch_sub(&w->progress->workers_left, 1);
  return NULL;
}

static int merge_into(struct tally *into, struct tally *from) {
  into->events += from->events;
  into->own_events += from->own_events;
  into->counted_calls += from->counted_calls;
  into->batched_calls += from->batched_calls;
  into->batch_events += from->batch_events;
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
  if (regions_merge(&into->regions, &from->regions))
    return -1;
  /* The workers share the host indices (stream_host). */
  if (from->actors.count && actors_merge(&into->actors, &from->actors, NULL, ACTORS_KEEP_RANK))
    return -1;
  for (size_t i = 0; i < into->backend_count; i++) {
    struct tally_backend *a = &into->backends[i], *b = &from->backends[i];
    for (uint32_t f = 0; f < a->function_count; f++) {
      stat_merge(&a->host[f], &b->host[f]);
      a->unfinished[f] += b->unfinished[f];
      a->message_bytes[f] += b->message_bytes[f];
    }
    for (size_t d = 0; d < b->device_count; d++) {
      struct tally_device *src = &b->device[d];
      struct tally_device *dst = device_row(a, src->name, strlen(src->name), src->kind);
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

static int host_index(struct tally *t, const char *name) {
  for (size_t i = 0; i < t->host_count; i++)
    if (strcmp(t->hostnames[i], name) == 0)
      return (int)i;
  char **grown = realloc(t->hostnames, (t->host_count + 1) * sizeof *grown);
  if (!grown)
    return 0;
  t->hostnames = grown;
  t->hostnames[t->host_count] = strdup(name);
  return (int)t->host_count++;
}

/* Each call's end - start holds one clock read (the end's): take it off, as if the clock
 * were free. The same for every call, so totals, minimums and maximums shift alike. */
static void take_off_clock_reads(struct tally *t) {
  uint64_t c = t->clock_read_ns;
  for (size_t i = 0; c && i < t->backend_count; i++) {
    struct tally_backend *b = &t->backends[i];
    for (uint32_t f = 0; f < b->function_count; f++) {
      struct tally_stat *s = &b->host[f];
      s->total = s->total > s->calls * c ? s->total - s->calls * c : 0;
      s->min = s->min > c ? s->min - c : 0;
      s->max = s->max > c ? s->max - c : 0;
    }
  }
  actors_take_off(&t->actors, c);
}

static void draw_progress(const struct progress *p, bool final) {
  uint64_t done = atomic_load(&p->bytes_done);
  double pct = p->bytes_total ? 100.0 * (double)done / (double)p->bytes_total : 100.0;
  fprintf(stderr, "\rtracer: analysing the trace: %5.1f%%%s", pct > 100 ? 100 : pct,
          final ? "\n" : "");
  fflush(stderr);
}

static int tally_run(const struct ctf_trace *trace, const struct event_map *map, unsigned threads,
                     bool show_progress, bool by_actor, struct tally *tally) {
  if (tally_init(tally))
    return -1;
  tally->by_actor = by_actor;
  size_t streams = ctf_trace_stream_count(trace);
  if (threads == 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cores > 0 ? (unsigned)cores : 1;
  }
  if (threads > streams)
    threads = streams ? (unsigned)streams : 1;
  int *stream_host = calloc(streams + 1, sizeof *stream_host);
  struct worker *workers = calloc(threads, sizeof *workers);
  struct progress progress;
  atomic_init(&progress.bytes_done, 0);
  atomic_init(&progress.workers_left, (int)threads);
  progress.bytes_total = 0;
  int rc = stream_host && workers ? 0 : -1;
  /* Streams go to the least loaded worker, largest first. */
  size_t *order = calloc(streams + 1, sizeof *order);
  uint64_t *load = calloc(threads, sizeof *load);
  if (!order || !load)
    rc = -1;
  for (size_t i = 0; rc == 0 && i < streams; i++) {
    const struct ctf_stream *s = ctf_trace_stream(trace, i);
    const char *hostname = ctf_subtrace_env_string(s->subtrace, "hostname");
    stream_host[i] = host_index(tally, hostname ? hostname : "unknown");
    progress.bytes_total += s->file_size;
    order[i] = i;
  }
  for (size_t i = 1; rc == 0 && i < streams; i++)
    for (size_t k = i; k > 0 && ctf_trace_stream(trace, order[k])->file_size >
                                    ctf_trace_stream(trace, order[k - 1])->file_size; k--) {
      size_t tmp = order[k];
      order[k] = order[k - 1];
      order[k - 1] = tmp;
    }
  for (unsigned i = 0; rc == 0 && i < threads; i++) {
    workers[i].trace = trace;
    workers[i].map = map;
    workers[i].stream_host = stream_host;
    workers[i].progress = &progress;
    workers[i].streams = calloc(streams + 1, sizeof(size_t));
    if (!workers[i].streams || tally_init(&workers[i].tally))
      rc = -1;
    workers[i].tally.by_actor = by_actor;
  }
  for (size_t i = 0; rc == 0 && i < streams; i++) {
    unsigned best = 0;
    for (unsigned k = 1; k < threads; k++)
      if (load[k] < load[best])
        best = k;
    workers[best].streams[workers[best].stream_count++] = order[i];
    load[best] += ctf_trace_stream(trace, order[i])->file_size;
  }
  pthread_t *ids = calloc(threads, sizeof *ids);
  for (unsigned i = 0; rc == 0 && ids && i < threads; i++) {
    if (pthread_create(&ids[i], NULL, worker_main, &workers[i]) != 0) {
      /* Run it here instead: the analysis must not fail for want of a thread. */
      worker_main(&workers[i]);
      ids[i] = 0;
    }
  }
  if (show_progress && rc == 0) {
    while (atomic_load(&progress.workers_left) > 0) {
      draw_progress(&progress, false);
      struct timespec nap = {0, 200 * 1000 * 1000};
      nanosleep(&nap, NULL);
    }
    draw_progress(&progress, true);
  }
  for (unsigned i = 0; ids && i < threads; i++)
    if (ids[i])
      pthread_join(ids[i], NULL);
  for (unsigned i = 0; rc == 0 && i < threads; i++)
    if (merge_into(tally, &workers[i].tally))
      rc = -1;
  for (unsigned i = 0; workers && i < threads; i++) {
    tally_free(&workers[i].tally);
    free(workers[i].streams);
  }
  if (rc == 0)
    take_off_clock_reads(tally);
  tally->trace_bytes = progress.bytes_total;
  free(ids);
  free(workers);
  free(stream_host);
  free(order);
  free(load);
  if (rc)
    set_error(tally, "Cannot analyse the trace: out of memory");
  return rc;
}

int tally_trace(const struct ctf_trace *trace, const struct event_map *map, unsigned threads,
                bool show_progress, struct tally *tally) {
  return tally_run(trace, map, threads, show_progress, false, tally);
}

int tally_trace_by_actor(const struct ctf_trace *trace, const struct event_map *map,
                         unsigned threads, bool show_progress, struct tally *tally) {
  return tally_run(trace, map, threads, show_progress, true, tally);
}

void tally_free(struct tally *t) {
  for (size_t i = 0; t->backends && i < t->backend_count; i++) {
    struct tally_backend *b = &t->backends[i];
    free(b->host);
    free(b->unfinished);
    free(b->message_bytes);
    for (size_t d = 0; d < b->device_count; d++)
      free(b->device[d].name);
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
