/* ctf_walk: every event of a trace through every decoding entry point of cli/ctf/ctf.h. */
#include "ctf_walk.h"

#include <stdlib.h>

static void walk_value(const struct ctf_value *v) {
  const char *labels[4];
  switch (v->kind) {
  case CTF_VALUE_SIGNED:
  case CTF_VALUE_UNSIGNED:
    if (v->type && v->type->kind == CTF_TYPE_ENUM)
      ctf_enum_labels(v->type, v, labels, 4);
    break;
  case CTF_VALUE_ARRAY:
    if (ctf_value_is_text(v)) {
      const char *chars;
      size_t length;
      ctf_value_text(v, &chars, &length);
    }
    for (uint64_t i = 0; i < v->u.array.count && i < 64; i++) {
      struct ctf_value element;
      if (ctf_value_element(v, i, &element) == CTF_OK)
        walk_value(&element);
    }
    break;
  default:
    break;
  }
}

static void walk_event(const struct ctf_event *event, struct ctf_value **values,
                       size_t *capacity, int vtid_key) {
  struct ctf_error error;
  const struct ctf_event_class *ec = event->event_class;
  int64_t vtid;
  ctf_event_context_int(event, vtid_key, &vtid);
  if (ec->field_count > *capacity) {
    free(*values);
    *capacity = ec->field_count;
    *values = calloc(*capacity, sizeof **values);
    if (!*values)
      abort();
  }
  if (ctf_event_decode_payload(event, *values, *capacity, &error) == CTF_OK)
    for (size_t i = 0; i < ec->field_count; i++)
      walk_value(&(*values)[i]);
  for (size_t i = ec->field_count; i-- > 0;) {
    struct ctf_value value;
    if (ctf_event_decode_field(event, i, &value, &error) == CTF_OK)
      walk_value(&value);
  }
}

void ctf_walk_trace(const struct ctf_trace *trace) {
  struct ctf_value *values = NULL;
  size_t capacity = 0;
  int vtid_key = ctf_trace_context_key(trace, "vtid");
  struct ctf_error error;
  for (size_t s = 0; s < ctf_trace_stream_count(trace); s++) {
    struct ctf_cursor *cursor;
    if (ctf_cursor_open(trace, s, &cursor, &error) != CTF_OK)
      continue;
    const struct ctf_event *event;
    for (unsigned n = 0; n < CTF_WALK_MAX_EVENTS; n++) {
      enum ctf_status status = ctf_cursor_next(cursor, &event, &error);
      if (status == CTF_OK) {
        walk_event(event, &values, &capacity, vtid_key);
        ctf_cursor_packet(cursor);
      } else if (status == CTF_END || ctf_cursor_failed(cursor)) {
        break;
      } /* else a damaged event: the cursor goes on with the next packet */
    }
    ctf_cursor_events_discarded(cursor);
    ctf_cursor_close(cursor);
  }
  struct ctf_merge *merge;
  if (ctf_merge_open(trace, NULL, 0, &merge, &error) == CTF_OK) {
    const struct ctf_event *event;
    enum ctf_status status;
    unsigned n = 0;
    /* A failing stream's error comes once, then the merge goes on with the others. */
    while (n++ < CTF_WALK_MAX_EVENTS &&
           (status = ctf_merge_next(merge, &event, &error)) != CTF_END)
      if (status == CTF_OK)
        walk_event(event, &values, &capacity, vtid_key);
    ctf_merge_events_discarded(merge);
    ctf_merge_close(merge);
  }
  free(values);
}
