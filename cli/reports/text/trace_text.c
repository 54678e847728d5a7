/* trace_text: see trace_text.h. */
#include "trace_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends.h"
#include "line_order.h"
#include "tracer_backend_desc.h"

enum { MAX_ELEMENTS_SHOWN = 32, MAX_FIELDS = 256 };

/* Numbers written by hand: -t writes millions of lines, and fprintf's format parsing
 * was most of its time. */
static void put_u64(FILE *out, uint64_t v) {
  char digits[24], *p = digits + sizeof digits;
  *--p = 0;
  do
    *--p = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  fputs(p, out);
}

static void put_i64(FILE *out, int64_t v) {
  if (v < 0) {
    fputc('-', out);
    put_u64(out, -(uint64_t)v);
  } else {
    put_u64(out, (uint64_t)v);
  }
}

static void put_hex(FILE *out, uint64_t v) {
  char digits[24], *p = digits + sizeof digits;
  *--p = 0;
  do
    *--p = "0123456789abcdef"[v & 15];
  while ((v >>= 4) > 0);
  *--p = 'x';
  *--p = '0';
  fputs(p, out);
}

/* The hostname of the event's trace, kept for the trace it was last asked for (a search
 * through the environment each line was a twentieth of -t's time). */
static const struct ctf_subtrace *host_subtrace; /* reset for each trace printed */
static const char *host_name;

static const char *host_of(const struct ctf_event *ev) {
  if (ev->stream->subtrace != host_subtrace) {
    host_subtrace = ev->stream->subtrace;
    host_name = ctf_subtrace_env_string(host_subtrace, "hostname");
  }
  return host_name;
}

/* ", name: " (or " name: " for the first field of a line). */
static void put_field_name(FILE *out, const char *name, size_t len, bool *first) {
  fputs(*first ? " " : ", ", out);
  fwrite(name, 1, len, out);
  fputs(": ", out);
  *first = false;
}

static void print_int(FILE *out, const struct ctf_value *v, const struct tracer_names *names) {
  int64_t as_signed = v->kind == CTF_VALUE_SIGNED ? v->u.s : (int64_t)v->u.u;
  const char *name = backends_value_name(names, as_signed);
  if (name) {
    fputs(name, out);
    return;
  }
  if (v->type && v->type->kind == CTF_TYPE_ENUM) {
    const char *labels[4];
    size_t n = ctf_enum_labels(v->type, v, labels, 4);
    if (n) {
      fputs(labels[0], out);
      return;
    }
  }
  const struct ctf_type *t = v->type && v->type->kind == CTF_TYPE_ENUM
                                 ? v->type->u.enumeration.container
                                 : v->type;
  if (t && t->kind == CTF_TYPE_INTEGER && t->u.integer.base == 16)
    put_hex(out, v->u.u);
  else if (v->kind == CTF_VALUE_SIGNED)
    put_i64(out, v->u.s);
  else
    put_u64(out, v->u.u);
}

static void print_string(FILE *out, const char *s, size_t len) {
  fputc('"', out);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", out);
    else if (c < 0x20 || c == 0x7f)
      fprintf(out, "\\x%02x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

static uint64_t read_le(const uint8_t *p, uint32_t size) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < size; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* One struct, member by member, from its bytes (x86-64: little-endian). */
static void print_record(FILE *out, const struct tracer_record *r, const uint8_t *bytes) {
  fputs("{ ", out);
  for (uint32_t i = 0; i < r->count; i++) {
    const struct tracer_record_member *m = &r->members[i];
    fprintf(out, "%s%s: ", i ? ", " : "", m->name);
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
        fprintf(out, "%g", (double)f);
      } else {
        double d;
        memcpy(&d, &raw, sizeof d);
        fprintf(out, "%g", d);
      }
      break;
    case TRACER_MEMBER_POINTER: fprintf(out, "0x%" PRIx64, raw); break;
    }
  }
  fputs(" }", out);
}

static void print_value(FILE *out, const char *field, const struct ctf_value *v,
                        const struct tracer_field_format *format);

