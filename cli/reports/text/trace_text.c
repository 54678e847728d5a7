/* trace_text: see trace_text.h. */
#include "trace_text.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends.h"
#include "line_order.h"
#include "text_line.h"
#include "tracer_backend_desc.h"

enum { MAX_ELEMENTS_SHOWN = 32, MAX_FIELDS = 256 };

/* What one thread needs to write lines: -t writes on the reading thread, or on each
 * thread that decodes (prepare_call, prepare_other) in a read on several threads. */
struct text_format {
  const struct event_map *map;
  struct ctf_value *values;    /* MAX_FIELDS; owned */
  struct text_line line;       /* the line being written; owned */
  /* The hostname of the trace last asked for (a search through the environment each
   * line was a twentieth of -t's time), and the local time of the second last written
   * (localtime_r for every line was a tenth). */
  const struct ctf_subtrace *host_subtrace;
  const char *host_name;
  time_t last_secs;
  struct tm tm;
};

static struct text_format *format_new(const struct event_map *map) {
  struct text_format *f = calloc(1, sizeof *f);
  if (f && !(f->values = calloc(MAX_FIELDS, sizeof *f->values))) {
    free(f);
    return NULL;
  }
  if (f) {
    f->map = map;
    f->last_secs = -1;
  }
  return f;
}

static void format_free(struct text_format *f) {
  if (!f)
    return;
  free(f->values);
  free(f->line.data);
  free(f);
}

static const char *host_of(struct text_format *f, const struct ctf_event *ev) {
  if (ev->stream->subtrace != f->host_subtrace) {
    f->host_subtrace = ev->stream->subtrace;
    f->host_name = ctf_subtrace_env_string(f->host_subtrace, "hostname");
  }
  return f->host_name;
}

/* ", name: " (or " name: " for the first field of a line). */
static void put_field_name(struct text_line *out, const char *name, size_t len, bool *first) {
  text_line_puts(out, *first ? " " : ", ");
  text_line_put(out, name, len);
  text_line_puts(out, ": ");
  *first = false;
}

static void print_int(struct text_line *out, const struct ctf_value *v, const struct tracer_names *names) {
  int64_t as_signed = v->kind == CTF_VALUE_SIGNED ? v->u.s : (int64_t)v->u.u;
  const char *name = backends_value_name(names, as_signed);
  if (name) {
    text_line_puts(out, name);
    return;
  }
  if (v->type && v->type->kind == CTF_TYPE_ENUM) {
    const char *labels[4];
    size_t n = ctf_enum_labels(v->type, v, labels, 4);
    if (n) {
      text_line_puts(out, labels[0]);
      return;
    }
  }
  const struct ctf_type *t = v->type && v->type->kind == CTF_TYPE_ENUM
                                 ? v->type->u.enumeration.container
                                 : v->type;
  if (t && t->kind == CTF_TYPE_INTEGER && t->u.integer.base == 16)
    text_line_hex(out, v->u.u);
  else if (v->kind == CTF_VALUE_SIGNED)
    text_line_i64(out, v->u.s);
  else
    text_line_u64(out, v->u.u);
}

static void print_string(struct text_line *out, const char *s, size_t len) {
  text_line_putc(out, '"');
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char escaped[2] = {'\\', (char)c};
      text_line_put(out, escaped, 2);
    } else if (c == '\n') {
      text_line_puts(out, "\\n");
    } else if (c < 0x20 || c == 0x7f) {
      char escaped[4] = {'\\', 'x', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]};
      text_line_put(out, escaped, 4);
    } else {
      text_line_putc(out, (char)c);
    }
  }
  text_line_putc(out, '"');
}

