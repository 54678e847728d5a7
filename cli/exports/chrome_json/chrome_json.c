/* chrome_json: the timeline as Chrome trace-event JSON; see chrome_json.h. */
#include "chrome_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { JSON_SYNTHETIC_ID = 1000000000 };

/* Where a track's events go in JSON: a pid and a tid. */
struct json_track {
  int64_t pid, tid;
  char *name; /* counters: the counter's name; owned */
};

struct chrome_json {
  FILE *out;            /* owned */
  char *path;           /* owned */
  bool first;
  struct json_track *tracks; /* by uuid - 1; owned */
  size_t track_count, track_cap;
  char error[512];
};

static int json_fail(struct chrome_json *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int json_fail(struct chrome_json *j, const char *fmt, ...) {
  if (!j->error[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->error, sizeof j->error, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* Microseconds with the nanoseconds kept. */
static void json_us(FILE *f, uint64_t ns) {
  fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static void open_event(struct chrome_json *j, const char *ph) {
  fputs(j->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"", j->out);
  j->first = false;
  fputs(ph, j->out);
  fputc('"', j->out);
}

static const struct json_track *track_of(const struct chrome_json *j, uint64_t uuid) {
  static const struct json_track none = {0, 0, NULL};
  return uuid && uuid <= j->track_count ? &j->tracks[uuid - 1] : &none;
}

/* A track made by the writer: its pid and tid, and its name in an "M" event. */
static int on_track(void *state, const struct timeline_track_info *t) {
  struct chrome_json *j = state;
  if (j->track_count == j->track_cap) {
    size_t cap = j->track_cap ? j->track_cap * 2 : 64;
    struct json_track *grown = realloc(j->tracks, cap * sizeof *grown);
    if (!grown)
      return json_fail(j, "Cannot write the JSON timeline: out of memory");
    j->tracks = grown;
    j->track_cap = cap;
  }
  struct json_track *jt = &j->tracks[j->track_count++];
  *jt = (struct json_track){0, 0, NULL};
  switch (t->kind) {
  case TIMELINE_TRACK_PROCESS: jt->pid = t->pid; break;
  case TIMELINE_TRACK_THREAD: jt->pid = t->pid; jt->tid = t->id; break;
  case TIMELINE_TRACK_DEVICE: jt->pid = JSON_SYNTHETIC_ID + (int64_t)t->uuid; break;
  case TIMELINE_TRACK_LANE:
    jt->pid = track_of(j, t->lane_of)->pid;
    jt->tid = JSON_SYNTHETIC_ID + (int64_t)t->uuid;
    break;
  default:
    jt->pid = track_of(j, t->parent)->pid;
    jt->tid = JSON_SYNTHETIC_ID + (int64_t)t->uuid;
    break;
  }
  if (t->kind == TIMELINE_TRACK_COUNTER && !(jt->name = strdup(t->name)))
    return json_fail(j, "Cannot write the JSON timeline: out of memory");
  if (t->kind == TIMELINE_TRACK_HOST || t->kind == TIMELINE_TRACK_COUNTER)
    return 0;
  bool process = t->kind == TIMELINE_TRACK_PROCESS || t->kind == TIMELINE_TRACK_DEVICE;
  open_event(j, "M");
  fprintf(j->out, ",\"name\":\"%s\",\"pid\":%" PRId64, process ? "process_name" : "thread_name",
          jt->pid);
  if (!process)
    fprintf(j->out, ",\"tid\":%" PRId64, jt->tid);
  fputs(",\"args\":{\"name\":", j->out);
  json_string(j->out, t->name);
  fputs("}}", j->out);
  return 0;
}

static void json_args(FILE *f, const struct trace_arg *args, size_t count) {
  fputs(",\"args\":{", f);
  for (size_t i = 0; i < count; i++) {
    if (i)
      fputc(',', f);
    json_string(f, args[i].name);
    fputc(':', f);
    switch (args[i].kind) {
    case TRACE_ARG_INT: fprintf(f, "%" PRId64, args[i].v.i); break;
    case TRACE_ARG_UINT: fprintf(f, "%" PRIu64, args[i].v.u); break;
    case TRACE_ARG_DOUBLE: fprintf(f, "%.17g", args[i].v.d); break;
    case TRACE_ARG_STRING: json_string(f, args[i].v.s); break;
    case TRACE_ARG_POINTER: fprintf(f, "\"0x%" PRIx64 "\"", args[i].v.u); break;
    }
  }
  fputc('}', f);
}

static void where(struct chrome_json *j, const struct json_track *t, uint64_t ts) {
  fprintf(j->out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", t->pid, t->tid);
  json_us(j->out, ts);
}

static int on_slice(void *state, timeline_track track, const struct timeline_slice *s) {
  struct chrome_json *j = state;
  const struct json_track *t = track_of(j, track);
  open_event(j, "X");
  fputs(",\"name\":", j->out);
  json_string(j->out, s->name);
  if (s->category) {
    fputs(",\"cat\":", j->out);
    json_string(j->out, s->category);
  }
  where(j, t, s->start);
  fputs(",\"dur\":", j->out);
  json_us(j->out, s->end - s->start);
  json_args(j->out, s->args, s->arg_count);
  fputc('}', j->out);
  if (s->flow_out) {
    open_event(j, "s");
    fprintf(j->out, ",\"name\":\"launch\",\"cat\":\"flow\",\"id\":%" PRIu64, s->flow_out);
    where(j, t, s->start);
    fputc('}', j->out);
  }
  if (s->flow_in) {
    open_event(j, "f");
    fprintf(j->out, ",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"flow\",\"id\":%" PRIu64,
            s->flow_in);
    where(j, t, s->start);
    fputc('}', j->out);
  }
  return 0;
}

static int on_instant(void *state, timeline_track track, uint64_t ts, const char *name,
                      const struct trace_arg *args, size_t arg_count) {
  struct chrome_json *j = state;
  const struct json_track *t = track_of(j, track);
  open_event(j, "i");
  fputs(",\"s\":\"t\",\"name\":", j->out);
  json_string(j->out, name);
  where(j, t, ts);
  json_args(j->out, args, arg_count);
  fputc('}', j->out);
  return 0;
}

static int on_counter(void *state, timeline_track track, uint64_t ts, double value) {
  struct chrome_json *j = state;
  const struct json_track *t = track_of(j, track);
  open_event(j, "C");
  fputs(",\"name\":", j->out);
  json_string(j->out, t->name);
  fprintf(j->out, ",\"pid\":%" PRId64 ",\"ts\":", t->pid);
  json_us(j->out, ts);
  fprintf(j->out, ",\"args\":{\"value\":%.17g}}", value);
  return 0;
}

static void free_json(struct chrome_json *j) {
  for (size_t i = 0; i < j->track_count; i++)
    free(j->tracks[i].name);
  free(j->tracks);
  free(j->path);
  free(j);
}

static int on_close(void *state, struct timeline_stats *stats, char *error,
                    size_t error_size) {
  (void)stats;
  struct chrome_json *j = state;
  int rc = j->error[0] ? -1 : 0;
  if (j->out) {
    fputs("\n]}\n", j->out);
    if ((ferror(j->out) | fclose(j->out)) && rc == 0)
      rc = json_fail(j, "Cannot write the JSON timeline: file=%s", j->path);
  }
  if (error && error_size)
    snprintf(error, error_size, "%s", j->error);
  free_json(j);
  return rc;
}

static const char *on_error(const void *state) {
  return ((const struct chrome_json *)state)->error;
}

static const struct timeline_sink_ops chrome_json_ops = {
    .track = on_track,
    .slice = on_slice,
    .instant = on_instant,
    .counter = on_counter,
    .close = on_close,
    .error = on_error,
};

int chrome_json_sink_open(const char *path, struct timeline_sink *sink, struct diag *d) {
  struct chrome_json *j = calloc(1, sizeof *j);
  if (!j || !(j->path = strdup(path))) {
    free(j);
    return diag_error(d, "Cannot write the JSON timeline: out of memory");
  }
  j->out = fopen(path, "w");
  if (!j->out) {
    diag_error(d, "Cannot create the JSON timeline: file=%s, %s", path, strerror(errno));
    free_json(j);
    return -1;
  }
  setvbuf(j->out, NULL, _IOFBF, 1 << 20);
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", j->out);
  j->first = true;
  *sink = (struct timeline_sink){&chrome_json_ops, j};
  return 0;
}
