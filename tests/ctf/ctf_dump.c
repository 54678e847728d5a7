/* ctf_dump: prints every event of a trace through the project's CTF reader, in the
 * text format of `babeltrace2 --clock-cycles --no-delta TRACE` (C locale), so that the
 * two outputs can be compared line for line.
 *
 * Usage: ctf_dump [--summary] TRACE_PATH
 *   --summary  also prints, on stderr, events and packets read per stream.
 * Errors go to stderr; reading goes on with the other streams; the exit status is 1
 * when any error happened, 2 for a usage error. */
#include "ctf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Packet context fields babeltrace2 turns into packet properties and does not print. */
static const char *const hidden_packet_fields[] = {
    "timestamp_begin", "timestamp_end", "content_size", "packet_size",
    "packet_seq_num", "events_discarded",
};

static void print_escaped(FILE *out, const char *chars, size_t length) {
  fputc('"', out);
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)chars[i];
    switch (c) {
    case '\\': fputs("\\\\", out); continue;
    case '"': fputs("\\\"", out); continue;
    case '\'': fputs("\\'", out); continue;
    case '?': fputs("\\?", out); continue;
    case '\a': fputs("\\a", out); continue;
    case '\b': fputs("\\b", out); continue;
    case '\t': fputs("\\t", out); continue;
    case '\n': fputs("\\n", out); continue;
    case '\v': fputs("\\v", out); continue;
    case '\f': fputs("\\f", out); continue;
    case '\r': fputs("\\r", out); continue;
    case 27: fputs("\\e", out); continue;
    default: break;
    }
    if (c < 32 || c == 127)
      fprintf(out, "\\x%02x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

static const struct ctf_type *integer_of(const struct ctf_type *type) {
  return type->kind == CTF_TYPE_ENUM ? type->u.enumeration.container : type;
}

static void print_integer(FILE *out, const struct ctf_type *integer,
                          const struct ctf_value *value) {
  uint32_t size = integer->u.integer.size;
  uint64_t bits = size >= 64 ? value->u.u : value->u.u & ((UINT64_C(1) << size) - 1);
  switch (integer->u.integer.base) {
  case 16:
    fprintf(out, "0x%" PRIX64, bits);
    return;
  case 8:
    fprintf(out, "0%" PRIo64, bits);
    return;
  case 2:
    fputs("0b", out);
    for (uint32_t i = size; i-- > 0;)
      fputc(bits >> i & 1 ? '1' : '0', out);
    return;
  default:
    if (value->kind == CTF_VALUE_SIGNED)
      fprintf(out, "%" PRId64, value->u.s);
    else
      fprintf(out, "%" PRIu64, value->u.u);
  }
}

static void print_value(FILE *out, const struct ctf_value *value);

static void print_array(FILE *out, const struct ctf_value *value) {
  if (ctf_value_is_text(value)) {
    const char *chars;
    size_t length;
    ctf_value_text(value, &chars, &length);
    print_escaped(out, chars, length);
    return;
  }
  if (value->u.array.count == 0) {
    fputs("[ ]", out);
    return;
  }
  fputs("[ ", out);
  for (uint64_t i = 0; i < value->u.array.count; i++) {
    struct ctf_value element;
    fprintf(out, "%s[%" PRIu64 "] = ", i ? ", " : "", i);
    if (ctf_value_element(value, i, &element) == CTF_OK)
      print_value(out, &element);
    else
      fputs("<not decoded>", out);
  }
  fputs(" ]", out);
}

static void print_value(FILE *out, const struct ctf_value *value) {
  switch (value->kind) {
  case CTF_VALUE_SIGNED:
  case CTF_VALUE_UNSIGNED:
    if (value->type->kind == CTF_TYPE_ENUM) {
      const char *labels[16];
      size_t count = ctf_enum_labels(value->type, value, labels, 16);
      fputs("( ", out);
      if (count == 0)
        fputs("<unknown>", out);
      for (size_t i = 0; i < count && i < 16; i++)
        fprintf(out, "%s\"%s\"", i ? ", " : "", labels[i]);
      fputs(" : container = ", out);
      print_integer(out, integer_of(value->type), value);
      fputs(" )", out);
    } else {
      print_integer(out, value->type, value);
    }
    return;
  case CTF_VALUE_FLOAT:
    fprintf(out, "%g", value->u.f);
    return;
  case CTF_VALUE_STRING:
    print_escaped(out, value->u.string.chars, value->u.string.length);
    return;
  case CTF_VALUE_ARRAY:
    print_array(out, value);
    return;
  default:
    fputs("<not decoded>", out);
    return;
  }
}

static bool is_hidden_packet_field(const char *raw_name) {
  for (size_t i = 0; i < sizeof hidden_packet_fields / sizeof *hidden_packet_fields; i++)
    if (!strcmp(raw_name, hidden_packet_fields[i]))
      return true;
  return false;
}

/* "{ a = 1, b = 2 }" for a struct's values, after ", " unless it is the first section.
 * Packet contexts skip the fields babeltrace2 hides, and vanish when none is left. */
static void print_struct(FILE *out, const struct ctf_type *type,
                         const struct ctf_value *values, bool packet_context, bool *first) {
  size_t shown = 0;
  for (size_t i = 0; i < type->u.structure.field_count; i++) {
    const struct ctf_field *field = &type->u.structure.fields[i];
    if (packet_context && is_hidden_packet_field(field->raw_name))
      continue;
    fprintf(out, "%s%s = ", shown ? ", " : (*first ? "{ " : ", { "), field->name);
    print_value(out, &values[i]);
    shown++;
  }
  if (shown)
    fputs(" }", out);
  else if (!packet_context)
    fputs(*first ? "{ }" : ", { }", out);
  if (shown || !packet_context)
    *first = false;
}

/* babeltrace2's default trace fields: "host:procname:(vpid) ", each when the env has it
 * (per-PID LTTng traces have all three; per-UID ones only the host name). */
static void print_trace_fields(FILE *out, const struct ctf_subtrace *subtrace) {
  const char *hostname = ctf_subtrace_env_string(subtrace, "hostname");
  const char *procname = ctf_subtrace_env_string(subtrace, "procname");
  const struct ctf_env_entry *vpid = ctf_subtrace_env(subtrace, "vpid");
  bool printed = false;
  if (hostname) {
    fputs(hostname, out);
    printed = true;
  }
  if (procname) {
    fprintf(out, "%s%s", printed ? ":" : "", procname);
    printed = true;
  }
  if (vpid && !vpid->is_string) {
    fprintf(out, "%s(%" PRId64 ")", printed ? ":" : "", vpid->integer);
    printed = true;
  }
  if (printed)
    fputc(' ', out);
}

struct stream_summary {
  uint64_t events;
  uint64_t packets;        /* packets that held events */
  uint64_t last_packet;
};

int main(int argc, char **argv) {
  bool summary = false;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--summary"))
      summary = true;
    else if (argv[i][0] == '-' || path) {
      fprintf(stderr, "usage: ctf_dump [--summary] TRACE_PATH\n");
      return 2;
    } else
      path = argv[i];
  }
  if (!path) {
    fprintf(stderr, "usage: ctf_dump [--summary] TRACE_PATH\n");
    return 2;
  }
  static char buffer[1 << 20];
  setvbuf(stdout, buffer, _IOFBF, sizeof buffer);

  struct ctf_error error;
  struct ctf_trace *trace = NULL;
  if (ctf_trace_open(path, &trace, &error) != CTF_OK) {
    fprintf(stderr, "ctf_dump: %s\n", error.message);
    return 1;
  }
  struct ctf_merge *merge = NULL;
  if (ctf_merge_open(trace, NULL, 0, &merge, &error) != CTF_OK) {
    fprintf(stderr, "ctf_dump: %s\n", error.message);
    ctf_trace_close(trace);
    return 1;
  }
  size_t stream_count = ctf_trace_stream_count(trace);
  struct stream_summary *streams = calloc(stream_count + 1, sizeof *streams);
  size_t value_capacity = 16;
  struct ctf_value *values = malloc(value_capacity * sizeof *values);
  int exit_status = 0;
  if (!streams || !values) {
    fprintf(stderr, "ctf_dump: out of memory\n");
    return 1;
  }
  for (;;) {
    const struct ctf_event *event = NULL;
    enum ctf_status status = ctf_merge_next(merge, &event, &error);
    if (status == CTF_END)
      break;
    if (status != CTF_OK) {
      fflush(stdout);
      fprintf(stderr, "ctf_dump: %s\n", error.message);
      exit_status = 1;
      continue;
    }
    const struct ctf_event_class *event_class = event->event_class;
    const struct ctf_stream_class *stream_class = event_class->stream_class;
    struct stream_summary *seen = &streams[event->stream->index];
    if (!seen->events || seen->last_packet != event->packet->index)
      seen->packets++;
    seen->last_packet = event->packet->index;
    seen->events++;
    printf("[%020" PRIu64 "] ", event->timestamp);
    print_trace_fields(stdout, stream_class->subtrace);
    printf("%s: ", event_class->name);
    bool first = true;
    if (stream_class->packet_context)
      print_struct(stdout, stream_class->packet_context, event->packet->context, true, &first);
    if (stream_class->event_context)
      print_struct(stdout, stream_class->event_context, event->stream_context, false, &first);
    if (event_class->context)
      print_struct(stdout, event_class->context, event->context, false, &first);
    if (event_class->payload) {
      if (event_class->field_count > value_capacity) {
        value_capacity = event_class->field_count;
        struct ctf_value *bigger = realloc(values, value_capacity * sizeof *values);
        if (!bigger) {
          exit_status = 1;
          break;
        }
        values = bigger;
      }
      if (ctf_event_decode_payload(event, values, value_capacity, &error) != CTF_OK) {
        fputc('\n', stdout);
        fflush(stdout);
        fprintf(stderr, "ctf_dump: %s\n", error.message);
        exit_status = 1;
        continue;
      }
      print_struct(stdout, event_class->payload, values, false, &first);
    }
    fputc('\n', stdout);
  }
  fflush(stdout);
  if (summary && streams) {
    for (size_t i = 0; i < stream_count; i++)
      fprintf(stderr, "ctf_dump: stream %s: %" PRIu64 " events in %" PRIu64 " packets\n",
              ctf_trace_stream(trace, i)->path, streams[i].events, streams[i].packets);
  }
  fprintf(stderr, "ctf_dump: events discarded: %" PRIu64 "\n",
          ctf_merge_events_discarded(merge));
  free(values);
  free(streams);
  ctf_merge_close(merge);
  ctf_trace_close(trace);
  return exit_status;
}
