/* timeline_feed: see timeline_feed.h. Entry events wait on a per-thread stack for their
 * exit event (depth and threads bounded), so memory does not grow with the trace. */
#include "timeline_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"

enum { MAX_ARGS = 24, TEXT_BYTES = 1024, MAX_DEPTH = 32, MAX_FIELDS = 256 };

struct frame {
  int backend, function;
  size_t arg_count, text_used;
  struct timeline_arg args[MAX_ARGS];
  char text[TEXT_BYTES]; /* the arguments' strings */
};

struct thread_stack {
  int64_t pid, tid;
  struct frame *frames; /* MAX_DEPTH; owned */
  size_t depth;
};

struct feed {
  const struct event_map *map;
  const struct feed_consumer *consumer;
  struct thread_stack *threads; /* owned */
  size_t thread_count, last;
  struct ctf_value values[MAX_FIELDS];
  struct frame scratch;
  const struct ctf_clock_class *clock; /* to_ns()'s reference */
  uint64_t clock_base;
  int64_t clock_base_ns;
  double clock_scale;
};

/* A clock value in ns since the clock's origin: ctf_clock_to_ns() (128-bit arithmetic)
 * once per clock, then the distance from that reference scaled in double, which stays
 * within a nanosecond for any trace's length. Multi-node clock alignment (not done)
 * would add each host's offset here, before any consumer sees a time. */
static uint64_t to_ns(struct feed *f, const struct ctf_event *ev, uint64_t value) {
  const struct ctf_clock_class *clock = ev->event_class->stream_class->clock;
  if (!clock)
    return value;
  if (clock != f->clock) {
    f->clock = clock;
    f->clock_base = value;
    f->clock_base_ns = ctf_clock_to_ns(clock, value);
    f->clock_scale = clock->frequency ? 1e9 / (double)clock->frequency : 1.0;
  }
  if (clock->frequency == 1000000000u)
    return (uint64_t)(f->clock_base_ns + (int64_t)(value - f->clock_base));
  double delta = (double)(int64_t)(value - f->clock_base) * f->clock_scale;
  return (uint64_t)(f->clock_base_ns + (int64_t)(delta < 0 ? delta - 0.5 : delta + 0.5));
}

static struct thread_stack *thread_of(struct feed *f, int64_t pid, int64_t tid) {
  if (f->last < f->thread_count && f->threads[f->last].tid == tid && f->threads[f->last].pid == pid)
    return &f->threads[f->last];
  for (size_t i = 0; i < f->thread_count; i++)
    if (f->threads[i].tid == tid && f->threads[i].pid == pid)
      return &f->threads[f->last = i];
  struct thread_stack *grown = realloc(f->threads, (f->thread_count + 1) * sizeof *grown);
  if (!grown)
    return NULL;
  f->threads = grown;
  struct thread_stack *t = &f->threads[f->thread_count];
  t->frames = malloc(MAX_DEPTH * sizeof *t->frames);
  if (!t->frames)
    return NULL;
  t->pid = pid;
  t->tid = tid;
  t->depth = 0;
  return &f->threads[f->last = f->thread_count++];
}

static const char *keep_text(struct frame *fr, const char *s, size_t len) {
  if (fr->text_used + len + 1 > TEXT_BYTES)
    len = fr->text_used + 1 < TEXT_BYTES ? TEXT_BYTES - fr->text_used - 1 : 0;
  char *at = fr->text + fr->text_used;
  memcpy(at, s, len);
  at[len] = 0;
  fr->text_used += len + 1;
  return at;
}

/* Names are sorted by value (tracer_backend_desc.h). */
static const char *status_name(const struct tracer_backend_desc *desc, int64_t value) {
  const struct tracer_names *n = desc ? desc->status_names : NULL;
  uint32_t lo = 0, hi = n ? n->count : 0;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (n->values[mid].value < value)
      lo = mid + 1;
    else
      hi = mid;
  }
  return n && lo < n->count && n->values[lo].value == value ? n->values[lo].name : NULL;
}

