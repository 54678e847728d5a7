/* ctf_value.c: decoding payloads into values, and reading inside values (array
 * elements, text, enum labels). */
#include "ctf_internal.h"

#include <stdlib.h>
#include <string.h>

static const struct ctf_event_class_private *private_class(const struct ctf_event *event) {
  return event->event_class->internal;
}

enum ctf_status ctf_event_decode_payload(const struct ctf_event *event,
                                         struct ctf_value *values, size_t capacity,
                                         struct ctf_error *error) {
  const struct ctf_event_class_private *ec = private_class(event);
  const struct ctf_plan *plan = ec->payload_plan;
  if (!plan)
    return CTF_OK;
  if (capacity < plan->field_count)
    return ctf_fail(error, CTF_ERR_USAGE, "Cannot decode payload: event=%s: %zu values "
                                          "given for %zu fields",
                    ec->pub.name, capacity, plan->field_count);
  struct ctf_exec x = {
      .data = event->internal.packet_data, .position = event->internal.payload_bit,
      .end = event->internal.end_bit, .registers = event->internal.registers,
      .values = values, .persist = event->internal.persist};
  if (ctf_exec_run(plan, 0, plan->op_count, &x) != CTF_OK)
    return ctf_fail(error, CTF_ERR_DATA, "Cannot decode payload: file=%s, event=%s, "
                                         "offset=%llu: %s",
                    event->stream->path, ec->pub.name,
                    (unsigned long long)(event->packet->offset + x.position / 8), x.failure);
  return CTF_OK;
}

enum ctf_status ctf_event_decode_field(const struct ctf_event *event, size_t field_index,
                                       struct ctf_value *value, struct ctf_error *error) {
  const struct ctf_event_class_private *ec = private_class(event);
  const struct ctf_plan *plan = ec->payload_plan;
  if (!plan || field_index >= plan->field_count)
    return ctf_fail(error, CTF_ERR_USAGE, "Cannot decode field: event=%s, field=%zu: no "
                                          "such field", ec->pub.name, field_index);
  const struct ctf_type *type = ec->pub.fields[field_index].type;
  int64_t offset = plan->field_offsets[field_index];
  if (offset >= 0 && (type->kind == CTF_TYPE_INTEGER || type->kind == CTF_TYPE_ENUM ||
                      type->kind == CTF_TYPE_FLOAT)) {
    /* The cursor checked that the whole payload lies inside the packet. */
    ctf_exec_read_scalar(type, event->internal.packet_data,
                         event->internal.payload_bit + (uint64_t)offset, value);
    return CTF_OK;
  }
  const struct ctf_type *element = type->kind == CTF_TYPE_ARRAY ? type->u.array.element : NULL;
  if (offset >= 0 && element &&
      (element->kind == CTF_TYPE_INTEGER || element->kind == CTF_TYPE_ENUM ||
       element->kind == CTF_TYPE_FLOAT) &&
      element->size > 0 && element->alignment && element->size % element->alignment == 0) {
    /* A fixed-length array of scalars at a fixed place (a call's record): no need to run
     * the payload's plan. Its elements follow each other unpadded. */
    uint64_t bit = event->internal.payload_bit + (uint64_t)offset;
    value->kind = CTF_VALUE_ARRAY;
    value->type = type;
    value->u.array.data = event->internal.packet_data + (bit >> 3);
    value->u.array.bit = (uint32_t)(bit & 7);
    value->u.array.count = type->u.array.length;
    value->u.array.element = element;
    value->u.array.stride = (uint64_t)element->size;
    value->u.array.end = event->internal.packet_data + (event->internal.end_bit >> 3);
    return CTF_OK;
  }
  enum { ON_STACK = 64 };
  struct ctf_value stack_values[ON_STACK];
  struct ctf_value *values = stack_values;
  if (plan->field_count > ON_STACK) {
    values = calloc(plan->field_count, sizeof *values);
    if (!values)
      return ctf_fail(error, CTF_ERR_NO_MEMORY, "Cannot decode field: out of memory");
  }
  enum ctf_status status = ctf_event_decode_payload(event, values, plan->field_count, error);
  if (status == CTF_OK)
    *value = values[field_index];
  if (values != stack_values)
    free(values);
  return status;
}

bool ctf_event_class_fixed_u64s(const struct ctf_event_class *event_class, size_t field,
                                struct ctf_fixed_u64s *at) {
  const struct ctf_event_class_private *ec = event_class->internal;
  const struct ctf_plan *plan = ec ? ec->payload_plan : NULL;
  if (!plan || field >= plan->field_count || plan->field_offsets[field] < 0 ||
      plan->field_offsets[field] % 8)
    return false;
  const struct ctf_type *type = event_class->fields[field].type;
  const struct ctf_type *element = type->kind == CTF_TYPE_ARRAY ? type->u.array.element : NULL;
  const struct ctf_type *integer =
      element && element->kind == CTF_TYPE_ENUM ? element->u.enumeration.container : element;
  const enum ctf_byte_order host =
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? CTF_BYTE_ORDER_LE : CTF_BYTE_ORDER_BE;
  if (!integer || integer->kind != CTF_TYPE_INTEGER || integer->u.integer.size != 64 ||
      integer->u.integer.byte_order != host || element->size != 64)
    return false;
  at->byte_offset = (uint64_t)plan->field_offsets[field] / 8;
  at->count = type->u.array.length;
  return true;
}

