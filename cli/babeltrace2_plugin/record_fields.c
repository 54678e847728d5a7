/* record_fields: see record_fields.h. */
#include "record_fields.h"

#include <string.h>

#include "backends.h"
#include "tracer_record.h"

/* The head's fields, before the slots. */
static const char *const head_names[] = {"start", "end", "pid", "tid", "depth"};
enum { HEAD_FIELDS = sizeof head_names / sizeof head_names[0] };

static const struct tracer_names *names_of(const struct tracer_function_desc *f,
                                           const struct tracer_slot *slot) {
  if (slot->kind != TRACER_SLOT_SIGNED && slot->kind != TRACER_SLOT_UNSIGNED)
    return NULL;
  const struct tracer_field_format *format =
      backends_field_format(f, slot->name, strlen(slot->name));
  return format && format->names && format->names->count ? format->names : NULL;
}

/* Whether names holds label before entry i (a mapping's label must be unique). */
static bool label_seen(const struct tracer_names *names, uint32_t i) {
  for (uint32_t j = 0; j < i; j++)
    if (strcmp(names->values[j].name, names->values[i].name) == 0)
      return true;
  return false;
}

bt_field_class *record_fields_enumeration(bt_trace_class *tc, bool is_signed, unsigned bits,
                                          const struct tracer_names *names) {
  bt_field_class *fc = is_signed ? bt_field_class_enumeration_signed_create(tc)
                                 : bt_field_class_enumeration_unsigned_create(tc);
  if (!fc)
    return NULL;
  bt_field_class_integer_set_field_value_range(fc, bits);
  uint64_t mask = bits < 64 ? (UINT64_C(1) << bits) - 1 : UINT64_MAX;
  for (uint32_t i = 0; i < names->count; i++) {
    const struct tracer_value_name *v = &names->values[i];
    if (label_seen(names, i))
      continue;
    int rc;
    if (is_signed) {
      bt_integer_range_set_signed *ranges = bt_integer_range_set_signed_create();
      rc = !ranges || bt_integer_range_set_signed_add_range(ranges, v->value, v->value) ||
           bt_field_class_enumeration_signed_add_mapping(fc, v->name, ranges);
      bt_integer_range_set_signed_put_ref(ranges);
    } else {
      uint64_t u = (uint64_t)v->value & mask;
      bt_integer_range_set_unsigned *ranges = bt_integer_range_set_unsigned_create();
      rc = !ranges || bt_integer_range_set_unsigned_add_range(ranges, u, u) ||
           bt_field_class_enumeration_unsigned_add_mapping(fc, v->name, ranges);
      bt_integer_range_set_unsigned_put_ref(ranges);
    }
    if (rc) {
      bt_field_class_put_ref(fc);
      return NULL;
    }
  }
  return fc;
}