static uint64_t read_le(const uint8_t *p, uint32_t size) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < size; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* One struct, member by member, from its bytes (x86-64: little-endian). */
static void print_record(struct text_line *out, const struct tracer_record *r, const uint8_t *bytes) {
  text_line_puts(out, "{ ");
  for (uint32_t i = 0; i < r->count; i++) {
    const struct tracer_record_member *m = &r->members[i];
    if (i)
      text_line_puts(out, ", ");
    text_line_puts(out, m->name);
    text_line_puts(out, ": ");
    uint64_t raw;
    if (m->bit_width >= 0) {
      raw = 0;
      for (int32_t b = 0; b < m->bit_width; b++) {
        int32_t bit = m->bit_offset + b;
        raw |= (uint64_t)((bytes[bit / 8] >> (bit % 8)) & 1) << b;
      }
    } else {
      raw = read_le(bytes + m->offset, m->size);
    }
    struct ctf_value v = {.kind = CTF_VALUE_UNSIGNED};
    v.u.u = raw;
    switch (m->kind) {
    case TRACER_MEMBER_SIGNED: {
      uint32_t bits = m->bit_width >= 0 ? (uint32_t)m->bit_width : m->size * 8;
      if (bits < 64 && (raw >> (bits - 1)) & 1)
        raw |= ~0ull << bits;
      v.kind = CTF_VALUE_SIGNED;
      v.u.s = (int64_t)raw;
      print_int(out, &v, m->names);
      break;
    }
    case TRACER_MEMBER_UNSIGNED: print_int(out, &v, m->names); break;
    case TRACER_MEMBER_FLOAT:
      if (m->size == 4) {
        float f;
        uint32_t u = (uint32_t)raw;
        memcpy(&f, &u, sizeof f);
        text_line_double(out, (double)f);
      } else {
        double d;
        memcpy(&d, &raw, sizeof d);
        text_line_double(out, d);
      }
      break;
    case TRACER_MEMBER_POINTER: text_line_hex(out, raw); break;
    }
  }
  text_line_puts(out, " }");
}

static void print_value(struct text_line *out, const char *field, const struct ctf_value *v,
                        const struct tracer_field_format *format);

static void print_array(struct text_line *out, const char *field, const struct ctf_value *v,
                        const struct tracer_field_format *format) {
  size_t len = strlen(field);
  bool single = len > 4 && strcmp(field + len - 4, "_val") == 0;
  if (single && v->u.array.count == 0) {
    text_line_puts(out, "NULL");
    return;
  }
  if (format && format->record && v->u.array.stride == 8 && v->u.array.bit == 0) {
    /* The bytes of one or more structs. */
    uint64_t size = format->record->size;
    uint64_t n = size ? v->u.array.count / size : 0;
    if (n > 1)
      text_line_puts(out, "[ ");
    for (uint64_t i = 0; i < n && i < MAX_ELEMENTS_SHOWN; i++) {
      if (i)
        text_line_puts(out, ", ");
      print_record(out, format->record, v->u.array.data + i * size);
    }
    if (n > 1)
      text_line_puts(out, n > MAX_ELEMENTS_SHOWN ? ", ... ]" : " ]");
    if (n)
      return;
  }
  if (ctf_value_is_text(v)) {
    const char *chars;
    size_t n;
    ctf_value_text(v, &chars, &n);
    print_string(out, chars, n);
    return;
  }
  if (!single && v->u.array.count == 0) {
    text_line_puts(out, "[]");
    return;
  }
  if (!single)
    text_line_puts(out, "[ ");
  for (uint64_t i = 0; i < v->u.array.count && i < MAX_ELEMENTS_SHOWN; i++) {
    struct ctf_value e;
    if (ctf_value_element(v, i, &e) != CTF_OK)
      break;
    if (i)
      text_line_puts(out, ", ");
    print_value(out, field, &e, format);
  }
  if (!single)
    text_line_puts(out, v->u.array.count > MAX_ELEMENTS_SHOWN ? ", ... ]" : " ]");
}