enum ctf_status ctf_value_element(const struct ctf_value *array, uint64_t index,
                                  struct ctf_value *element) {
  if (array->kind != CTF_VALUE_ARRAY || index >= array->u.array.count)
    return CTF_ERR_USAGE;
  const struct ctf_type *type = array->u.array.element;
  if (array->u.array.stride &&
      (type->kind == CTF_TYPE_INTEGER || type->kind == CTF_TYPE_ENUM ||
       type->kind == CTF_TYPE_FLOAT)) {
    ctf_exec_read_scalar(type, array->u.array.data,
                         array->u.array.bit + index * array->u.array.stride, element);
    return CTF_OK;
  }
  if (type->kind == CTF_TYPE_STRING && array->u.array.bit == 0) {
    /* Strings vary in size: walk to the index-th one. Decoding already checked that
     * every one is terminated inside the data. */
    const uint8_t *at = array->u.array.data;
    const uint8_t *end = array->u.array.end;
    for (uint64_t i = 0;; i++) {
      const uint8_t *nul = memchr(at, 0, (size_t)(end - at));
      if (!nul)
        return CTF_ERR_DATA;
      if (i == index) {
        element->kind = CTF_VALUE_STRING;
        element->type = type;
        element->u.string.chars = (const char *)at;
        element->u.string.length = (size_t)(nul - at);
        return CTF_OK;
      }
      at = nul + 1;
    }
  }
  return CTF_ERR_UNSUPPORTED;
}

size_t ctf_value_u64s(const struct ctf_value *array, uint64_t *out, size_t max) {
  if (array->kind != CTF_VALUE_ARRAY)
    return 0;
  const struct ctf_type *type = array->u.array.element;
  if (type->kind != CTF_TYPE_INTEGER && type->kind != CTF_TYPE_ENUM)
    return 0;
  const struct ctf_type *integer = type->kind == CTF_TYPE_ENUM ? type->u.enumeration.container
                                                               : type;
  size_t n = array->u.array.count < max ? (size_t)array->u.array.count : max;
  const enum ctf_byte_order host =
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? CTF_BYTE_ORDER_LE : CTF_BYTE_ORDER_BE;
  if (integer->u.integer.size == 64 && array->u.array.stride == 64 && array->u.array.bit == 0 &&
      integer->u.integer.byte_order == host) {
    memcpy(out, array->u.array.data, n * sizeof *out); /* decoding checked the bounds */
    return n;
  }
  struct ctf_value element;
  for (size_t i = 0; i < n; i++) {
    if (ctf_value_element(array, i, &element) != CTF_OK ||
        (element.kind != CTF_VALUE_SIGNED && element.kind != CTF_VALUE_UNSIGNED))
      return 0;
    out[i] = element.kind == CTF_VALUE_SIGNED ? (uint64_t)element.u.s : element.u.u;
  }
  return n;
}

bool ctf_value_is_text(const struct ctf_value *array) {
  if (array->kind != CTF_VALUE_ARRAY)
    return false;
  const struct ctf_type *element = array->u.array.element;
  return element->kind == CTF_TYPE_INTEGER && element->u.integer.size == 8 &&
         element->u.integer.encoding != CTF_ENCODING_NONE && array->u.array.stride == 8 &&
         array->u.array.bit == 0;
}

void ctf_value_text(const struct ctf_value *array, const char **chars, size_t *length) {
  if (!ctf_value_is_text(array)) {
    *chars = "";
    *length = 0;
    return;
  }
  *chars = (const char *)array->u.array.data;
  const void *nul = memchr(array->u.array.data, 0, (size_t)array->u.array.count);
  *length = nul ? (size_t)((const uint8_t *)nul - array->u.array.data)
                : (size_t)array->u.array.count;
}

size_t ctf_enum_labels(const struct ctf_type *enum_type, const struct ctf_value *value,
                       const char **labels, size_t capacity) {
  if (enum_type->kind != CTF_TYPE_ENUM)
    return 0;
  bool is_signed = enum_type->u.enumeration.container->u.integer.is_signed;
  uint64_t v = value->u.u;
  size_t found = 0;
  for (size_t i = 0; i < enum_type->u.enumeration.mapping_count; i++) {
    const struct ctf_enum_mapping *m = &enum_type->u.enumeration.mappings[i];
    bool inside = is_signed ? (int64_t)m->lower <= (int64_t)v && (int64_t)v <= (int64_t)m->upper
                            : m->lower <= v && v <= m->upper;
    if (!inside)
      continue;
    /* A label may map several ranges: report it once. */
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) {
      const struct ctf_enum_mapping *earlier = &enum_type->u.enumeration.mappings[j];
      bool earlier_inside = is_signed ? (int64_t)earlier->lower <= (int64_t)v &&
                                            (int64_t)v <= (int64_t)earlier->upper
                                      : earlier->lower <= v && v <= earlier->upper;
      seen = earlier_inside && !strcmp(earlier->label, m->label);
    }
    if (seen)
      continue;
    if (found < capacity)
      labels[found] = m->label;
    found++;
  }
  return found;
}
