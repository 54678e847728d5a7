/* full_fields: see full_fields.h. */
#include "full_fields.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "ir_copy.h"
#include "record_fields.h"

static const struct tracer_field_format *format_of(const struct tracer_function_desc *f,
                                                   const char *name) {
  size_t len = strlen(name);
  if (len > 4 && strcmp(name + len - 4, "_out") == 0)
    len -= 4;
  return backends_field_format(f, name, len);
}

static bool is_integer(const bt_field_class *fc) {
  return bt_field_class_type_is(bt_field_class_get_type(fc), BT_FIELD_CLASS_TYPE_INTEGER);
}

static bool is_array(const bt_field_class *fc) {
  return bt_field_class_type_is(bt_field_class_get_type(fc), BT_FIELD_CLASS_TYPE_ARRAY);
}

/* The bytes of structs: an array of 8-bit integers. */
static bool is_byte_array(const bt_field_class *fc) {
  if (!is_array(fc))
    return false;
  const bt_field_class *element = bt_field_class_array_borrow_element_field_class_const(fc);
  return is_integer(element) && bt_field_class_integer_get_field_value_range(element) == 8;
}

static bt_field_class *member_class(bt_trace_class *tc, const struct tracer_record_member *m) {
  unsigned bits = m->bit_width >= 0 ? (unsigned)m->bit_width : 8u * m->size;
  bool is_signed = m->kind == TRACER_MEMBER_SIGNED;
  bt_field_class *fc;
  switch (m->kind) {
  case TRACER_MEMBER_FLOAT:
    return m->size == 4 ? bt_field_class_real_single_precision_create(tc)
                        : bt_field_class_real_double_precision_create(tc);
  case TRACER_MEMBER_POINTER:
    if ((fc = bt_field_class_integer_unsigned_create(tc)))
      bt_field_class_integer_set_preferred_display_base(
          fc, BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
    return fc;
  default:
    if (m->names && m->names->count)
      return record_fields_enumeration(tc, is_signed, bits, m->names);
    fc = is_signed ? bt_field_class_integer_signed_create(tc)
                   : bt_field_class_integer_unsigned_create(tc);
    if (fc)
      bt_field_class_integer_set_field_value_range(fc, bits);
    return fc;
  }
}

/* An array of structures laid out as r says, as many as the bytes hold. */
static bt_field_class *struct_array_class(bt_trace_class *tc, const struct tracer_record *r) {
  bt_field_class *element = bt_field_class_structure_create(tc);
  for (uint32_t i = 0; element && i < r->count; i++) {
    const struct tracer_record_member *m = &r->members[i];
    if (bt_field_class_structure_borrow_member_by_name(element, m->name))
      continue; /* a name twice (members of anonymous unions): the first shown */
    bt_field_class *member = member_class(tc, m);
    int rc = !member || bt_field_class_structure_append_member(element, m->name, member);
    bt_field_class_put_ref(member);
    if (rc) {
      bt_field_class_put_ref(element);
      return NULL;
    }
  }
  if (!element)
    return NULL;
  bt_field_class *array = bt_field_class_array_dynamic_create(tc, element, NULL);
  bt_field_class_put_ref(element);
  return array;
}

/* The integer class in (or the element class of an array in) as an enumeration. */
static bt_field_class *named_class(bt_trace_class *tc, const bt_field_class *in,
                                   const struct tracer_names *names) {
  if (is_array(in)) {
    bt_field_class *element =
        named_class(tc, bt_field_class_array_borrow_element_field_class_const(in), names);
    if (!element)
      return NULL;
    bt_field_class *array = bt_field_class_get_type(in) == BT_FIELD_CLASS_TYPE_STATIC_ARRAY
                                ? bt_field_class_array_static_create(
                                      tc, element, bt_field_class_array_static_get_length(in))
                                : bt_field_class_array_dynamic_create(tc, element, NULL);
    bt_field_class_put_ref(element);
    return array;
  }
  return record_fields_enumeration(
      tc, bt_field_class_type_is(bt_field_class_get_type(in), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER),
      (unsigned)bt_field_class_integer_get_field_value_range(in), names);
}

static bool is_named_integers(const bt_field_class *in) {
  const bt_field_class *element =
      is_array(in) ? bt_field_class_array_borrow_element_field_class_const(in) : in;
  return is_integer(element) &&
         !bt_field_class_type_is(bt_field_class_get_type(element), BT_FIELD_CLASS_TYPE_ENUMERATION);
}

int full_fields_class(bt_trace_class *tc, const struct tracer_function_desc *f, const char *name,
                      const bt_field_class *in, bt_field_class **out) {
  const struct tracer_field_format *format = format_of(f, name);
  *out = NULL;
  if (format && format->record && format->record->size && is_byte_array(in))
    *out = struct_array_class(tc, format->record);
  else if (format && format->names && format->names->count && is_named_integers(in))
    *out = named_class(tc, in, format->names);
  else
    return ir_copy_field_class(tc, in, out);
  return *out ? 0 : -1;
}

/* One member's value from the struct's bytes (x86-64: little-endian), as print_record()
 * of `tracer -t` reads it. */
static void set_member(bt_field *field, const struct tracer_record_member *m,
                       const uint8_t *bytes) {
  uint64_t raw = 0;
  unsigned bits = m->bit_width >= 0 ? (unsigned)m->bit_width : 8u * m->size;
  if (m->bit_width >= 0) {
    for (int32_t b = 0; b < m->bit_width; b++) {
      int32_t bit = m->bit_offset + b;
      raw |= (uint64_t)((bytes[bit / 8] >> (bit % 8)) & 1) << b;
    }
  } else {
    for (uint32_t i = 0; i < m->size; i++)
      raw |= (uint64_t)bytes[m->offset + i] << (8 * i);
  }
  switch (m->kind) {
  case TRACER_MEMBER_SIGNED:
    if (bits < 64 && (raw >> (bits - 1)) & 1)
      raw |= ~UINT64_C(0) << bits;
    bt_field_integer_signed_set_value(field, (int64_t)raw);
    break;
  case TRACER_MEMBER_UNSIGNED:
  case TRACER_MEMBER_POINTER: bt_field_integer_unsigned_set_value(field, raw); break;
  case TRACER_MEMBER_FLOAT:
    if (m->size == 4) {
      float value;
      uint32_t u = (uint32_t)raw;
      memcpy(&value, &u, sizeof value);
      bt_field_real_single_precision_set_value(field, value);
    } else {
      double value;
      memcpy(&value, &raw, sizeof value);
      bt_field_real_double_precision_set_value(field, value);
    }
    break;
  }
}

int full_fields_set(const struct tracer_function_desc *f, const char *name, const bt_field *in,
                    bt_field *out) {
  const bt_field_class *out_class = bt_field_borrow_class_const(out);
  bool structs =
      is_array(out_class) &&
      bt_field_class_get_type(bt_field_class_array_borrow_element_field_class_const(out_class)) ==
          BT_FIELD_CLASS_TYPE_STRUCTURE &&
      is_byte_array(bt_field_borrow_class_const(in));
  if (!structs) /* copied, or integers become enumerations: set alike */
    return ir_copy_field(in, out);
  const struct tracer_record *r = format_of(f, name)->record;
  uint64_t length = bt_field_array_get_length(in), n = length / r->size;
  uint8_t *bytes = malloc(length ? length : 1);
  if (!bytes || bt_field_array_dynamic_set_length(out, n)) {
    free(bytes);
    return -1;
  }
  for (uint64_t i = 0; i < length; i++)
    bytes[i] = (uint8_t)bt_field_integer_unsigned_get_value(
        bt_field_array_borrow_element_field_by_index_const(in, i));
  for (uint64_t i = 0; i < n; i++) {
    bt_field *element = bt_field_array_borrow_element_field_by_index(out, i);
    const bt_field_class *element_class = bt_field_borrow_class_const(element);
    uint64_t members = bt_field_class_structure_get_member_count(element_class);
    for (uint32_t k = 0, shown = 0; k < r->count && shown < members; k++) {
      const bt_field_class_structure_member *m =
          bt_field_class_structure_borrow_member_by_index_const(element_class, shown);
      if (strcmp(bt_field_class_structure_member_get_name(m), r->members[k].name) != 0)
        continue; /* a name the class shows once, for its first member */
      set_member(bt_field_structure_borrow_member_field_by_index(element, shown++), &r->members[k],
                 bytes + i * r->size);
    }
  }
  free(bytes);
  return 0;
}