static void print_value(struct text_line *out, const char *field, const struct ctf_value *v,
                        const struct tracer_field_format *format) {
  switch (v->kind) {
  case CTF_VALUE_SIGNED:
  case CTF_VALUE_UNSIGNED: print_int(out, v, format ? format->names : NULL); break;
  case CTF_VALUE_FLOAT: text_line_double(out, v->u.f); break;
  case CTF_VALUE_STRING: print_string(out, v->u.string.chars, v->u.string.length); break;
  case CTF_VALUE_ARRAY: print_array(out, field, v, format); break;
  default: text_line_puts(out, "?"); break;
  }
}

static const struct tracer_field_format *format_of(const struct event_info *info,
                                                   const char *field) {
  if (!info->desc || info->function < 0)
    return NULL;
  const struct tracer_function_desc *f = &info->desc->functions[info->function];
  for (uint32_t i = 0; i < f->format_count; i++)
    if (strcmp(f->formats[i].field, field) == 0)
      return &f->formats[i];
  return NULL;
}

/* LTTng writes a sequence's length as a field of its own just before it; babeltrace2
 * shows both, the tracer only the sequence. */
static bool is_length_of_next(const struct ctf_event_class *c, size_t i) {
  if (i + 1 >= c->field_count)
    return false;
  const struct ctf_type *next = c->fields[i + 1].type;
  return next->kind == CTF_TYPE_SEQUENCE && next->u.sequence.length &&
         strcmp(next->u.sequence.length, c->fields[i].raw_name) == 0;
}

/* The backend an unfinished event names, by its `backend` string field. */
static const struct tracer_backend_desc *backend_of(const struct ctf_value *values,
                                                    const struct event_info *info) {
  if (info->device_backend < 0)
    return NULL;
  const struct ctf_value *v = &values[info->device_backend];
  if (v->kind != CTF_VALUE_STRING)
    return NULL;
  for (size_t i = 0; tracer_backends[i]; i++)
    if (strlen(tracer_backends[i]->name) == v->u.string.length &&
        strncmp(tracer_backends[i]->name, v->u.string.chars, v->u.string.length) == 0)
      return tracer_backends[i];
  return NULL;
}

/* `function` of unfinished events is an index: show its name. */
static bool print_function(struct text_line *out, const struct event_info *info, const struct ctf_value *values,
                           size_t field) {
  if (info->role != EVENT_UNFINISHED || (int)field != info->function_field)
    return false;
  const struct tracer_backend_desc *b = backend_of(values, info);
  const struct ctf_value *v = &values[field];
  int64_t index = v->kind == CTF_VALUE_SIGNED ? v->u.s : (int64_t)v->u.u;
  if (!b || index < 0 || (uint64_t)index >= b->function_count)
    return false;
  text_line_puts(out, b->functions[index].name);
  return true;
}

/* A value of the trace clock as local time of day, to the nanosecond. */
static void print_time_of_day(struct text_format *f, const struct ctf_clock_class *clock,
                              uint64_t value) {
  int64_t ns = clock ? ctf_clock_to_ns(clock, value) : (int64_t)value;
  time_t secs = (time_t)(ns / 1000000000);
  if (secs != f->last_secs) {
    localtime_r(&secs, &f->tm);
    f->last_secs = secs;
  }
  char text[] = "HH:MM:SS.nnnnnnnnn";
  int fields[3] = {f->tm.tm_hour, f->tm.tm_min, f->tm.tm_sec};
  for (int i = 0; i < 3; i++) {
    text[3 * i] = (char)('0' + fields[i] / 10 % 10);
    text[3 * i + 1] = (char)('0' + fields[i] % 10);
  }
  int64_t fraction = ns % 1000000000;
  if (fraction < 0) /* before the epoch: not a time a trace has */
    fraction = 0;
  for (int i = 17; i >= 9; i--, fraction /= 10)
    text[i] = (char)('0' + fraction % 10);
  text_line_put(&f->line, text, sizeof text - 1);
}