static void print_array(FILE *out, const char *field, const struct ctf_value *v,
                        const struct tracer_field_format *format) {
  size_t len = strlen(field);
  bool single = len > 4 && strcmp(field + len - 4, "_val") == 0;
  if (single && v->u.array.count == 0) {
    fputs("NULL", out);
    return;
  }
  if (format && format->record && v->u.array.stride == 8 && v->u.array.bit == 0) {
    /* The bytes of one or more structs. */
    uint64_t size = format->record->size;
    uint64_t n = size ? v->u.array.count / size : 0;
    if (n > 1)
      fputs("[ ", out);
    for (uint64_t i = 0; i < n && i < MAX_ELEMENTS_SHOWN; i++) {
      if (i)
        fputs(", ", out);
      print_record(out, format->record, v->u.array.data + i * size);
    }
    if (n > 1)
      fputs(n > MAX_ELEMENTS_SHOWN ? ", ... ]" : " ]", out);
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
    fputs("[]", out);
    return;
  }
  if (!single)
    fputs("[ ", out);
  for (uint64_t i = 0; i < v->u.array.count && i < MAX_ELEMENTS_SHOWN; i++) {
    struct ctf_value e;
    if (ctf_value_element(v, i, &e) != CTF_OK)
      break;
    if (i)
      fputs(", ", out);
    print_value(out, field, &e, format);
  }
  if (!single)
    fputs(v->u.array.count > MAX_ELEMENTS_SHOWN ? ", ... ]" : " ]", out);
}

static void print_value(FILE *out, const char *field, const struct ctf_value *v,
                        const struct tracer_field_format *format) {
  switch (v->kind) {
  case CTF_VALUE_SIGNED:
  case CTF_VALUE_UNSIGNED: print_int(out, v, format ? format->names : NULL); break;
  case CTF_VALUE_FLOAT: fprintf(out, "%g", v->u.f); break;
  case CTF_VALUE_STRING: print_string(out, v->u.string.chars, v->u.string.length); break;
  case CTF_VALUE_ARRAY: print_array(out, field, v, format); break;
  default: fputs("?", out); break;
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
static bool print_function(FILE *out, const struct event_info *info, const struct ctf_value *values,
                           size_t field) {
  if (info->role != EVENT_UNFINISHED || (int)field != info->function_field)
    return false;
  const struct tracer_backend_desc *b = backend_of(values, info);
  const struct ctf_value *v = &values[field];
  int64_t index = v->kind == CTF_VALUE_SIGNED ? v->u.s : (int64_t)v->u.u;
  if (!b || index < 0 || (uint64_t)index >= b->function_count)
    return false;
  fputs(b->functions[index].name, out);
  return true;
}

/* A value of the trace clock as local time of day, to the nanosecond. */
static void print_time_of_day(FILE *out, const struct ctf_clock_class *clock, uint64_t value) {
  /* The second's local time, kept: localtime_r for every line was a tenth of -t's time. */
  static time_t last_secs = -1;
  static struct tm tm;
  int64_t ns = clock ? ctf_clock_to_ns(clock, value) : (int64_t)value;
  time_t secs = (time_t)(ns / 1000000000);
  if (secs != last_secs) {
    localtime_r(&secs, &tm);
    last_secs = secs;
  }
  char text[] = "HH:MM:SS.nnnnnnnnn";
  int fields[3] = {tm.tm_hour, tm.tm_min, tm.tm_sec};
  for (int i = 0; i < 3; i++) {
    text[3 * i] = (char)('0' + fields[i] / 10 % 10);
    text[3 * i + 1] = (char)('0' + fields[i] % 10);
  }
  int64_t fraction = ns % 1000000000;
  if (fraction < 0) /* before the epoch: not a time a trace has */
    fraction = 0;
  for (int i = 17; i >= 9; i--, fraction /= 10)
    text[i] = (char)('0' + fraction % 10);
  fputs(text, out);
}

/* Every line is printed into one memory stream, reused, then copied out: opening a
 * stream per line cost a zeroed 8 KiB buffer each. One reader at a time (-t is read on
 * one thread). */
static FILE *line_stream;
static char *line_buffer;
static size_t line_size;

static FILE *line_begin(void) {
  if (!line_stream && !(line_stream = open_memstream(&line_buffer, &line_size)))
    return NULL;
  rewind(line_stream);
  return line_stream;
}

/* The line printed since line_begin(), as a string of its own; NULL when out of memory. */
static char *line_take(void) {
  return fflush(line_stream) == 0 ? strndup(line_buffer, line_size) : NULL;
}

static void line_stream_close(void) {
  if (line_stream)
    fclose(line_stream);
  free(line_buffer);
  line_stream = NULL;
  line_buffer = NULL;
}

/* The runtime's device_command start/end and unfinished start are trace clock values. */
static bool is_clock_field(const struct event_info *info, size_t field) {
  return (info->role == EVENT_DEVICE_COMMAND &&
          ((int)field == info->start || (int)field == info->device_end)) ||
         (info->role == EVENT_UNFINISHED && (int)field == info->start);
}

static void print_event(FILE *out, const struct event_map *map, const struct ctf_event *ev,
                        struct ctf_value *values) {
  const struct ctf_event_class *c = ev->event_class;
  const struct event_info *info = &map->infos[c->index];
  const struct ctf_clock_class *clock = c->stream_class->clock;
  print_time_of_day(out, clock, ev->timestamp);
  const char *host = host_of(ev);
  int64_t pid = 0, tid = 0;
  if (event_map_ids(map, info, ev, &pid, &tid))
    fprintf(out, " - %s - pid: %lld, tid: %lld - %s: {", host ? host : "?", (long long)pid,
            (long long)tid, c->name);
  else
    fprintf(out, " - %s - %s: {", host ? host : "?", c->name);
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
        print_time_of_day(out, clock, v->kind == CTF_VALUE_UNSIGNED ? v->u.u : (uint64_t)v->u.s);
      else if (!print_function(out, info, values, i))
        print_value(out, name, v, format);
    }
    fputs(first ? "}\n" : " }\n", out);
  } else {
    fputs(" (payload not readable) }\n", out);
  }
}

