/* timeline_feed: see timeline_feed.h. A call is one event, written when it returns, with
 * its start and end: nothing waits, so memory does not grow with the trace. */
#include "timeline_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"

enum { MAX_ARGS = 24, TEXT_BYTES = 1024, MAX_FIELDS = 256, MAX_SLOTS = 256 };

/* The arguments of the call being fed. */
struct frame {
  size_t arg_count, text_used;
  struct timeline_arg args[MAX_ARGS];
  char text[TEXT_BYTES]; /* the arguments' strings */
};

/* The formats of a function's named slots, found once (backends_field_format searches
 * by name): direct-mapped by the function's description. */
enum { FORMAT_CACHE = 512 };
struct slot_formats {
  const struct tracer_function_desc *fd;
  const struct tracer_field_format *format[MAX_ARGS];
};

struct feed {
  const struct event_map *map;
  struct slot_formats *formats; /* FORMAT_CACHE; owned */
  const struct feed_consumer *consumer;
  struct ctf_value values[MAX_FIELDS];
  struct frame scratch;
  const struct ctf_clock_class *clock; /* to_ns()'s reference */
  uint64_t clock_base;
  int64_t clock_base_ns;
  double clock_scale;
  /* One clock read's cost in ns (lttng_ust_tracer:clock_read, the least seen so far): a
   * call's end holds one, which the tally takes off too. */
  uint64_t clock_read_ns;
  bool has_clock_read;
  /* Fields the event map does not name, by event class index (-2: not looked up yet):
   * a device command's submitting call, a region's depth. */
  struct extra_fields {
    int call_tid, call_start, depth;
  } *extra;
};

static const struct extra_fields *extra_of(struct feed *f, const struct ctf_event *ev) {
  struct extra_fields *x = &f->extra[ev->event_class->index];
  if (x->call_tid == -2) {
    x->call_tid = ctf_event_class_field_index(ev->event_class, "call_tid");
    x->call_start = ctf_event_class_field_index(ev->event_class, "call_start");
    x->depth = ctf_event_class_field_index(ev->event_class, "depth");
  }
  return x;
}

/* A clock value in wall-clock ns: ctf_clock_to_ns() (128-bit arithmetic, the clock's
 * offset from its metadata applied) once per clock, then the distance from that
 * reference scaled in double, which stays within a nanosecond for any trace's length. */
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

static const char *keep_text(struct frame *fr, const char *s, size_t len) {
  if (fr->text_used + len + 1 > TEXT_BYTES)
    len = fr->text_used + 1 < TEXT_BYTES ? TEXT_BYTES - fr->text_used - 1 : 0;
  char *at = fr->text + fr->text_used;
  memcpy(at, s, len);
  at[len] = 0;
  fr->text_used += len + 1;
  return at;
}

static bool is_length(const char *name) {
  size_t len = strlen(name);
  return len > 7 && strcmp(name + len - 7, "_length") == 0;
}

/* The record's named slots as arguments: the arguments as passed, then the result, the
 * status and the out values (absent where their pointer was NULL). */
static const struct slot_formats *formats_of(struct feed *f,
                                             const struct tracer_function_desc *fd) {
  struct slot_formats *c = &f->formats[((uintptr_t)fd / sizeof *fd) % FORMAT_CACHE];
  if (c->fd != fd) {
    c->fd = fd;
    for (uint32_t k = 0; k < fd->slot_count && k < MAX_ARGS; k++)
      c->format[k] = fd->slots[k].name ? backends_field_format(fd, fd->slots[k].name,
                                                               strlen(fd->slots[k].name))
                                       : NULL;
  }
  return c;
}

static void add_slots(struct feed *f, struct frame *fr, const struct tracer_function_desc *fd,
                      const uint64_t *slots, size_t n) {
  const struct slot_formats *formats = formats_of(f, fd);
  for (uint32_t k = 0; k < fd->slot_count && k < MAX_ARGS && fr->arg_count < MAX_ARGS; k++) {
    const struct tracer_slot *slot = &fd->slots[k];
    if (!slot->name || slot->index >= n ||
        (slot->present_if >= 0 && (size_t)slot->present_if < n && slots[slot->present_if] == 0))
      continue;
    struct timeline_arg *a = &fr->args[fr->arg_count++];
    a->name = slot->name;
    int64_t value = event_map_slot_value(slot, slots[slot->index]);
    const struct tracer_field_format *format = formats->format[k];
    const char *label = backends_value_name(format ? format->names : NULL, value);
    if (label) {
      a->kind = TIMELINE_ARG_STRING;
      a->v.s = label;
      continue;
    }
    switch (slot->kind) {
    case TRACER_SLOT_SIGNED: a->kind = TIMELINE_ARG_INT; a->v.i = value; break;
    case TRACER_SLOT_UNSIGNED: a->kind = TIMELINE_ARG_UINT; a->v.u = (uint64_t)value; break;
    case TRACER_SLOT_ADDRESS: a->kind = TIMELINE_ARG_POINTER; a->v.u = slots[slot->index]; break;
    case TRACER_SLOT_FLOAT: {
      float f;
      uint32_t bits = (uint32_t)slots[slot->index];
      memcpy(&f, &bits, sizeof f);
      a->kind = TIMELINE_ARG_DOUBLE;
      a->v.d = f;
      break;
    }
    case TRACER_SLOT_DOUBLE:
      a->kind = TIMELINE_ARG_DOUBLE;
      memcpy(&a->v.d, &slots[slot->index], sizeof a->v.d);
      break;
    }
  }
}

