/* timeline_json: the same timeline as Chrome trace-event JSON (--timeline-format json):
 * "X" events for slices, "C" for counters, "s"/"f" for flows, "M" for names. Devices
 * and lanes get made-up pids and tids (from 1000000000), since JSON has no other
 * tracks. Written as it comes, never split. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "timeline_internal.h"

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

static void open_event(struct timeline *tl, const char *ph) {
  fputs(tl->json_first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"", tl->json);
  tl->json_first = false;
  fputs(ph, tl->json);
  fputc('"', tl->json);
}

int json_open(struct timeline *tl) {
  tl->json = fopen(tl->options.json_path, "w");
  if (!tl->json)
    return timeline_fail(tl, "Cannot create the JSON timeline: file=%s, %s",
                         tl->options.json_path, strerror(errno));
  setvbuf(tl->json, NULL, _IOFBF, 1 << 20);
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", tl->json);
  tl->json_first = true;
  return 0;
}

int json_close(struct timeline *tl) {
  fputs("\n]}\n", tl->json);
  int rc = ferror(tl->json) | fclose(tl->json);
  tl->json = NULL;
  return rc ? timeline_fail(tl, "Cannot write the JSON timeline: file=%s",
                            tl->options.json_path)
            : 0;
}

void json_track(struct timeline *tl, const struct track *t) {
  if (!tl->json || t->kind == TRACK_HOST || t->kind == TRACK_COUNTER_KIND)
    return;
  bool process = t->kind == TRACK_PROCESS_KIND || t->kind == TRACK_DEVICE;
  open_event(tl, "M");
  fprintf(tl->json, ",\"name\":\"%s\",\"pid\":%" PRId64, process ? "process_name" : "thread_name",
          t->json_pid);
  if (!process)
    fprintf(tl->json, ",\"tid\":%" PRId64, t->json_tid);
  fputs(",\"args\":{\"name\":", tl->json);
  json_string(tl->json, t->name);
  fputs("}}", tl->json);
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

static void where(struct timeline *tl, const struct track *t, uint64_t ts) {
  fprintf(tl->json, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", t->json_pid,
          t->json_tid);
  json_us(tl->json, ts);
}

void json_slice(struct timeline *tl, const struct track *t, const struct timeline_slice *s) {
  if (!tl->json)
    return;
  open_event(tl, "X");
  fputs(",\"name\":", tl->json);
  json_string(tl->json, s->name);
  if (s->category) {
    fputs(",\"cat\":", tl->json);
    json_string(tl->json, s->category);
  }
  where(tl, t, s->start);
  fputs(",\"dur\":", tl->json);
  json_us(tl->json, s->end - s->start);
  json_args(tl->json, s->args, s->arg_count);
  fputc('}', tl->json);
  if (s->flow_out) {
    open_event(tl, "s");
    fprintf(tl->json, ",\"name\":\"launch\",\"cat\":\"flow\",\"id\":%" PRIu64, s->flow_out);
    where(tl, t, s->start);
    fputc('}', tl->json);
  }
  if (s->flow_in) {
    open_event(tl, "f");
    fprintf(tl->json, ",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"flow\",\"id\":%" PRIu64,
            s->flow_in);
    where(tl, t, s->start);
    fputc('}', tl->json);
  }
}

void json_instant(struct timeline *tl, const struct track *t, uint64_t ts, const char *name,
                  const struct trace_arg *args, size_t arg_count) {
  if (!tl->json)
    return;
  open_event(tl, "i");
  fputs(",\"s\":\"t\",\"name\":", tl->json);
  json_string(tl->json, name);
  where(tl, t, ts);
  json_args(tl->json, args, arg_count);
  fputc('}', tl->json);
}

void json_counter(struct timeline *tl, const struct track *t, uint64_t ts, double value) {
  if (!tl->json)
    return;
  open_event(tl, "C");
  fputs(",\"name\":", tl->json);
  json_string(tl->json, t->name);
  fprintf(tl->json, ",\"pid\":%" PRId64 ",\"ts\":", t->json_pid);
  json_us(tl->json, ts);
  fprintf(tl->json, ",\"args\":{\"value\":%.17g}}", value);
}
