/* batch_calls: see batch_calls.h. */
#include "batch_calls.h"

#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "record_fields.h"

const struct tracer_backend_desc *batch_calls_backend(const bt_event_class *ec) {
  const char *name = bt_event_class_get_name(ec), *colon = name ? strchr(name, ':') : NULL;
  const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
  if (!colon || strcmp(colon, ":call") != 0 || !payload ||
      bt_field_class_get_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE)
    return NULL;
  const bt_field_class_structure_member *calls =
      bt_field_class_structure_borrow_member_by_name_const(payload, "calls");
  const bt_field_class *fc =
      calls ? bt_field_class_structure_member_borrow_field_class_const(calls) : NULL;
  if (!fc || !bt_field_class_type_is(bt_field_class_get_type(fc), BT_FIELD_CLASS_TYPE_ARRAY) ||
      !bt_field_class_type_is(
          bt_field_class_get_type(bt_field_class_array_borrow_element_field_class_const(fc)),
          BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
    return NULL;
  return backends_find_provider(name, (size_t)(colon - name));
}

size_t batch_calls_read(const bt_field *payload, uint64_t (*heads)[TRACER_RECORD_HEAD],
                        size_t max) {
  const bt_field *calls = bt_field_structure_borrow_member_field_by_name_const(payload, "calls");
  uint64_t length = calls ? bt_field_array_get_length(calls) : 0;
  if (length < 1 + TRACER_BATCH_CALL_SLOTS)
    return 0;
  uint64_t ids = bt_field_integer_unsigned_get_value(
      bt_field_array_borrow_element_field_by_index_const(calls, 0));
  size_t n = (size_t)((length - 1) / TRACER_BATCH_CALL_SLOTS);
  if (n > max)
    n = max;
  for (size_t i = 0; i < n; i++) {
    uint64_t r[TRACER_BATCH_CALL_SLOTS];
    for (int k = 0; k < TRACER_BATCH_CALL_SLOTS; k++)
      r[k] = bt_field_integer_unsigned_get_value(bt_field_array_borrow_element_field_by_index_const(
          calls, 1 + (uint64_t)i * TRACER_BATCH_CALL_SLOTS + (uint64_t)k));
    heads[i][TRACER_RECORD_START] = r[0];
    heads[i][TRACER_RECORD_END] = r[1];
    heads[i][TRACER_RECORD_IDS] = ids;
    heads[i][TRACER_RECORD_CALL] = r[2];
  }
  return n;
}

bt_event_class *batch_calls_event_class(bt_stream_class *sc, uint64_t id,
                                        const struct tracer_backend_desc *b,
                                        const struct tracer_function_desc *f) {
  bt_trace_class *tc = bt_stream_class_borrow_trace_class(sc);
  bt_event_class *ec = bt_event_class_create_with_id(sc, id);
  bt_field_class *payload = ec ? bt_field_class_structure_create(tc) : NULL;
  char name[512];
  snprintf(name, sizeof name, "%s:%s", b->provider, f->name);
  int rc = !payload || bt_event_class_set_name(ec, name) ||
           record_fields_append_classes(tc, payload, f, TRACER_RECORD_HEAD) < 0 ||
           bt_event_class_set_payload_field_class(ec, payload);
  bt_field_class_put_ref(payload);
  /* The stream class holds the event class whatever happens. */
  bt_event_class_put_ref(ec);
  return rc ? NULL : ec;
}