/* One payload field as an argument: integers, strings and one-element out values;
 * arrays and struct bytes are left to `tracer -t`. */
static void add_arg(struct frame *fr, const struct event_info *info, const char *name,
                    const struct ctf_value *v, bool is_status) {
  if (fr->arg_count == MAX_ARGS)
    return;
  struct timeline_arg *a = &fr->args[fr->arg_count];
  struct ctf_value element;
  if (v->kind == CTF_VALUE_ARRAY && !ctf_value_is_text(v)) {
    if (v->u.array.count != 1 || ctf_value_element(v, 0, &element) != CTF_OK)
      return;
    v = &element;
  }
  a->name = name;
  if (v->kind == CTF_VALUE_SIGNED || v->kind == CTF_VALUE_UNSIGNED) {
    int64_t value = v->kind == CTF_VALUE_SIGNED ? v->u.s : (int64_t)v->u.u;
    const char *label = is_status ? status_name(info->desc, value) : NULL;
    const struct ctf_type *t = v->type && v->type->kind == CTF_TYPE_ENUM
                                   ? v->type->u.enumeration.container : v->type;
    if (label) {
      a->kind = TIMELINE_ARG_STRING;
      a->v.s = label;
    } else if (t && t->kind == CTF_TYPE_INTEGER && t->u.integer.base == 16) {
      a->kind = TIMELINE_ARG_POINTER;
      a->v.u = (uint64_t)value;
    } else if (v->kind == CTF_VALUE_SIGNED) {
      a->kind = TIMELINE_ARG_INT;
      a->v.i = value;
    } else {
      a->kind = TIMELINE_ARG_UINT;
      a->v.u = v->u.u;
    }
  } else if (v->kind == CTF_VALUE_FLOAT) {
    a->kind = TIMELINE_ARG_DOUBLE;
    a->v.d = v->u.f;
  } else if (v->kind == CTF_VALUE_STRING) {
    a->kind = TIMELINE_ARG_STRING;
    a->v.s = keep_text(fr, v->u.string.chars, v->u.string.length);
  } else if (v->kind == CTF_VALUE_ARRAY) {
    const char *chars;
    size_t len;
    ctf_value_text(v, &chars, &len);
    a->kind = TIMELINE_ARG_STRING;
    a->v.s = keep_text(fr, chars, len);
  } else {
    return;
  }
  fr->arg_count++;
}

static bool is_length(const char *name) {
  size_t len = strlen(name);
  return len > 7 && strcmp(name + len - 7, "_length") == 0;
}

/* The event's whole payload into f->values: false when it cannot be read. */
static bool decode_all(struct feed *f, const struct ctf_event *ev) {
  return ev->event_class->field_count <= MAX_FIELDS &&
         ctf_event_decode_payload(ev, f->values, MAX_FIELDS, NULL) == CTF_OK;
}

static bool value_int(const struct feed *f, int field, int64_t *out) {
  if (field < 0)
    return false;
  const struct ctf_value *v = &f->values[field];
  if (v->kind != CTF_VALUE_SIGNED && v->kind != CTF_VALUE_UNSIGNED)
    return false;
  *out = v->kind == CTF_VALUE_SIGNED ? v->u.s : (int64_t)v->u.u;
  return true;
}

/* The process and thread from decoded values, else from the contexts. */
static bool decoded_ids(const struct feed *f, const struct event_info *info,
                        const struct ctf_event *ev, int64_t *pid, int64_t *tid) {
  return (value_int(f, info->pid, pid) && value_int(f, info->tid, tid)) ||
         event_map_ids(f->map, info, ev, pid, tid);
}