/* The runtime's device_command start/end and unfinished start are trace clock values. */
static bool is_clock_field(const struct event_info *info, size_t field) {
  return (info->role == EVENT_DEVICE_COMMAND &&
          ((int)field == info->start || (int)field == info->device_end)) ||
         (info->role == EVENT_UNFINISHED && (int)field == info->start);
}

/* An event that is not a call, as it is, into f->line. */
static void print_event(struct text_format *f, const struct ctf_event *ev) {
  struct text_line *out = &f->line;
  const struct event_map *map = f->map;
  struct ctf_value *values = f->values;
  const struct ctf_event_class *c = ev->event_class;
  const struct event_info *info = &map->infos[c->index];
  const struct ctf_clock_class *clock = c->stream_class->clock;
  print_time_of_day(f, clock, ev->timestamp);
  const char *host = host_of(f, ev);
  int64_t pid = 0, tid = 0;
  text_line_puts(out, " - ");
  text_line_puts(out, host ? host : "?");
  if (event_map_ids(map, info, ev, &pid, &tid)) {
    text_line_puts(out, " - pid: ");
    text_line_i64(out, pid);
    text_line_puts(out, ", tid: ");
    text_line_i64(out, tid);
  }
  text_line_puts(out, " - ");
  text_line_puts(out, c->name);
  text_line_puts(out, ": {");
  if (c->field_count <= MAX_FIELDS &&
      ctf_event_decode_payload(ev, values, MAX_FIELDS, NULL) == CTF_OK) {
    bool first = true;
    for (size_t i = 0; i < c->field_count; i++) {
      const char *name = c->fields[i].name;
      /* An exit event's start is the tracer's own bookkeeping (durations are in the
       * tally); the ids are already at the head of the line. */
      if (is_length_of_next(c, i) || (int)i == info->pid || (int)i == info->tid ||
          (int)i == info->record)
        continue;
      put_field_name(out, name, strlen(name), &first);
      const struct tracer_field_format *format = format_of(info, name);
      const struct ctf_value *v = &values[i];
      if (is_clock_field(info, i) && (v->kind == CTF_VALUE_UNSIGNED || v->kind == CTF_VALUE_SIGNED))
        print_time_of_day(f, clock, v->kind == CTF_VALUE_UNSIGNED ? v->u.u : (uint64_t)v->u.s);
      else if (!print_function(out, info, values, i))
        print_value(out, name, v, format);
    }
    text_line_puts(out, first ? "}\n" : " }\n");
  } else {
    text_line_puts(out, " (payload not readable) }\n");
  }
}

/* A slot's value as its type had it: the low `size` bytes, sign-extended if signed. */
static void print_slot(struct text_line *out, const struct tracer_slot *slot, uint64_t raw,
                       const struct tracer_field_format *format) {
  if (slot->size < 8)
    raw &= (UINT64_C(1) << (8 * slot->size)) - 1;
  struct ctf_value v = {.kind = CTF_VALUE_UNSIGNED};
  v.u.u = raw;
  switch (slot->kind) {
  case TRACER_SLOT_SIGNED:
    if (slot->size < 8 && (raw >> (8 * slot->size - 1)) & 1)
      raw |= ~UINT64_C(0) << (8 * slot->size);
    v.kind = CTF_VALUE_SIGNED;
    v.u.s = (int64_t)raw;
    print_int(out, &v, format ? format->names : NULL);
    break;
  case TRACER_SLOT_UNSIGNED: print_int(out, &v, format ? format->names : NULL); break;
  case TRACER_SLOT_ADDRESS: text_line_hex(out, raw); break;
  case TRACER_SLOT_FLOAT: {
    float f;
    uint32_t bits = (uint32_t)raw;
    memcpy(&f, &bits, sizeof f);
    text_line_double(out, (double)f);
    break;
  }
  case TRACER_SLOT_DOUBLE: {
    double d;
    memcpy(&d, &raw, sizeof d);
    text_line_double(out, d);
    break;
  }
  }
}