/* A slot's value as its type had it: the low `size` bytes, sign-extended if signed. */
static void print_slot(FILE *out, const struct tracer_slot *slot, uint64_t raw,
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
  case TRACER_SLOT_ADDRESS: put_hex(out, raw); break;
  case TRACER_SLOT_FLOAT: {
    float f;
    uint32_t bits = (uint32_t)raw;
    memcpy(&f, &bits, sizeof f);
    fprintf(out, "%g", (double)f);
    break;
  }
  case TRACER_SLOT_DOUBLE: {
    double d;
    memcpy(&d, &raw, sizeof d);
    fprintf(out, "%g", d);
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

static void print_field(FILE *out, const struct tracer_function_desc *f, struct call_fields *cf,
                        size_t i, bool *first) {
  const char *name = cf->c->fields[i].name;
  size_t len = shown_length(name);
  put_field_name(out, name, len, first);
  char shown_name[256];
  snprintf(shown_name, sizeof shown_name, "%.*s", (int)len, name);
  print_value(out, shown_name, &cf->values[i], backends_field_format(f, name, len));
  cf->shown[i] = true;
}

/* Full mode: the field holding what param `param` points to, at entry or exit. */
static void print_contents_of(FILE *out, const struct tracer_function_desc *f,
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

/* One line of a call: its entry (the arguments as passed) or its exit (result, status and
 * out values). */
static void print_call_line(FILE *out, const struct event_map *map, const struct ctf_event *ev,
                            const struct event_call *call, const uint64_t *slots, size_t n,
                            struct call_fields *cf, bool exit) {
  const struct event_info *info = &map->infos[cf->c->index];
  const struct tracer_function_desc *f = &info->desc->functions[call->function];
  const char *host = host_of(ev);
  print_time_of_day(out, cf->c->stream_class->clock, exit ? call->end : call->start);
  fputs(" - ", out);
  fputs(host ? host : "?", out);
  fputs(" - pid: ", out);
  put_i64(out, call->pid);
  fputs(", tid: ", out);
  put_i64(out, call->tid);
  fputs(" - ", out);
  fputs(info->desc->provider, out);
  fputc(':', out);
  fputs(f->name, out);
  fputs(exit ? "_exit: {" : "_entry: {", out);
  bool first = true;
  for (uint32_t k = 0; k < f->slot_count; k++) {
    const struct tracer_slot *slot = &f->slots[k];
    if (!slot->name || (bool)slot->at_exit != exit || slot->index >= n)
      continue;
    put_field_name(out, slot->name, strlen(slot->name), &first);
    if (slot->present_if >= 0 && (size_t)slot->present_if < n && slots[slot->present_if] == 0)
      fputs("NULL", out);
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
  fputs(first ? "}\n" : " }\n", out);
}

static int format_lines(const struct event_map *map, const struct ctf_event *ev,
                        const struct event_call *call, const uint64_t *slots, size_t n,
                        struct call_fields *cf, char **entry, char **exit);

/* A call event becomes two lines, entry and exit, each printed into its own string. */
static int format_call(const struct event_map *map, const struct trace_call *tc,
                       struct ctf_value *values, const struct event_call *call, char **entry,
                       char **exit) {
  const struct ctf_event *ev = tc->from.event;
  const struct ctf_event_class *c = ev->event_class;
  const struct event_info *info = tc->from.info;
  const struct tracer_function_desc *f = &info->desc->functions[call->function];
  bool shown[MAX_FIELDS] = {0};
  struct call_fields cf = {c, NULL, c->field_count, shown};
  if (info->full && !tc->batched && c->field_count <= MAX_FIELDS &&
      ctf_event_decode_payload(ev, values, MAX_FIELDS, NULL) == CTF_OK) {
    cf.values = values;
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
  return format_lines(map, ev, call, tc->slots, tc->slot_count, &cf, entry, exit);
}

/* The entry and exit lines of one call, each printed into its own string. */
static int format_lines(const struct event_map *map, const struct ctf_event *ev,
                        const struct event_call *call, const uint64_t *slots, size_t n,
                        struct call_fields *cf, char **entry, char **exit) {
  FILE *line = line_begin();
  if (!line)
    return -1;
  print_call_line(line, map, ev, call, slots, n, cf, false);
  if (!(*entry = line_take()))
    return -1;
  print_call_line(line_begin(), map, ev, call, slots, n, cf, true);
  if (!(*exit = line_take())) {
    free(*entry);
    return -1;
  }
  return 0;
}

static uint64_t thread_key(const struct ctf_event *ev, const struct event_call *call) {
  /* Threads of different hosts or processes may share a tid: mix all three. */
  uint64_t key = (uint64_t)(uintptr_t)ev->stream->subtrace;
  key = key * 0x9e3779b97f4a7c15u ^ (uint64_t)call->pid;
  return key * 0x9e3779b97f4a7c15u ^ (uint64_t)call->tid;
}

struct trace_text {
  const struct event_map *map;
  struct line_order *order;
  struct ctf_value *values; /* MAX_FIELDS; owned */
};

/* A call: its two lines, the entry at its start, the exit at its event's time (for a
 * call of a batch, at its end: the batch's event came later). */
static int on_call(void *context, const struct trace_call *c) {
  struct trace_text *t = context;
  struct event_call call = {.start = c->start_clock, .end = c->end_clock, .pid = c->pid,
                            .tid = c->tid, .function = c->function, .status = c->status,
                            .depth = c->depth};
  char *entry = NULL, *exit = NULL;
  if (format_call(t->map, c, t->values, &call, &entry, &exit))
    return -1;
  const struct ctf_event *ev = c->from.event;
  return line_order_add_call(t->order, thread_key(ev, &call), call.depth, call.start, entry,
                             c->batched ? call.end : ev->timestamp, exit);
}

/* Any other event, as it is. */
static int on_other(void *context, const struct trace_source *from) {
  struct trace_text *t = context;
  FILE *line = line_begin();
  char *entry;
  if (!line)
    return -1;
  print_event(line, t->map, from->event, t->values);
  if (!(entry = line_take()))
    return -1;
  return line_order_add(t->order, from->event->timestamp, entry);
}

static int on_horizon(void *context, uint64_t until) {
  struct trace_text *t = context;
  line_order_flush(t->order, until);
  return 0;
}

int trace_text_open(const struct event_map *map, FILE *out, struct trace_text **text,
                    struct trace_consumer *consumer, struct diag *d) {
  struct trace_text *t = calloc(1, sizeof *t);
  *text = t;
  if (!t || !(t->values = calloc(MAX_FIELDS, sizeof *t->values)) ||
      !(t->order = line_order_new(out))) {
    trace_text_close(t);
    *text = NULL;
    return diag_error(d, "Cannot print the trace: out of memory");
  }
  t->map = map;
  host_subtrace = NULL;
  *consumer = (struct trace_consumer){
      .name = "text",
      .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_SLOTS | TRACE_NEEDS_HORIZON,
      .context = t,
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
  line_stream_close();
  free(t->values);
  free(t);
}
