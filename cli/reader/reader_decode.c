/* reader_decode: one event of the trace as the records consumers get (trace_consumer.h),
 * the one place that knows the tracer's event format (docs/trace-format.md). A call is
 * one event written when it returns, with its record: times, ids, status and the
 * arguments' slots; minimal mode's `call` event holds a batch of a thread's calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "call_args.h"
#include "reader_internal.h"

/* Hands a record to every target that takes its kind, until one stops the read. */
#define HAND_OUT(d, callback, record)                                                  \
  for (size_t i_ = 0; i_ < (d)->target_count && !(d)->status; i_++)                  \
    if ((d)->targets[i_].consumer->callback)                                          \
  (d)->status = (d)->targets[i_].consumer->callback((d)->targets[i_].context, (record))

int decoder_init(struct decoder *d, const struct trace_reader *reader,
                 const struct reader_target *targets, size_t count) {
  memset(d, 0, sizeof *d);
  d->reader = reader;
  d->window = reader->window;
  d->has_clock_read = reader->has_clock_read_least;
  d->clock_read_ns = reader->clock_read_least_ns;
  d->targets = targets;
  d->target_count = count;
  d->call_targets_all = true;
  for (size_t i = 0; i < count; i++) {
    d->needs |= targets[i].consumer->needs;
    if (!targets[i].consumer->call)
      continue;
    if (d->call_target_count < READER_CALL_TARGETS)
      d->call_targets[d->call_target_count++] =
          (struct reader_call_target){targets[i].consumer->call, targets[i].context};
    else
      d->call_targets_all = false;
  }
  if (d->needs & TRACE_NEEDS_ARGS)
    d->needs |= TRACE_NEEDS_SLOTS;
  d->arg_cache = d->needs & TRACE_NEEDS_ARGS ? call_args_new() : NULL;
  d->values = calloc(READER_MAX_FIELDS, sizeof *d->values);
  return (d->arg_cache || !(d->needs & TRACE_NEEDS_ARGS)) && d->values ? 0 : -1;
}

void decoder_free(struct decoder *d) {
  call_args_free(d->arg_cache);
  free(d->values);
  d->arg_cache = NULL;
  d->values = NULL;
}

/* ---- Values ------------------------------------------------------------------------ */