/* Full mode's fields after the call are named like those before it, plus "_out" where a
 * param has both: shown under the plain name. */
static size_t shown_length(const char *name) {
  size_t n = strlen(name);
  return n > 4 && strcmp(name + n - 4, "_out") == 0 ? n - 4 : n;
}

struct call_fields {
  const struct ctf_event_class *c;
  struct ctf_value *values; /* the decoded payload, or NULL when there is none */
  size_t first_exit;        /* index of the first field shown at exit */
  bool *shown;
};

static void print_field(struct text_line *out, const struct tracer_function_desc *f,
                        struct call_fields *cf, size_t i, bool *first) {
  const char *name = cf->c->fields[i].name;
  size_t len = shown_length(name);
  put_field_name(out, name, len, first);
  char shown_name[256];
  snprintf(shown_name, sizeof shown_name, "%.*s", (int)len, name);
  print_value(out, shown_name, &cf->values[i], backends_field_format(f, name, len));
  cf->shown[i] = true;
}

/* Full mode: the field holding what param `param` points to, at entry or exit. */
static void print_contents_of(struct text_line *out, const struct tracer_function_desc *f,
                              struct call_fields *cf, const char *param, bool *first) {
  static const char *const kinds[] = {"_vals", "_str", "_bytes"};
  size_t plen = strlen(param);
  for (size_t i = 1; cf->values && i < cf->first_exit; i++) {
    const char *name = cf->c->fields[i].name;
    for (size_t k = 0; k < 3 && !cf->shown[i]; k++)
      if (strncmp(name, param, plen) == 0 && strcmp(name + plen, kinds[k]) == 0)
        print_field(out, f, cf, i, first);
  }
}

/* One line of a call into f->line: its entry (the arguments as passed) or its exit
 * (result, status and out values). */
static void print_call_line(struct text_format *fm, const struct ctf_event *ev,
                            const struct event_call *call, const uint64_t *slots, size_t n,
                            struct call_fields *cf, bool exit) {
  struct text_line *out = &fm->line;
  const struct event_info *info = &fm->map->infos[cf->c->index];
  const struct tracer_function_desc *f = &info->desc->functions[call->function];
  const char *host = host_of(fm, ev);
  print_time_of_day(fm, cf->c->stream_class->clock, exit ? call->end : call->start);
  text_line_puts(out, " - ");
  text_line_puts(out, host ? host : "?");
  text_line_puts(out, " - pid: ");
  text_line_i64(out, call->pid);
  text_line_puts(out, ", tid: ");
  text_line_i64(out, call->tid);
  text_line_puts(out, " - ");
  text_line_puts(out, info->desc->provider);
  text_line_putc(out, ':');
  text_line_puts(out, f->name);
  text_line_puts(out, exit ? "_exit: {" : "_entry: {");
  bool first = true;
  for (uint32_t k = 0; k < f->slot_count; k++) {
    const struct tracer_slot *slot = &f->slots[k];
    if (!slot->name || (bool)slot->at_exit != exit || slot->index >= n)
      continue;
    put_field_name(out, slot->name, strlen(slot->name), &first);
    if (slot->present_if >= 0 && (size_t)slot->present_if < n && slots[slot->present_if] == 0)
      text_line_puts(out, "NULL");
    else
      print_slot(out, slot, slots[slot->index], backends_field_format(f, slot->name, strlen(slot->name)));
    if (!exit)
      print_contents_of(out, f, cf, slot->name, &first);
  }
  if (cf->values) {
    size_t from = exit ? cf->first_exit : 1, to = exit ? cf->c->field_count : cf->first_exit;
    for (size_t i = from; i < to; i++)
      if (!cf->shown[i] && !is_length_of_next(cf->c, i))
        print_field(out, f, cf, i, &first);
  }
  text_line_puts(out, first ? "}" : " }");
  /* The name callers write, where a macro renames the function (pcre2_match). */
  if (!exit && f->written) {
    text_line_puts(out, " # ");
    text_line_puts(out, f->written);
  }
  text_line_putc(out, '\n');
}