/* Full mode: strings after the record (arrays and struct bytes are left to `tracer -t`). */
static void add_strings(struct feed *f, struct frame *fr, const struct ctf_event *ev,
                        const struct event_info *info) {
  const struct ctf_event_class *c = ev->event_class;
  if (c->field_count > MAX_FIELDS ||
      ctf_event_decode_payload(ev, f->values, MAX_FIELDS, NULL) != CTF_OK)
    return;
  for (size_t i = 0; i < c->field_count && fr->arg_count < MAX_ARGS; i++) {
    const struct ctf_value *v = &f->values[i];
    const char *name = c->fields[i].name;
    if ((int)i == info->record || (name[0] == '_' && is_length(name)))
      continue;
    const char *chars = NULL;
    size_t len = 0;
    if (v->kind == CTF_VALUE_STRING) {
      chars = v->u.string.chars;
      len = v->u.string.length;
    } else if (v->kind == CTF_VALUE_ARRAY && ctf_value_is_text(v)) {
      ctf_value_text(v, &chars, &len);
    }
    if (!chars)
      continue;
    struct timeline_arg *a = &fr->args[fr->arg_count++];
    a->name = name;
    a->kind = TIMELINE_ARG_STRING;
    a->v.s = keep_text(fr, chars, len);
  }
}

static int64_t field_int(const struct ctf_event *ev, int field, bool *ok) {
  struct ctf_value v;
  *ok = field >= 0 && ctf_event_decode_field(ev, (size_t)field, &v, NULL) == CTF_OK &&
        (v.kind == CTF_VALUE_SIGNED || v.kind == CTF_VALUE_UNSIGNED);
  return *ok ? (v.kind == CTF_VALUE_SIGNED ? v.u.s : (int64_t)v.u.u) : 0;
}

static int feed_one_call(struct feed *f, const struct event_info *info,
                         const struct ctf_event *ev, const char *host,
                         const struct event_call *packed, const uint64_t *slots, size_t n);

/* Minimal mode's batch: its calls one by one (no arguments). */
static int on_batch(struct feed *f, const struct event_info *info, const struct ctf_event *ev,
                    const char *host) {
  struct event_call calls[EVENT_BATCH_MAX];
  size_t count = event_map_batch(info, ev, calls, EVENT_BATCH_MAX);
  for (size_t i = 0; i < count; i++) {
    uint64_t head[EVENT_RECORD_HEAD];
    event_map_call_pack(&calls[i], head);
    if (feed_one_call(f, info, ev, host, &calls[i], head, EVENT_RECORD_HEAD))
      return -1;
  }
  return 0;
}

static int on_call(struct feed *f, const struct event_info *info, const struct ctf_event *ev,
                   const char *host) {
  if (info->batch)
    return on_batch(f, info, ev, host);
  struct event_call packed;
  /* The record once: its head, then (for arguments) its slots. */
  uint64_t slots[MAX_SLOTS];
  size_t n = event_map_record(info, ev, slots, f->consumer->want_args ? MAX_SLOTS
                                                                      : EVENT_RECORD_HEAD);
  if (!event_map_call_unpack(slots, n, &packed))
    return 0;
  return feed_one_call(f, info, ev, host, &packed, slots, n);
}