static bt_field_class *integer_class(bt_trace_class *tc, bool is_signed, unsigned bits, bool hex) {
  bt_field_class *fc = is_signed ? bt_field_class_integer_signed_create(tc)
                                 : bt_field_class_integer_unsigned_create(tc);
  if (!fc)
    return NULL;
  bt_field_class_integer_set_field_value_range(fc, bits);
  if (hex)
    bt_field_class_integer_set_preferred_display_base(
        fc, BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
  return fc;
}

static bt_field_class *slot_class(bt_trace_class *tc, const struct tracer_function_desc *f,
                                  const struct tracer_slot *slot) {
  const struct tracer_names *names = names_of(f, slot);
  bt_field_class *fc;
  switch (slot->kind) {
  case TRACER_SLOT_FLOAT: fc = bt_field_class_real_single_precision_create(tc); break;
  case TRACER_SLOT_DOUBLE: fc = bt_field_class_real_double_precision_create(tc); break;
  case TRACER_SLOT_ADDRESS: fc = integer_class(tc, false, 64, true); break;
  default:
    fc = names ? record_fields_enumeration(tc, slot->kind == TRACER_SLOT_SIGNED, 8u * slot->size,
                                           names)
               : integer_class(tc, slot->kind == TRACER_SLOT_SIGNED, 8u * slot->size, false);
    break;
  }
  if (fc && slot->present_if >= 0) {
    /* An out value: absent when the app passed NULL for its pointer. */
    bt_field_class *option = bt_field_class_option_without_selector_create(tc, fc);
    bt_field_class_put_ref(fc);
    fc = option;
  }
  return fc;
}

static bool slot_shown(const struct tracer_slot *slot, int at_exit, uint64_t record_length) {
  return slot->name && slot->at_exit == at_exit && slot->index < record_length;
}

static int append(bt_field_class *payload, const char *name, bt_field_class *fc) {
  if (!fc)
    return -1;
  int rc = bt_field_class_structure_append_member(payload, name, fc) ? -1 : 0;
  bt_field_class_put_ref(fc);
  return rc;
}

int64_t record_fields_append_classes(bt_trace_class *tc, bt_field_class *payload,
                                     const struct tracer_function_desc *f, uint64_t record_length) {
  int64_t count = 0;
  for (int i = 0; i < HEAD_FIELDS; i++, count++) {
    bool is_signed = i == 2 || i == 3; /* pid, tid */
    unsigned bits = i == 4 ? 16 : is_signed ? 32 : 64;
    if (append(payload, head_names[i], integer_class(tc, is_signed, bits, false)))
      return -1;
  }
  for (int at_exit = 0; at_exit <= 1; at_exit++)
    for (uint32_t k = 0; k < f->slot_count; k++) {
      const struct tracer_slot *slot = &f->slots[k];
      if (!slot_shown(slot, at_exit, record_length))
        continue;
      if (append(payload, slot->name, slot_class(tc, f, slot)))
        return -1;
      count++;
    }
  return count;
}

/* A slot's value into its field (an integer, enumeration or real), as print_slot() of
 * `tracer -t` reads it: its low `size` bytes, sign-extended for signed types. */
static void set_slot(bt_field *field, const struct tracer_slot *slot, uint64_t raw) {
  if (slot->size < 8)
    raw &= (UINT64_C(1) << (8 * slot->size)) - 1;
  switch (slot->kind) {
  case TRACER_SLOT_SIGNED:
    if (slot->size < 8 && (raw >> (8 * slot->size - 1)) & 1)
      raw |= ~UINT64_C(0) << (8 * slot->size);
    bt_field_integer_signed_set_value(field, (int64_t)raw);
    break;
  case TRACER_SLOT_UNSIGNED:
  case TRACER_SLOT_ADDRESS: bt_field_integer_unsigned_set_value(field, raw); break;
  case TRACER_SLOT_FLOAT: {
    float value;
    uint32_t bits = (uint32_t)raw;
    memcpy(&value, &bits, sizeof value);
    bt_field_real_single_precision_set_value(field, value);
    break;
  }
  case TRACER_SLOT_DOUBLE: {
    double value;
    memcpy(&value, &raw, sizeof value);
    bt_field_real_double_precision_set_value(field, value);
    break;
  }
  }
}

int record_fields_set(bt_field *payload, const struct tracer_function_desc *f,
                      const uint64_t *slots, uint64_t n, uint64_t record_length) {
  if (n != record_length || n < TRACER_RECORD_HEAD)
    return -1;
  uint64_t head[HEAD_FIELDS] = {
      slots[TRACER_RECORD_START],
      slots[TRACER_RECORD_END],
      (uint64_t)tracer_record_pid(slots[TRACER_RECORD_IDS]),
      (uint64_t)tracer_record_tid(slots[TRACER_RECORD_IDS]),
      tracer_record_depth(slots[TRACER_RECORD_CALL]),
  };
  uint64_t m = 0;
  for (; m < HEAD_FIELDS; m++) {
    bt_field *field = bt_field_structure_borrow_member_field_by_index(payload, m);
    if (m == 2 || m == 3)
      bt_field_integer_signed_set_value(field, (int64_t)head[m]);
    else
      bt_field_integer_unsigned_set_value(field, head[m]);
  }
  for (int at_exit = 0; at_exit <= 1; at_exit++)
    for (uint32_t k = 0; k < f->slot_count; k++) {
      const struct tracer_slot *slot = &f->slots[k];
      if (!slot_shown(slot, at_exit, record_length))
        continue;
      bt_field *field = bt_field_structure_borrow_member_field_by_index(payload, m++);
      if (slot->present_if >= 0) {
        bool present = (uint64_t)slot->present_if >= n || slots[slot->present_if] != 0;
        bt_field_option_set_has_field(field, present);
        if (!present)
          continue;
        field = bt_field_option_borrow_field(field);
      }
      set_slot(field, slot, slots[slot->index]);
    }
  return 0;
}