/* A call's two lines, entry then exit, one after the other in f->line; *entry_length
 * is where the exit line starts. */
static void format_call(struct text_format *fm, const struct trace_call *tc,
                        const struct event_call *call, size_t *entry_length) {
  const struct ctf_event *ev = tc->from.event;
  const struct ctf_event_class *c = ev->event_class;
  const struct event_info *info = tc->from.info;
  const struct tracer_function_desc *f = &info->desc->functions[call->function];
  bool shown[MAX_FIELDS] = {0};
  struct call_fields cf = {c, NULL, c->field_count, shown};
  if (info->full && !tc->batched && c->field_count <= MAX_FIELDS &&
      ctf_event_decode_payload(ev, fm->values, MAX_FIELDS, NULL) == CTF_OK) {
    cf.values = fm->values;
    /* The first full_entry_fields fields after the record (sequence lengths aside). */
    size_t i = 1;
    for (uint32_t seen = 0; i < c->field_count; i++) {
      if (is_length_of_next(c, i))
        continue;
      if (seen++ == f->full_entry_fields)
        break;
    }
    for (; i > 1 && is_length_of_next(c, i - 1); i--)
      ;
    cf.first_exit = i;
  }
  fm->line.used = 0;
  fm->line.failed = false;
  print_call_line(fm, ev, call, tc->slots, tc->slot_count, &cf, false);
  *entry_length = fm->line.used;
  print_call_line(fm, ev, call, tc->slots, tc->slot_count, &cf, true);
}

static uint64_t thread_key(const struct ctf_event *ev, const struct event_call *call) {
  /* Threads of different hosts or processes may share a tid: mix all three. */
  uint64_t key = (uint64_t)(uintptr_t)ev->stream->subtrace;
  key = key * 0x9e3779b97f4a7c15u ^ (uint64_t)call->pid;
  return key * 0x9e3779b97f4a7c15u ^ (uint64_t)call->tid;
}

static struct event_call call_of(const struct trace_call *c) {
  return (struct event_call){.start = c->start_clock, .end = c->end_clock, .pid = c->pid,
                             .tid = c->tid, .function = c->function, .status = c->status,
                             .depth = c->depth};
}

struct trace_text {
  struct line_order *order;
  struct text_format *format; /* for the reading thread; owned */
};

/* What a call's lines need besides their text, ahead of it in prepared bytes. */
struct prepared_call {
  uint64_t thread, exit_at;
  uint64_t entry_length, exit_length;
};

/* A call: its two lines, the entry at its start, the exit at its event's time (for a
 * call of a batch, at its end: the batch's event came later). */
static int on_call(void *context, const struct trace_call *c) {
  struct trace_text *t = context;
  struct event_call call = call_of(c);
  struct prepared_call p;
  const char *text;
  if (c->from.prepared) { /* made by prepare_call on another thread */
    memcpy(&p, c->from.prepared, sizeof p);
    text = (const char *)c->from.prepared + sizeof p;
  } else {
    size_t entry_length;
    format_call(t->format, c, &call, &entry_length);
    if (t->format->line.failed)
      return -1;
    const struct ctf_event *ev = c->from.event;
    p = (struct prepared_call){thread_key(ev, &call), c->batched ? call.end : ev->timestamp,
                               entry_length, t->format->line.used - entry_length};
    text = t->format->line.data;
  }
  /* A submission's line of code, after its entry (named here, in time order, after the
   * stack's definition was read: trace_stacks.h). */
  const struct trace_frame *source = c->stack ? trace_stack_source(c->stack) : NULL;
  char at[2200] = "";
  if (source && source->kind == TRACE_FRAME_PYTHON)
    snprintf(at, sizeof at, "    at %s:%d %s\n", source->file, source->line, source->function);
  else if (source && source->line)
    snprintf(at, sizeof at, "    at %s (%s:%d)\n", source->function, source->file, source->line);
  else if (source)
    snprintf(at, sizeof at, "    at %s\n", source->function);
  char *entry = malloc(p.entry_length + strlen(at) + 1);
  if (entry) {
    memcpy(entry, text, p.entry_length);
    strcpy(entry + p.entry_length, at);
  }
  char *exit = strndup(text + p.entry_length, p.exit_length);
  if (!entry || !exit) {
    free(entry);
    free(exit);
    return -1;
  }
  return line_order_add_call(t->order, p.thread, call.depth, call.start, entry, p.exit_at, exit);
}