/* The decoded payload as arguments. */
static void add_fields(struct feed *f, struct frame *fr, const struct event_info *info,
                       const struct ctf_event *ev) {
  const struct ctf_event_class *c = ev->event_class;
  for (size_t i = 0; i < c->field_count; i++) {
    const char *name = c->fields[i].name;
    /* The ids and start are the slice's own; a sequence's length (a field named
     * _<name>_length by LTTng) shows in its value. */
    if ((int)i == info->pid || (int)i == info->tid || (int)i == info->start ||
        (name[0] == '_' && is_length(name)))
      continue;
    add_arg(fr, info, name, &f->values[i], (int)i == info->status);
  }
}

static void on_entry(struct feed *f, const struct event_info *info, const struct ctf_event *ev) {
  int64_t pid, tid;
  if (!f->consumer->want_args || !decode_all(f, ev) || !decoded_ids(f, info, ev, &pid, &tid))
    return;
  struct thread_stack *t = thread_of(f, pid, tid);
  if (!t || t->depth == MAX_DEPTH)
    return;
  struct frame *fr = &t->frames[t->depth++];
  fr->backend = info->backend;
  fr->function = info->function;
  fr->arg_count = fr->text_used = 0;
  add_fields(f, fr, info, ev);
}

static int64_t field_int(const struct ctf_event *ev, int field, bool *ok) {
  struct ctf_value v;
  *ok = field >= 0 && ctf_event_decode_field(ev, (size_t)field, &v, NULL) == CTF_OK &&
        (v.kind == CTF_VALUE_SIGNED || v.kind == CTF_VALUE_UNSIGNED);
  return *ok ? (v.kind == CTF_VALUE_SIGNED ? v.u.s : (int64_t)v.u.u) : 0;
}

static int on_call(struct feed *f, const struct event_info *info, const struct ctf_event *ev,
                   const char *host) {
  struct feed_call call = {.host = host, .desc = info->desc, .function = info->function};
  uint64_t start;
  bool ok, with_args = f->consumer->want_args && info->role == EVENT_EXIT;
  if (info->role == EVENT_CALL) {
    struct event_call packed;
    if (!event_map_call(info, ev, &packed))
      return 0;
    start = packed.start;
    call.pid = packed.pid;
    call.tid = packed.tid;
    call.function = (int)packed.function;
    call.status = packed.status;
    call.has_status = true;
    call.failed = (int32_t)packed.status != (int32_t)info->desc->success;
  } else if (with_args) { /* one decoding for the times, the ids and the arguments */
    int64_t value;
    if (!decode_all(f, ev) || !value_int(f, info->start, &value) ||
        !decoded_ids(f, info, ev, &call.pid, &call.tid))
      return 0;
    start = (uint64_t)value;
    call.has_status = value_int(f, info->status, &call.status);
    call.failed = call.has_status && call.status != info->desc->success;
  } else {
    start = (uint64_t)field_int(ev, info->start, &ok);
    if (!ok || !event_map_ids(f->map, info, ev, &call.pid, &call.tid))
      return 0;
    call.status = field_int(ev, info->status, &call.has_status);
    call.failed = call.has_status && call.status != info->desc->success;
  }
  if (call.function < 0 || (uint32_t)call.function >= info->desc->function_count)
    return 0;
  call.start = to_ns(f, ev, start);
  call.end = to_ns(f, ev, ev->timestamp);
  struct frame *fr = &f->scratch;
  fr->arg_count = fr->text_used = 0;
  if (with_args) {
    struct thread_stack *t = thread_of(f, call.pid, call.tid);
    /* Its entry is on top, unless entries were lost: then drop what is above it. */
    while (t && t->depth > 0) {
      struct frame *top = &t->frames[--t->depth];
      if (top->backend == info->backend && top->function == call.function) {
        fr = top;
        break;
      }
    }
    add_fields(f, fr, info, ev);
  }
  call.args = fr->args;
  call.arg_count = fr->arg_count;
  return f->consumer->call ? f->consumer->call(f->consumer->context, &call) : 0;
}