static int feed_one_call(struct feed *f, const struct event_info *info,
                         const struct ctf_event *ev, const char *host,
                         const struct event_call *p, const uint64_t *slots, size_t n) {
  if (p->function < 0 || (uint64_t)p->function >= info->desc->function_count)
    return 0;
  struct event_call packed = *p;
  const struct tracer_function_desc *fd = &info->desc->functions[packed.function];
  struct feed_call call = {.host = host, .desc = info->desc, .function = (int)packed.function,
                           .pid = packed.pid, .tid = packed.tid, .status = packed.status};
  call.has_status = fd->status != TRACER_STATUS_NONE;
  call.failed = event_map_call_failed(info->desc, fd, packed.status);
  call.start = to_ns(f, ev, packed.start);
  call.end = to_ns(f, ev, packed.end);
  call.end = call.end - call.start > f->clock_read_ns ? call.end - f->clock_read_ns : call.start;
  struct frame *fr = &f->scratch;
  fr->arg_count = fr->text_used = 0;
  if (f->consumer->want_args) {
    add_slots(f, fr, fd, slots, n);
    if (info->full)
      add_strings(f, fr, ev, info);
  }
  call.args = fr->args;
  call.arg_count = fr->arg_count;
  call.text = fr->text;
  call.text_used = fr->text_used;
  return f->consumer->call ? f->consumer->call(f->consumer->context, &call) : 0;
}

static void on_clock_read(struct feed *f, const struct event_info *info,
                          const struct ctf_event *ev) {
  bool ok;
  int64_t cost = field_int(ev, info->cost, &ok);
  const struct ctf_clock_class *clock = ev->event_class->stream_class->clock;
  if (!ok || cost < 0)
    return;
  uint64_t ns = clock && clock->frequency && clock->frequency != 1000000000u
                    ? (uint64_t)((double)cost * 1e9 / (double)clock->frequency + 0.5)
                    : (uint64_t)cost;
  if (!f->has_clock_read || ns < f->clock_read_ns)
    f->clock_read_ns = ns;
  f->has_clock_read = true;
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
  const struct extra_fields *x = extra_of(f, ev);
  bool ok_tid, ok_call;
  int64_t call_tid = field_int(ev, x->call_tid, &ok_tid);
  uint64_t call_start = (uint64_t)field_int(ev, x->call_start, &ok_call);
  if (ok_tid && ok_call && call_tid > 0) {
    d.call_tid = call_tid;
    d.call_start = to_ns(f, ev, call_start);
  }
  return f->consumer->device ? f->consumer->device(f->consumer->context, &d) : 0;
}

static int on_region(struct feed *f, const struct event_info *info, const struct ctf_event *ev,
                     const char *host) {
  struct ctf_value backend, name;
  bool ok_start, ok_end, ok_depth;
  if (!f->consumer->region ||
      ctf_event_decode_field(ev, (size_t)info->device_backend, &backend, NULL) != CTF_OK ||
      ctf_event_decode_field(ev, (size_t)info->device_name, &name, NULL) != CTF_OK ||
      backend.kind != CTF_VALUE_STRING || name.kind != CTF_VALUE_STRING)
    return 0;
  struct feed_region r = {.host = host};
  uint64_t start = (uint64_t)field_int(ev, info->start, &ok_start);
  uint64_t end = (uint64_t)field_int(ev, info->device_end, &ok_end);
  int64_t depth = field_int(ev, extra_of(f, ev)->depth, &ok_depth);
  if (!ok_start || !ok_end || !event_map_ids(f->map, info, ev, &r.pid, &r.tid))
    return 0;
  /* Both strings are NUL-terminated in the mapped stream. */
  r.backend = backend.u.string.chars;
  r.name = name.u.string.chars;
  r.depth = ok_depth && depth > 0 ? (unsigned)depth : 0;
  r.start = to_ns(f, ev, start);
  r.end = end > start ? to_ns(f, ev, end) : r.start;
  return f->consumer->region(f->consumer->context, &r);
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
  size_t classes = ctf_trace_event_class_count(trace);
  if (f && (!(f->extra = malloc((classes ? classes : 1) * sizeof *f->extra)) ||
            !(f->formats = calloc(FORMAT_CACHE, sizeof *f->formats)))) {
    free(f->extra);
    free(f);
    f = NULL;
  }
  for (size_t i = 0; f && i < classes; i++)
    f->extra[i].call_tid = -2;
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
    case EVENT_CALL: rc = on_call(f, info, ev, host); break;
    case EVENT_CLOCK_READ: on_clock_read(f, info, ev); break;
    case EVENT_DEVICE_COMMAND: rc = on_device(f, info, ev, host); break;
    case EVENT_REGION: rc = on_region(f, info, ev, host); break;
    default: break;
    }
  }
  free(f->extra);
  free(f->formats);
  free(f);
  ctf_merge_close(merge);
  if (rc && !*error)
    *error = strdup("Cannot write the timeline");
  return *error ? -1 : rc;
}