static int prepare_call(void *worker, const struct trace_call *c, struct trace_bytes *out) {
  struct text_format *f = worker;
  struct event_call call = call_of(c);
  size_t entry_length;
  format_call(f, c, &call, &entry_length);
  const struct ctf_event *ev = c->from.event;
  struct prepared_call p = {thread_key(ev, &call), c->batched ? call.end : ev->timestamp,
                            entry_length, f->line.used - entry_length};
  return f->line.failed || trace_bytes_put(out, &p, sizeof p) ||
                 trace_bytes_put(out, f->line.data, f->line.used)
             ? -1
             : 0;
}

/* Any other event, as it is. */
static int on_other(void *context, const struct trace_source *from) {
  struct trace_text *t = context;
  uint64_t at;
  const char *text;
  size_t length;
  if (from->prepared) {
    memcpy(&at, from->prepared, sizeof at);
    text = (const char *)from->prepared + sizeof at;
    length = from->prepared_size - sizeof at;
  } else {
    t->format->line.used = 0;
    t->format->line.failed = false;
    print_event(t->format, from->event);
    if (t->format->line.failed)
      return -1;
    at = from->event->timestamp;
    text = t->format->line.data;
    length = t->format->line.used;
  }
  char *line = strndup(text, length);
  if (!line)
    return -1;
  return line_order_add(t->order, at, line);
}

static int prepare_other(void *worker, const struct trace_source *from,
                         struct trace_bytes *out) {
  struct text_format *f = worker;
  f->line.used = 0;
  f->line.failed = false;
  print_event(f, from->event);
  uint64_t at = from->event->timestamp;
  return f->line.failed || trace_bytes_put(out, &at, sizeof at) ||
                 trace_bytes_put(out, f->line.data, f->line.used)
             ? -1
             : 0;
}

static int on_horizon(void *context, uint64_t until) {
  struct trace_text *t = context;
  line_order_flush(t->order, until);
  return 0;
}

/* The reading threads' own writers (prepare_call, prepare_other). */
static void *fork_format(void *context) {
  struct trace_text *t = context;
  return format_new(t->format->map);
}

static int join_format(void *context, void *worker) {
  (void)context;
  format_free(worker);
  return 0;
}

int trace_text_open(const struct event_map *map, FILE *out, struct trace_text **text,
                    struct trace_consumer *consumer, struct diag *d) {
  struct trace_text *t = calloc(1, sizeof *t);
  *text = t;
  if (!t || !(t->format = format_new(map)) || !(t->order = line_order_new(out))) {
    trace_text_close(t);
    *text = NULL;
    return diag_error(d, "Cannot print the trace: out of memory");
  }
  *consumer = (struct trace_consumer){
      .name = "text",
      .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_SLOTS | TRACE_NEEDS_HORIZON | TRACE_NEEDS_EVENT,
      .context = t,
      .fork = fork_format,
      .join = join_format,
      .prepare_call = prepare_call,
      .prepare_other = prepare_other,
      .call = on_call,
      .other = on_other,
      .horizon = on_horizon,
  };
  return 0;
}

void trace_text_close(struct trace_text *t) {
  if (!t)
    return;
  if (t->order)
    line_order_finish(t->order);
  format_free(t->format);
  free(t);
}