static bool field_string(const struct ctf_event *ev, int field, struct ctf_value *v) {
  return field >= 0 && ctf_event_decode_field(ev, (size_t)field, v, NULL) == CTF_OK &&
         v->kind == CTF_VALUE_STRING;
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

/* A clock value in wall-clock ns. For a clock of 1 GHz the clock's offset plus the
 * value. Otherwise ctf_clock_to_ns() (128-bit arithmetic, the clock's offset from its
 * metadata applied) of the value's 2^32-tick window, once per window, then the distance
 * from the window's start scaled in double: the same for a value whichever thread
 * converts it and whatever it converted before (a read in time order on several threads
 * gives what one thread gives), within a nanosecond of the exact conversion. */
enum { CLOCK_WINDOW_BITS = 32 };

uint64_t decoder_time_slow(struct decoder *d, const struct ctf_event *ev, uint64_t value) {
  const struct ctf_clock_class *clock = ev->event_class->stream_class->clock;
  if (!clock)
    return value;
  if (clock->frequency == 1000000000u) {
    if (clock != d->clock) {
      d->clock = clock;
      d->clock_base = 0;
      d->clock_base_ns = ctf_clock_to_ns(clock, 0);
    }
    d->clock_ns = clock; /* decoder_time() from here */
    return (uint64_t)(d->clock_base_ns + (int64_t)value);
  }
  d->clock_ns = NULL;
  uint64_t window = value & ~((UINT64_C(1) << CLOCK_WINDOW_BITS) - 1);
  if (clock != d->clock || window != d->clock_base) {
    d->clock = clock;
    d->clock_base = window;
    d->clock_base_ns = ctf_clock_to_ns(clock, window);
    d->clock_scale = clock->frequency ? 1e9 / (double)clock->frequency : 1.0;
  }
  double delta = (double)(value - window) * d->clock_scale;
  return (uint64_t)(d->clock_base_ns + (int64_t)(delta + 0.5));
}

/* The compiled-in backend an event names in a string field: its index, -1 if none. */
static int backend_named(const struct ctf_value *name) {
  for (size_t i = 0; tracer_backends[i]; i++) {
    const char *bn = tracer_backends[i]->name;
    if (strlen(bn) == name->u.string.length &&
        strncmp(bn, name->u.string.chars, name->u.string.length) == 0)
      return (int)i;
  }
  return -1;
}

/* ---- Arguments --------------------------------------------------------------------- */

static const char *keep_text(struct decoder *d, size_t *used, const char *s, size_t len) {
  if (*used + len + 1 > READER_TEXT_BYTES)
    len = *used + 1 < READER_TEXT_BYTES ? READER_TEXT_BYTES - *used - 1 : 0;
  char *at = d->text + *used;
  memcpy(at, s, len);
  at[len] = 0;
  *used += len + 1;
  return at;
}

static bool is_length(const char *name) {
  size_t len = strlen(name);
  return len > 7 && strcmp(name + len - 7, "_length") == 0;
}

/* Full mode: strings after the record (arrays and struct bytes are left to `tracer -t`). */
static void add_strings(struct decoder *d, struct trace_call *c, const struct ctf_event *ev,
                        const struct event_info *info) {
  const struct ctf_event_class *class = ev->event_class;
  if (class->field_count > READER_MAX_FIELDS ||
      ctf_event_decode_payload(ev, d->values, READER_MAX_FIELDS, NULL) != CTF_OK)
    return;
  for (size_t i = 0; i < class->field_count && c->arg_count < READER_MAX_ARGS; i++) {
    const struct ctf_value *v = &d->values[i];
    const char *name = class->fields[i].name;
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
    struct trace_arg *a = &d->args[c->arg_count++];
    a->name = name;
    a->kind = TRACE_ARG_STRING;
    a->v.s = keep_text(d, &c->text_used, chars, len);
  }
}

/* ---- The window (trace_window.h) -------------------------------------------------- */

static bool outside(struct decoder *d, int host, int64_t pid, bool has_pid, uint64_t clock) {
  bool out =
      d->window && !trace_window_holds(d->window, host, pid, has_pid, clock, &d->window_last);
  d->window_left_out |= out;
  return out;
}

/* ---- Records ----------------------------------------------------------------------- */

static struct trace_source source_of(const struct decoder *d, const struct ctf_event *ev,
                                     const struct event_info *info, int host, uint64_t time) {
  return (struct trace_source){.event = ev, .info = info, .host = host,
                               .host_name = d->reader->hosts[host], .time = time};
}

/* The stack a record names by id (trace_stacks.h); NULL for none. */
static const struct trace_stack *stack_of(struct decoder *d, int host, int64_t pid, uint64_t id) {
  if (!id)
    return NULL;
  struct reader_stack_cache *c = &d->stack_cache[(id ^ (uint64_t)pid) % READER_STACK_CACHE];
  if (c->stack && c->id == id && c->pid == pid && c->host == host)
    return c->stack;
  struct trace_stack *s = trace_stacks_get(d->reader->stacks, host, pid, id);
  if (s)
    *c = (struct reader_stack_cache){host, pid, id, s};
  return s;
}

/* One call from its record head (and the slots after it, where read). False when it
 * names no function of its backend. */
static bool hand_out_call(struct decoder *d, const struct trace_source *from,
                          const struct event_call *p, const uint64_t *slots, size_t n,
                          bool batched) {
  const struct event_info *info = from->info;
  const struct ctf_event *ev = from->event;
  if (p->function < 0 || (uint64_t)p->function >= info->desc->function_count)
    return false;
  if (outside(d, from->host, p->pid, true, p->start))
    return true; /* read, and outside the window: not handed out */
  const struct tracer_function_desc *fd = &info->desc->functions[p->function];
  /* Every field set, none zeroed first: this runs for every call of the trace. */
  struct trace_call *c = &d->call;
  c->from = *from;
  c->desc = info->desc;
  c->backend = info->backend;
  c->function = (int)p->function;
  c->pid = p->pid;
  c->tid = p->tid;
  c->depth = p->depth;
  c->inside_other = p->inside_other;
  c->status = p->status;
  c->has_status = fd->status != TRACER_STATUS_NONE;
  c->failed = event_map_call_failed(info->desc, fd, p->status);
  c->batched = batched;
  c->start_clock = p->start;
  c->end_clock = p->end;
  c->duration_ns = span_ns(ev, p->start, p->end);
  c->start = c->end = 0;
  c->stack = fd->stack_slot && fd->stack_slot < n
                 ? stack_of(d, from->host, p->pid, slots[fd->stack_slot])
                 : NULL;
  c->slots = slots;
  c->slot_count = n;
  c->args = d->args;
  c->arg_count = 0;
  c->text = d->text;
  c->text_used = 0;
  if (d->needs & TRACE_NEEDS_TIMES) {
    c->start = decoder_time(d, ev, p->start);
    c->end = decoder_time(d, ev, p->end);
    if (!d->defer_clock_read)
      c->end = decoder_end_less_clock_read(c->start, c->end, d->clock_read_ns);
  }
  if (d->needs & TRACE_NEEDS_ARGS)
    call_args_add(d->arg_cache, fd, slots, n, d->args, &c->arg_count, READER_MAX_ARGS);
  if (d->needs & (TRACE_NEEDS_ARGS | TRACE_NEEDS_STRINGS) && info->full && !batched)
    add_strings(d, c, ev, info);
  /* The busiest hand-out (every call of the trace): the callbacks as read at the start,
   * side by side (the consumers' structs, one cache line or more each, were a miss a
   * call each on a read that writes a timeline). */
  if (!d->call_targets_all) {
    HAND_OUT(d, call, c);
    return true;
  }
  const struct reader_call_target *t = d->call_targets;
  for (size_t i = 0, n = d->status ? 0 : d->call_target_count; i < n; i++)
    if ((d->status = t[i].call(t[i].context, c)) != 0)
      break;
  return true;
}

/* Minimal mode's batch: its calls one by one, each from the record head its own event
 * would have had (event_map_call_pack). */
static void hand_out_batch(struct decoder *d, const struct trace_source *from,
                           struct reader_stream_count *count) {
  struct event_call calls[EVENT_BATCH_MAX];
  size_t n = event_map_batch(from->info, from->event, calls, EVENT_BATCH_MAX);
  count->batch_events += n > 0;
  for (size_t i = 0; i < n && !d->status; i++) {
    uint64_t head[EVENT_RECORD_HEAD];
    event_map_call_pack(&calls[i], head);
    hand_out_call(d, from, &calls[i], head, EVENT_RECORD_HEAD, true);
  }
}

/* A call of its own event; false when its record cannot be read as one. */
static bool hand_out_own_call(struct decoder *d, const struct trace_source *from) {
  /* The head, and the slot after it, where a submission's stack is (stack_slot). */
  size_t n = event_map_record(from->info, from->event, d->slots,
                              d->needs & TRACE_NEEDS_SLOTS ? READER_MAX_SLOTS
                                                           : EVENT_RECORD_HEAD + 1);
  struct event_call p;
  return event_map_call_unpack(d->slots, n, &p) && hand_out_call(d, from, &p, d->slots, n, false);
}

size_t trace_call_record(const struct trace_call *call, uint64_t *slots, size_t max) {
  if (call->batched || !call->from.event) {
    size_t n = !call->slots ? 0 : call->slot_count < max ? call->slot_count : max;
    if (n)
      memcpy(slots, call->slots, n * sizeof *slots);
    return n;
  }
  return event_map_record(call->from.info, call->from.event, slots, max);
}

/* Each hand_out_*: false when the record was not handed out (unreadable, or outside the
 * window), so that it is not shown as an `other` event either. */
static bool hand_out_device(struct decoder *d, const struct trace_source *from) {
  const struct event_info *info = from->info;
  const struct ctf_event *ev = from->event;
  struct ctf_value backend, name;
  int64_t kind, start, end, bytes = 0, queue = 0;
  if (!field_string(ev, info->device_backend, &backend) ||
      !field_string(ev, info->device_name, &name) || !event_map_field_int(ev, info->device_kind, &kind) ||
      !event_map_field_int(ev, info->start, &start) || !event_map_field_int(ev, info->device_end, &end))
    return false;
  event_map_field_int(ev, info->device_bytes, &bytes);
  event_map_field_int(ev, info->device_queue, &queue);
  struct trace_device c = {.from = *from, .kind = (int)kind, .name = name.u.string.chars,
                           .name_len = name.u.string.length, .bytes = (uint64_t)bytes,
                           .queue = (uint64_t)queue, .start_clock = (uint64_t)start,
                           .end_clock = (uint64_t)end};
  c.backend = backend_named(&backend);
  c.desc = c.backend >= 0 ? tracer_backends[c.backend] : NULL;
  /* Traces from before devices were named say nothing: one device per backend. */
  const struct reader_extra_fields *on = &d->reader->extra[ev->event_class->index];
  struct ctf_value device_name;
  int64_t device = -1;
  if (!event_map_field_int(ev, on->device, &device) || device < 0 || device > INT32_MAX)
    device = -1;
  c.device = (int)device;
  c.device_name = "";
  if (field_string(ev, on->device_name, &device_name))
    c.device_name = device_name.u.string.chars, c.device_name_len = device_name.u.string.length;
  c.has_ids = event_map_ids(&d->reader->map, info, ev, &c.pid, &c.tid);
  if (!c.has_ids)
    c.pid = c.tid = 0;
  if (d->window) { /* by its submitting call's start where the trace says, else its own */
    const struct reader_extra_fields *x = &d->reader->extra[ev->event_class->index];
    int64_t call_tid = 0, call_start = 0;
    bool by_call = event_map_field_int(ev, x->call_tid, &call_tid) && call_tid > 0 &&
                   event_map_field_int(ev, x->call_start, &call_start) && call_start > 0;
    if (outside(d, from->host, c.pid, c.has_ids, by_call ? (uint64_t)call_start : (uint64_t)start))
      return false;
  }
  int64_t stack;
  if (event_map_field_int(ev, on->call_stack, &stack) && stack)
    c.stack = stack_of(d, from->host, c.pid, (uint64_t)stack);
  /* In uint64_t: end - start does not always fit in int64_t (a signed overflow on a
   * corrupt trace, found by tests/fuzz/fuzz_ctf_analysis.c). */
  c.duration_ns = span_ns(ev, (uint64_t)start, (uint64_t)end);
  if (d->needs & TRACE_NEEDS_TIMES) {
    c.start = decoder_time(d, ev, (uint64_t)start);
    c.end = decoder_time(d, ev, (uint64_t)end);
    const struct reader_extra_fields *x = &d->reader->extra[ev->event_class->index];
    int64_t call_tid, call_start;
    if (event_map_field_int(ev, x->call_tid, &call_tid) && event_map_field_int(ev, x->call_start, &call_start) &&
        call_tid > 0) {
      c.call_tid = call_tid;
      c.call_start = decoder_time(d, ev, (uint64_t)call_start);
    }
  }
  HAND_OUT(d, device, &c);
  return true;
}

static bool hand_out_region(struct decoder *d, const struct trace_source *from) {
  const struct event_info *info = from->info;
  const struct ctf_event *ev = from->event;
  int64_t start, end, depth;
  if (!event_map_field_int(ev, info->start, &start) || !event_map_field_int(ev, info->device_end, &end))
    return false;
  if (d->window) {
    int64_t pid = 0, tid;
    bool has_pid = event_map_ids(&d->reader->map, info, ev, &pid, &tid);
    if (outside(d, from->host, pid, has_pid, (uint64_t)start))
      return false;
  }
  if (info->role == EVENT_PAUSED) {
    struct trace_pause p = {*from, (uint64_t)start, (uint64_t)end,
                            span_ns(ev, (uint64_t)start, (uint64_t)end)};
    HAND_OUT(d, pause, &p);
    return true;
  }
  struct ctf_value backend, name;
  if (!field_string(ev, info->device_backend, &backend) ||
      !field_string(ev, info->device_name, &name))
    return true;
  /* Both strings are NUL-terminated in the mapped stream. */
  struct trace_region r = {.from = *from, .backend = backend.u.string.chars,
                           .backend_len = backend.u.string.length,
                           .name = name.u.string.chars, .name_len = name.u.string.length,
                           .start_clock = (uint64_t)start, .end_clock = (uint64_t)end};
  r.duration_ns = span_ns(ev, (uint64_t)start, (uint64_t)end);
  if (event_map_field_int(ev, d->reader->extra[ev->event_class->index].depth, &depth) && depth > 0)
    r.depth = (unsigned)depth;
  r.has_ids = event_map_ids(&d->reader->map, info, ev, &r.pid, &r.tid);
  if (d->needs & TRACE_NEEDS_TIMES) {
    r.start = decoder_time(d, ev, (uint64_t)start);
    r.end = end > start ? decoder_time(d, ev, (uint64_t)end) : r.start;
  }
  HAND_OUT(d, region, &r);
  return true;
}

/* The backend an event names in its `backend` field, and the function it names, when
 * both are known; else -1. A counted entry's function has the flag of calls made inside
 * another backend's (TRACER_RECORD_INSIDE_OTHER): *inside, when not NULL. */
static int named_function(const struct ctf_event *ev, const struct event_info *info,
                          int64_t *function, bool *inside) {
  struct ctf_value backend;
  if (!field_string(ev, info->device_backend, &backend) ||
      !event_map_field_int(ev, info->function_field, function))
    return -1;
  if (inside) {
    *inside = *function >= 0 && (*function & TRACER_RECORD_INSIDE_OTHER);
    if (*inside)
      *function &= TRACER_RECORD_DEPTH_MASK;
  }
  int b = backend_named(&backend);
  return b >= 0 && *function >= 0 && (uint64_t)*function < tracer_backends[b]->function_count
             ? b
             : -1;
}

static void hand_out_unfinished(struct decoder *d, const struct trace_source *from) {
  int64_t function;
  int b = named_function(from->event, from->info, &function, NULL);
  if (b < 0)
    return;
  struct trace_unfinished u = {*from, tracer_backends[b], b, (int)function};
  HAND_OUT(d, unfinished, &u);
}

static void hand_out_counted(struct decoder *d, const struct trace_source *from) {
  const struct ctf_event *ev = from->event;
  const struct event_info *info = from->info;
  int64_t function, status, calls, total, min, max;
  bool inside = false;
  int b = named_function(ev, info, &function, &inside);
  if (b < 0 || !event_map_field_int(ev, info->status, &status) || !event_map_field_int(ev, info->calls, &calls) ||
      !event_map_field_int(ev, info->total, &total) || !event_map_field_int(ev, info->min, &min) ||
      !event_map_field_int(ev, info->max, &max) || calls <= 0)
    return;
  const struct tracer_backend_desc *desc = tracer_backends[b];
  struct trace_counted c = {.from = *from, .desc = desc, .backend = b, .function = (int)function,
                            .status = status, .calls = (uint64_t)calls,
                            .total_ns = span_ns(ev, 0, (uint64_t)total),
                            .min_ns = span_ns(ev, 0, (uint64_t)min),
                            .max_ns = span_ns(ev, 0, (uint64_t)max)};
  c.failed = event_map_call_failed(desc, &desc->functions[function], status);
  c.inside_other = inside;
  if (!event_map_ids(&d->reader->map, info, ev, &c.pid, &c.tid))
    c.pid = c.tid = 0;
  HAND_OUT(d, counted, &c);
}

static void hand_out_notice(struct decoder *d, const struct trace_source *from) {
  struct ctf_value backend, text;
  if (!field_string(from->event, from->info->device_backend, &backend) ||
      !field_string(from->event, from->info->device_name, &text))
    return;
  struct trace_notice n = {*from, backend.u.string.chars, text.u.string.chars,
                           backend.u.string.length, text.u.string.length};
  HAND_OUT(d, notice, &n);
}

static void hand_out_rank(struct decoder *d, const struct trace_source *from) {
  const struct ctf_event *ev = from->event;
  const struct event_info *info = from->info;
  struct ctf_value launcher;
  int64_t rank, size = -1, local_rank = -1, local_size = -1, tid;
  struct trace_rank r = {.from = *from};
  if (!field_string(ev, info->device_backend, &launcher) ||
      !event_map_field_int(ev, info->rank, &rank) || rank < 0 ||
      !event_map_ids(&d->reader->map, info, ev, &r.pid, &tid))
    return;
  event_map_field_int(ev, info->size, &size);
  event_map_field_int(ev, info->local_rank, &local_rank);
  event_map_field_int(ev, info->local_size, &local_size);
  r.launcher = launcher.u.string.chars;
  r.rank = (long)rank, r.size = (long)size;
  r.local_rank = (long)local_rank, r.local_size = (long)local_size;
  HAND_OUT(d, rank, &r);
}

static void hand_out_sample(struct decoder *d, const struct trace_source *from) {
  const struct event_info *info = from->info;
  struct ctf_value backend, text, counter, unit, value;
  struct trace_sample s = {.from = *from, .clock = from->event->timestamp};
  if (!field_string(from->event, info->device_backend, &backend))
    return;
  s.backend = backend.u.string.chars;
  if (info->role == EVENT_SAMPLER_UNAVAILABLE) {
    if (!field_string(from->event, info->sample_unit, &text))
      return;
    s.why = text.u.string.chars;
    HAND_OUT(d, sample, &s);
    return;
  }
  int64_t device;
  if (!event_map_field_int(from->event, info->sample_device, &device) ||
      !field_string(from->event, info->sample_device_name, &text) ||
      !field_string(from->event, info->sample_counter, &counter) ||
      !field_string(from->event, info->sample_unit, &unit) || info->sample_value < 0 ||
      ctf_event_decode_field(from->event, (size_t)info->sample_value, &value, NULL) != CTF_OK ||
      value.kind != CTF_VALUE_FLOAT)
    return;
  s.device = (uint32_t)device;
  s.device_name = text.u.string.chars;
  s.counter = counter.u.string.chars;
  s.unit = unit.u.string.chars;
  s.value = value.u.f;
  HAND_OUT(d, sample, &s);
}

/* A stack's definition, or an object its frames lie in: into the reader's table, not
 * handed out (trace_stacks.h). */
static void keep_stack(struct decoder *d, const struct trace_source *from) {
  const struct ctf_event *ev = from->event;
  const struct event_info *info = from->info;
  int64_t pid, tid, id, flags = 0;
  struct ctf_value python, native;
  if (!event_map_ids(&d->reader->map, info, ev, &pid, &tid) ||
      !event_map_field_int(ev, info->stack_id, &id) || !field_string(ev, info->stack_python, &python) ||
      info->stack_native < 0 ||
      ctf_event_decode_field(ev, (size_t)info->stack_native, &native, NULL) != CTF_OK)
    return;
  event_map_field_int(ev, info->stack_flags, &flags);
  uint64_t pcs[256];
  size_t n = ctf_value_u64s(&native, pcs, sizeof pcs / sizeof *pcs);
  trace_stacks_define(d->reader->stacks, from->host, pid, (uint64_t)id, python.u.string.chars,
                      python.u.string.length, pcs, n, (uint32_t)flags);
}

static void keep_object(struct decoder *d, const struct trace_source *from) {
  const struct ctf_event *ev = from->event;
  const struct event_info *info = from->info;
  int64_t pid, tid, base, start, end;
  struct ctf_value path, build_id;
  if (!event_map_ids(&d->reader->map, info, ev, &pid, &tid) ||
      !field_string(ev, info->device_name, &path) || !event_map_field_int(ev, info->object_base, &base) ||
      !event_map_field_int(ev, info->start, &start) || !event_map_field_int(ev, info->device_end, &end))
    return;
  uint64_t words[64];
  uint8_t bytes[64];
  size_t n = 0;
  if (info->object_build_id >= 0 &&
      ctf_event_decode_field(ev, (size_t)info->object_build_id, &build_id, NULL) == CTF_OK)
    n = ctf_value_u64s(&build_id, words, sizeof words / sizeof *words);
  for (size_t i = 0; i < n; i++)
    bytes[i] = (uint8_t)words[i];
  trace_stacks_object(d->reader->stacks, from->host, pid, path.u.string.chars, path.u.string.length,
                      bytes, n, (uint64_t)base, (uint64_t)start, (uint64_t)end);
}

static void hand_out_cost(struct decoder *d, const struct trace_source *from) {
  const struct ctf_event *ev = from->event;
  const struct event_info *info = from->info;
  const struct ctf_clock_class *clock = ev->event_class->stream_class->clock;
  int64_t cost, counted_ps, event_ps, byte_ps, call_ps;
  struct trace_cost c = {.from = *from};
  if (info->role == EVENT_CLOCK_READ) {
    if (!event_map_field_int(ev, info->cost, &cost) || cost < 0)
      return;
    /* The least read so far, taken off each call's end in wall-clock times. */
    uint64_t ns = clock && clock->frequency && clock->frequency != 1000000000u
                      ? (uint64_t)((double)cost * 1e9 / (double)clock->frequency + 0.5)
                      : (uint64_t)cost;
    if (!d->has_clock_read || ns < d->clock_read_ns)
      d->clock_read_ns = ns;
    d->has_clock_read = true;
    d->event_has_clock_read = true;
    d->event_clock_read = ns;
    c.kind = TRACE_COST_CLOCK_READ;
    c.clock_read_ns = span_ns(ev, 0, (uint64_t)cost);
    if (event_map_field_int(ev, info->counted_ps, &counted_ps) && counted_ps > 0)
      c.counted_ps = (uint64_t)counted_ps;
  } else {
    if (!event_map_field_int(ev, info->event_ps, &event_ps) || !event_map_field_int(ev, info->byte_ps, &byte_ps) ||
        event_ps <= 0 || byte_ps < 0)
      return;
    c.kind = TRACE_COST_CALIBRATION;
    c.event_ps = (uint64_t)event_ps;
    c.byte_ps = (uint64_t)byte_ps;
    if (event_map_field_int(ev, info->call_ps, &call_ps) && call_ps > 0)
      c.call_ps = (uint64_t)call_ps;
    c.clock_is_tsc = clock && clock->frequency && clock->frequency != 1000000000u;
  }
  HAND_OUT(d, cost, &c);
}

static void hand_out_pc_sample(struct decoder *d, const struct trace_source *from) {
  const struct ctf_event *ev = from->event;
  const struct event_info *info = from->info;
  struct trace_pc_sample s = {.from = *from};
  struct ctf_value function, stall;
  int64_t pc, samples;
  if (!event_map_ids(&d->reader->map, info, ev, &s.pid, &s.tid) ||
      !field_string(ev, info->device_name, &function) || !field_string(ev, info->pc_stall, &stall) ||
      !event_map_field_int(ev, info->pc_offset, &pc) ||
      !event_map_field_int(ev, info->pc_samples, &samples) || samples <= 0)
    return;
  s.function = function.u.string.chars;
  s.function_len = function.u.string.length;
  s.pc_offset = (uint64_t)pc;
  s.stall = stall.u.string.chars;
  s.stall_len = stall.u.string.length;
  s.samples = (uint64_t)samples;
  HAND_OUT(d, pc_sample, &s);
}

/* An event handed out by the time it was written: inside the window? By its process for
 * the app's own records (the GPU's PC samples among them); a sample (the sampler's
 * process) or another event by any process of its host. */
static bool event_time_inside(struct decoder *d, const struct trace_source *from) {
  int64_t pid = 0, tid;
  bool has_pid = (from->info->role == EVENT_UNFINISHED || from->info->role == EVENT_COUNTED ||
                  from->info->role == EVENT_PC_SAMPLE) &&
                 event_map_ids(&d->reader->map, from->info, from->event, &pid, &tid);
  return !outside(d, from->host, pid, has_pid, from->event->timestamp);
}

int decoder_event(struct decoder *d, const struct ctf_event *ev, int host,
                  struct reader_stream_count *count) {
  const struct event_info *info = &d->reader->map.infos[ev->event_class->index];
  d->event_has_clock_read = false;
  d->window_left_out = false;
  count->events++;
  if (ev->packet->index != count->packet) {
    count->packet = ev->packet->index;
    count->discarded += ev->packet->events_discarded_new;
  }
  uint64_t time = d->needs & TRACE_NEEDS_TIMES ? decoder_time(d, ev, ev->timestamp) : 0;
  d->time = time;
  struct trace_source from = source_of(d, ev, info, host, time);
  switch (info->role) {
  case EVENT_CALL:
    if (info->batch)
      hand_out_batch(d, &from, count);
    else if (!hand_out_own_call(d, &from))
      HAND_OUT(d, other, &from); /* not readable as a call: shown as it is */
    return d->status;
  case EVENT_CALIBRATION_SAMPLE: /* the tracer measuring itself, not the app */
    count->own_events++;
    return d->status;
  case EVENT_STACK: /* what records refer to, kept by the reader: no record of its own */
    count->own_events++;
    keep_stack(d, &from);
    return d->status;
  case EVENT_OBJECT:
    count->own_events++;
    keep_object(d, &from);
    return d->status;
  case EVENT_DEVICE_COMMAND:
    if (!hand_out_device(d, &from))
      return d->status;
    break;
  case EVENT_UNFINISHED:
  case EVENT_COUNTED:
  case EVENT_OTHER:
  case EVENT_SAMPLE:
  case EVENT_SAMPLER_UNAVAILABLE:
  case EVENT_PC_SAMPLE:
    /* By the time they were written (trace_window.h). */
    if (d->window && !event_time_inside(d, &from))
      return d->status;
    if (info->role == EVENT_UNFINISHED)
      hand_out_unfinished(d, &from);
    else if (info->role == EVENT_COUNTED)
      hand_out_counted(d, &from);
    else if (info->role == EVENT_PC_SAMPLE)
      hand_out_pc_sample(d, &from);
    else if (info->role != EVENT_OTHER)
      hand_out_sample(d, &from);
    break;
  case EVENT_CLOCK_READ:
  case EVENT_CALIBRATION:
    count->own_events++;
    hand_out_cost(d, &from);
    break;
  case EVENT_REGION:
  case EVENT_PAUSED:
    if (!hand_out_region(d, &from))
      return d->status;
    break;
  case EVENT_NOTICE: hand_out_notice(d, &from); break;
  case EVENT_RANK: hand_out_rank(d, &from); break;
  }
  HAND_OUT(d, other, &from);
  return d->status;
}
