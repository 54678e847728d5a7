/* fuzz_ctf_metadata: the CTF reader's metadata parser (cli/ctf/ctf_metadata_file.c, the TSDL
 * lexer and parser, the plan compiler) on any bytes, written as `metadata` in a folder
 * with no stream, then opened with ctf_trace_open() and its classes walked.
 * Seeds: corpus/ctf_metadata/ (real LTTng metadata, packetized and as text). */
#include "fuzz_util.h"

#include "ctf.h"

static void walk_type(const struct ctf_type *type, int depth) {
  if (!type || depth > 64)
    return;
  switch (type->kind) {
  case CTF_TYPE_STRUCT:
    for (size_t i = 0; i < type->u.structure.field_count; i++)
      walk_type(type->u.structure.fields[i].type, depth + 1);
    break;
  case CTF_TYPE_VARIANT:
    for (size_t i = 0; i < type->u.variant.option_count; i++)
      walk_type(type->u.variant.options[i].type, depth + 1);
    break;
  case CTF_TYPE_ARRAY:
    walk_type(type->u.array.element, depth + 1);
    break;
  case CTF_TYPE_SEQUENCE:
    walk_type(type->u.sequence.element, depth + 1);
    break;
  case CTF_TYPE_ENUM:
    walk_type(type->u.enumeration.container, depth + 1);
    break;
  default:
    break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *dir = fuzz_util_dir();
  fuzz_util_write(dir, "metadata", data, size);
  struct ctf_trace *trace = NULL;
  struct ctf_error error;
  if (ctf_trace_open(dir, &trace, &error) != CTF_OK)
    return 0;
  for (size_t i = 0; i < ctf_trace_subtrace_count(trace); i++) {
    const struct ctf_subtrace *sub = ctf_trace_subtrace(trace, i);
    walk_type(sub->packet_header, 0);
    for (size_t k = 0; k < sub->stream_class_count; k++) {
      const struct ctf_stream_class *sc = sub->stream_classes[k];
      walk_type(sc->packet_context, 0);
      walk_type(sc->event_header, 0);
      walk_type(sc->event_context, 0);
      if (sc->clock)
        ctf_clock_to_ns(sc->clock, 12345);
    }
    ctf_subtrace_env_string(sub, "hostname");
  }
  for (size_t i = 0; i < ctf_trace_event_class_count(trace); i++) {
    const struct ctf_event_class *ec = ctf_trace_event_class(trace, i);
    walk_type(ec->context, 0);
    walk_type(ec->payload, 0);
    ctf_event_class_field_index(ec, "vtid");
  }
  ctf_trace_context_key(trace, "vtid");
  ctf_trace_env_string(trace, "hostname");
  ctf_trace_close(trace);
  return 0;
}