static int on_device(struct feed *f, const struct event_info *info, const struct ctf_event *ev,
                     const char *host) {
  struct ctf_value backend, name;
  bool ok_kind, ok_start, ok_end, ok_bytes, ok_queue;
  struct feed_device d = {.host = host};
  if (ctf_event_decode_field(ev, (size_t)info->device_backend, &backend, NULL) != CTF_OK ||
      ctf_event_decode_field(ev, (size_t)info->device_name, &name, NULL) != CTF_OK ||
      backend.kind != CTF_VALUE_STRING || name.kind != CTF_VALUE_STRING)
    return 0;
  d.kind = (int)field_int(ev, info->device_kind, &ok_kind);
  uint64_t start = (uint64_t)field_int(ev, info->start, &ok_start);
  uint64_t end = (uint64_t)field_int(ev, info->device_end, &ok_end);
  d.bytes = (uint64_t)field_int(ev, info->device_bytes, &ok_bytes);
  d.queue = (uint64_t)field_int(ev, info->device_queue, &ok_queue);
  int64_t tid;
  if (!ok_kind || !ok_start || !ok_end || !event_map_ids(f->map, info, ev, &d.pid, &tid))
    return 0;
  char backend_name[64];
  snprintf(backend_name, sizeof backend_name, "%.*s", (int)backend.u.string.length,
           backend.u.string.chars);
  d.desc = backends_find(backend_name);
  d.name = name.u.string.chars; /* NUL-terminated in the mapped stream */
  d.start = to_ns(f, ev, start);
  d.end = to_ns(f, ev, end);
  return f->consumer->device ? f->consumer->device(f->consumer->context, &d) : 0;
}

int timeline_feed(const struct ctf_trace *trace, const struct event_map *map,
                  const struct feed_consumer *consumer, struct feed_span *span, char **error) {
  struct ctf_merge *merge;
  struct ctf_error err;
  *error = NULL;
  memset(span, 0, sizeof *span);
  if (ctf_merge_open(trace, NULL, ctf_trace_stream_count(trace), &merge, &err) != CTF_OK) {
    *error = strdup(err.message);
    return -1;
  }
  struct feed *f = calloc(1, sizeof *f);
  if (!f) {
    ctf_merge_close(merge);
    *error = strdup("Cannot read the trace for the timeline: out of memory");
    return -1;
  }
  f->map = map;
  f->consumer = consumer;
  const struct ctf_event *ev;
  const struct ctf_subtrace *subtrace = NULL;
  const char *host = "unknown";
  enum ctf_status st;
  int rc = 0;
  while (rc == 0 && (st = ctf_merge_next(merge, &ev, &err)) != CTF_END) {
    if (st != CTF_OK) {
      if (!*error)
        *error = strdup(err.message); /* one stream failed; the others go on */
      continue;
    }
    uint64_t ns = to_ns(f, ev, ev->timestamp);
    if (span->events++ == 0)
      span->first = ns;
    span->last = ns;
    const struct event_info *info = &map->infos[ev->event_class->index];
    if (ev->stream->subtrace != subtrace) { /* the env lookup is a search: once per change */
      subtrace = ev->stream->subtrace;
      host = ctf_subtrace_env_string(subtrace, "hostname");
      host = host ? host : "unknown";
    }
    switch (info->role) {
    case EVENT_ENTRY: on_entry(f, info, ev); break;
    case EVENT_EXIT:
    case EVENT_CALL: rc = on_call(f, info, ev, host); break;
    case EVENT_DEVICE_COMMAND: rc = on_device(f, info, ev, host); break;
    default: break;
    }
  }
  for (size_t i = 0; i < f->thread_count; i++)
    free(f->threads[i].frames);
  free(f->threads);
  free(f);
  ctf_merge_close(merge);
  if (rc && !*error)
    *error = strdup("Cannot write the timeline");
  return *error ? -1 : rc;
}
