/* trace_text: see trace_text.h. */
#include "trace_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends.h"
#include "tracer_backend_desc.h"

enum { MAX_ELEMENTS_SHOWN = 32, MAX_FIELDS = 256 };

static const char *value_name(const struct tracer_names *names, int64_t value) {
  uint32_t lo = 0, hi = names->count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (names->values[mid].value < value)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < names->count && names->values[lo].value == value ? names->values[lo].name : NULL;
}

static void print_int(FILE *out, const struct ctf_value *v, const struct tracer_names *names) {
  int64_t as_signed = v->kind == CTF_VALUE_SIGNED ? v->u.s : (int64_t)v->u.u;
  const char *name = names ? value_name(names, as_signed) : NULL;
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
    fprintf(out, "0x%" PRIx64, v->u.u);
  else if (v->kind == CTF_VALUE_SIGNED)
    fprintf(out, "%" PRId64, v->u.s);
  else
    fprintf(out, "%" PRIu64, v->u.u);
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

/* Minimal mode's call event: its record holds the function's index and its status
 * (and the start and ids, shown elsewhere). */
static bool print_call(FILE *out, const struct event_info *info, const struct ctf_event *ev) {
  struct event_call call;
  const struct tracer_backend_desc *b = info->desc;
  if (info->role != EVENT_CALL || !event_map_call(info, ev, &call) || call.function < 0 ||
      (uint64_t)call.function >= b->function_count)
    return false;
  struct ctf_value status = {.kind = CTF_VALUE_SIGNED};
  status.u.s = call.status;
  fprintf(out, " function: %s, status: ", b->functions[call.function].name);
  print_int(out, &status, b->status_names);
  fputs(" }\n", out);
  return true;
}

/* A value of the trace clock as local time of day, to the nanosecond. */
static void print_time_of_day(FILE *out, const struct ctf_clock_class *clock, uint64_t value) {
  int64_t ns = clock ? ctf_clock_to_ns(clock, value) : (int64_t)value;
  time_t secs = (time_t)(ns / 1000000000);
  struct tm tm;
  localtime_r(&secs, &tm);
  fprintf(out, "%02d:%02d:%02d.%09lld", tm.tm_hour, tm.tm_min, tm.tm_sec,
          (long long)(ns % 1000000000));
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
  const char *host = ctf_subtrace_env_string(ev->stream->subtrace, "hostname");
  int64_t pid = 0, tid = 0;
  if (event_map_ids(map, info, ev, &pid, &tid))
    fprintf(out, " - %s - pid: %lld, tid: %lld - %s: {", host ? host : "?", (long long)pid,
            (long long)tid, c->name);
  else
    fprintf(out, " - %s - %s: {", host ? host : "?", c->name);
  if (print_call(out, info, ev))
    return;
  if (c->field_count <= MAX_FIELDS &&
      ctf_event_decode_payload(ev, values, MAX_FIELDS, NULL) == CTF_OK) {
    bool first = true;
    for (size_t i = 0; i < c->field_count; i++) {
      const char *name = c->fields[i].name;
      /* An exit event's start is the tracer's own bookkeeping (durations are in the
       * tally); the ids are already at the head of the line. */
      if (is_length_of_next(c, i) || (int)i == info->pid || (int)i == info->tid ||
          ((info->role == EVENT_ENTRY || info->role == EVENT_EXIT) && strcmp(name, "start") == 0))
        continue;
      fprintf(out, "%s %s: ", first ? "" : ",", name);
      first = false;
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

int trace_text_print(const struct ctf_trace *trace, const struct event_map *map, FILE *out,
                     char **error) {
  struct ctf_merge *merge;
  struct ctf_error err;
  *error = NULL;
  if (ctf_merge_open(trace, NULL, ctf_trace_stream_count(trace), &merge, &err) != CTF_OK) {
    *error = strdup(err.message);
    return -1;
  }
  struct ctf_value *values = calloc(MAX_FIELDS, sizeof *values);
  const struct ctf_event *ev;
  enum ctf_status st;
  int rc = 0;
  while (values && (st = ctf_merge_next(merge, &ev, &err)) != CTF_END) {
    if (st != CTF_OK) {
      /* One stream failed; the merge goes on with the others. */
      if (!*error)
        *error = strdup(err.message);
      rc = -1;
      continue;
    }
    print_event(out, map, ev, values);
  }
  free(values);
  ctf_merge_close(merge);
  return rc;
}
