/* ir_copy: see ir_copy.h. */
#include "ir_copy.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static struct ir_pair *pairs_find(const struct ir_pairs *pairs, const void *in) {
  for (size_t i = 0; i < pairs->count; i++)
    if (pairs->items[i].in == in)
      return &pairs->items[i];
  return NULL;
}

/* Adds in -> out, taking out's reference (which is dropped on failure). */
static struct ir_pair *pairs_add(struct ir_pairs *pairs, const void *in, void *out,
                                 void (*put)(void *)) {
  if (pairs->count == pairs->capacity) {
    size_t capacity = pairs->capacity ? 2 * pairs->capacity : 16;
    struct ir_pair *items = realloc(pairs->items, capacity * sizeof *items);
    if (!items) {
      put(out);
      return NULL;
    }
    pairs->items = items;
    pairs->capacity = capacity;
  }
  pairs->items[pairs->count] = (struct ir_pair){in, out, NULL};
  return &pairs->items[pairs->count++];
}

static void pairs_clear(struct ir_pairs *pairs, void (*put)(void *)) {
  for (size_t i = 0; i < pairs->count; i++)
    put(pairs->items[i].out);
  free(pairs->items);
  *pairs = (struct ir_pairs){0};
}

/* babeltrace2's put functions take typed pointers; these take void * for the pairs. */
static void put_clock_class(void *p) { bt_clock_class_put_ref(p); }
static void put_trace_class(void *p) { bt_trace_class_put_ref(p); }
static void put_trace(void *p) { bt_trace_put_ref(p); }
static void put_stream_class(void *p) { bt_stream_class_put_ref(p); }
static void put_stream(void *p) { bt_stream_put_ref(p); }

void ir_map_clear(struct ir_map *map) {
  /* Streams first: each holds its open packet. */
  for (size_t i = 0; i < map->streams.count; i++)
    bt_packet_put_ref(map->streams.items[i].extra);
  pairs_clear(&map->streams, put_stream);
  pairs_clear(&map->stream_classes, put_stream_class);
  pairs_clear(&map->traces, put_trace);
  pairs_clear(&map->trace_classes, put_trace_class);
  pairs_clear(&map->clock_classes, put_clock_class);
}

#define CAUSE(map, ...)                                                                            \
  BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT((map)->self, __VA_ARGS__)

int ir_map_clock_class(struct ir_map *map, const bt_clock_class *in, bt_clock_class **out) {
  *out = NULL;
  if (!in)
    return 0;
  struct ir_pair *pair = pairs_find(&map->clock_classes, in);
  if (pair) {
    *out = pair->out;
    return 0;
  }
  bt_clock_class *cc = bt_clock_class_create(map->self);
  if (!cc)
    goto oom;
  const char *name = bt_clock_class_get_name(in);
  const char *description = bt_clock_class_get_description(in);
  bt_uuid uuid = bt_clock_class_get_uuid(in);
  int64_t seconds;
  uint64_t cycles;
  bt_clock_class_get_offset(in, &seconds, &cycles);
  bt_clock_class_set_frequency(cc, bt_clock_class_get_frequency(in));
  bt_clock_class_set_offset(cc, seconds, cycles);
  bt_clock_class_set_precision(cc, bt_clock_class_get_precision(in));
  bt_clock_class_set_origin_is_unix_epoch(cc, bt_clock_class_origin_is_unix_epoch(in));
  if (uuid)
    bt_clock_class_set_uuid(cc, uuid);
  if ((name && bt_clock_class_set_name(cc, name)) ||
      (description && bt_clock_class_set_description(cc, description))) {
    bt_clock_class_put_ref(cc);
    goto oom;
  }
  if (!(pair = pairs_add(&map->clock_classes, in, cc, put_clock_class)))
    goto oom;
  *out = cc;
  return 0;
oom:
  CAUSE(map, "Cannot copy clock class: out of memory");
  return -1;
}

static int map_trace_class(struct ir_map *map, const bt_trace_class *in, bt_trace_class **out) {
  struct ir_pair *pair = pairs_find(&map->trace_classes, in);
  if (!pair) {
    bt_trace_class *tc = bt_trace_class_create(map->self);
    if (!tc || !(pair = pairs_add(&map->trace_classes, in, tc, put_trace_class))) {
      CAUSE(map, "Cannot copy trace class: out of memory");
      return -1;
    }
    /* Stream classes keep their upstream ids. */
    bt_trace_class_set_assigns_automatic_stream_class_id(tc, BT_FALSE);
  }
  *out = pair->out;
  return 0;
}

/* The trace's environment (hostname, tracer_name, ...), name and UUID. */
static int copy_trace_properties(const bt_trace *in, bt_trace *out) {
  const char *name = bt_trace_get_name(in);
  if (name && bt_trace_set_name(out, name))
    return -1;
  bt_uuid uuid = bt_trace_get_uuid(in);
  if (uuid)
    bt_trace_set_uuid(out, uuid);
  uint64_t n = bt_trace_get_environment_entry_count(in);
  for (uint64_t i = 0; i < n; i++) {
    const char *key;
    const bt_value *value;
    bt_trace_borrow_environment_entry_by_index_const(in, i, &key, &value);
    if (bt_value_is_signed_integer(value)) {
      if (bt_trace_set_environment_entry_integer(out, key, bt_value_integer_signed_get(value)))
        return -1;
    } else if (bt_value_is_string(value)) {
      if (bt_trace_set_environment_entry_string(out, key, bt_value_string_get(value)))
        return -1;
    }
  }
  return 0;
}

static int map_trace(struct ir_map *map, const bt_trace *in, bt_trace **out) {
  struct ir_pair *pair = pairs_find(&map->traces, in);
  if (!pair) {
    bt_trace_class *tc;
    if (map_trace_class(map, bt_trace_borrow_class_const(in), &tc))
      return -1;
    bt_trace *trace = bt_trace_create(tc);
    if (!trace || copy_trace_properties(in, trace)) {
      bt_trace_put_ref(trace);
      CAUSE(map, "Cannot copy trace: out of memory");
      return -1;
    }
    if (!(pair = pairs_add(&map->traces, in, trace, put_trace))) {
      CAUSE(map, "Cannot copy trace: out of memory");
      return -1;
    }
  }
  *out = pair->out;
  return 0;
}

/* Copies in's field class (may be NULL) and gives it to set. */
static int copy_scope(bt_trace_class *tc, const bt_field_class *in, void *target,
                      int (*set)(void *, bt_field_class *)) {
  if (!in)
    return 0;
  bt_field_class *fc;
  if (ir_copy_field_class(tc, in, &fc))
    return -1;
  int rc = set(target, fc);
  bt_field_class_put_ref(fc);
  return rc;
}

static int set_packet_context(void *sc, bt_field_class *fc) {
  return bt_stream_class_set_packet_context_field_class(sc, fc) ? -1 : 0;
}

static int set_common_context(void *sc, bt_field_class *fc) {
  return bt_stream_class_set_event_common_context_field_class(sc, fc) ? -1 : 0;
}

static int copy_stream_class(struct ir_map *map, const bt_stream_class *in, bt_stream_class *sc) {
  bt_trace_class *tc = bt_stream_class_borrow_trace_class(sc);
  bt_clock_class *clock;
  if (ir_map_clock_class(map, bt_stream_class_borrow_default_clock_class_const(in), &clock))
    return -1;
  const char *name = bt_stream_class_get_name(in);
  if (name && bt_stream_class_set_name(sc, name))
    return -1;
  /* Event classes and streams keep their upstream ids. */
  bt_stream_class_set_assigns_automatic_event_class_id(sc, BT_FALSE);
  bt_stream_class_set_assigns_automatic_stream_id(sc, BT_FALSE);
  if (clock && bt_stream_class_set_default_clock_class(sc, clock))
    return -1;
  bt_stream_class_set_supports_packets(
      sc, bt_stream_class_supports_packets(in),
      bt_stream_class_packets_have_beginning_default_clock_snapshot(in),
      bt_stream_class_packets_have_end_default_clock_snapshot(in));
  bt_stream_class_set_supports_discarded_events(
      sc, bt_stream_class_supports_discarded_events(in),
      bt_stream_class_discarded_events_have_default_clock_snapshots(in));
  bt_stream_class_set_supports_discarded_packets(
      sc, bt_stream_class_supports_discarded_packets(in),
      bt_stream_class_discarded_packets_have_default_clock_snapshots(in));
  if (copy_scope(tc, bt_stream_class_borrow_packet_context_field_class_const(in), sc,
                 set_packet_context) ||
      copy_scope(tc, bt_stream_class_borrow_event_common_context_field_class_const(in), sc,
                 set_common_context))
    return -1;
  return 0;
}

int ir_map_stream_class(struct ir_map *map, const bt_stream_class *in, bt_stream_class **out) {
  struct ir_pair *pair = pairs_find(&map->stream_classes, in);
  if (!pair) {
    bt_trace_class *tc;
    if (map_trace_class(map, bt_stream_class_borrow_trace_class_const(in), &tc))
      return -1;
    bt_stream_class *sc = bt_stream_class_create_with_id(tc, bt_stream_class_get_id(in));
    if (!sc || copy_stream_class(map, in, sc)) {
      bt_stream_class_put_ref(sc);
      CAUSE(map, "Cannot copy stream class: id=%" PRIu64, bt_stream_class_get_id(in));
      return -1;
    }
    if (!(pair = pairs_add(&map->stream_classes, in, sc, put_stream_class))) {
      CAUSE(map, "Cannot copy stream class: out of memory");
      return -1;
    }
  }
  *out = pair->out;
  return 0;
}

int ir_map_stream(struct ir_map *map, const bt_stream *in, bt_stream **out) {
  struct ir_pair *pair = pairs_find(&map->streams, in);
  if (!pair) {
    bt_stream_class *sc;
    bt_trace *trace;
    if (ir_map_stream_class(map, bt_stream_borrow_class_const(in), &sc) ||
        map_trace(map, bt_stream_borrow_trace_const(in), &trace))
      return -1;
    bt_stream *stream = bt_stream_create_with_id(sc, trace, bt_stream_get_id(in));
    const char *name = bt_stream_get_name(in);
    if (!stream || (name && bt_stream_set_name(stream, name))) {
      bt_stream_put_ref(stream);
      CAUSE(map, "Cannot copy stream: out of memory");
      return -1;
    }
    if (!(pair = pairs_add(&map->streams, in, stream, put_stream))) {
      CAUSE(map, "Cannot copy stream: out of memory");
      return -1;
    }
  }
  *out = pair->out;
  return 0;
}

bt_packet **ir_map_stream_packet(struct ir_map *map, const bt_stream *in) {
  struct ir_pair *pair = pairs_find(&map->streams, in);
  return pair ? (bt_packet **)&pair->extra : NULL;
}

/* ---- field classes ---- */

static int copy_integer_properties(const bt_field_class *in, bt_field_class *out) {
  bt_field_class_integer_set_field_value_range(out,
                                               bt_field_class_integer_get_field_value_range(in));
  bt_field_class_integer_set_preferred_display_base(
      out, bt_field_class_integer_get_preferred_display_base(in));
  return 0;
}

static int copy_mappings(const bt_field_class *in, bt_field_class *out, bool is_signed) {
  uint64_t n = bt_field_class_enumeration_get_mapping_count(in);
  for (uint64_t i = 0; i < n; i++) {
    if (is_signed) {
      const bt_field_class_enumeration_signed_mapping *m =
          bt_field_class_enumeration_signed_borrow_mapping_by_index_const(in, i);
      const char *label = bt_field_class_enumeration_mapping_get_label(
          bt_field_class_enumeration_signed_mapping_as_mapping_const(m));
      if (bt_field_class_enumeration_signed_add_mapping(
              out, label, bt_field_class_enumeration_signed_mapping_borrow_ranges_const(m)))
        return -1;
    } else {
      const bt_field_class_enumeration_unsigned_mapping *m =
          bt_field_class_enumeration_unsigned_borrow_mapping_by_index_const(in, i);
      const char *label = bt_field_class_enumeration_mapping_get_label(
          bt_field_class_enumeration_unsigned_mapping_as_mapping_const(m));
      if (bt_field_class_enumeration_unsigned_add_mapping(
              out, label, bt_field_class_enumeration_unsigned_mapping_borrow_ranges_const(m)))
        return -1;
    }
  }
  return 0;
}

static int copy_members(bt_trace_class *tc, const bt_field_class *in, bt_field_class *out) {
  uint64_t n = bt_field_class_structure_get_member_count(in);
  for (uint64_t i = 0; i < n; i++) {
    const bt_field_class_structure_member *m =
        bt_field_class_structure_borrow_member_by_index_const(in, i);
    bt_field_class *member;
    if (ir_copy_field_class(tc, bt_field_class_structure_member_borrow_field_class_const(m),
                            &member))
      return -1;
    int rc = bt_field_class_structure_append_member(
        out, bt_field_class_structure_member_get_name(m), member);
    bt_field_class_put_ref(member);
    if (rc)
      return -1;
  }
  return 0;
}

static bt_field_class *copy_array(bt_trace_class *tc, const bt_field_class *in, bool is_static) {
  bt_field_class *element;
  if (ir_copy_field_class(tc, bt_field_class_array_borrow_element_field_class_const(in), &element))
    return NULL;
  bt_field_class *out = is_static ? bt_field_class_array_static_create(
                                        tc, element, bt_field_class_array_static_get_length(in))
                                  : bt_field_class_array_dynamic_create(tc, element, NULL);
  bt_field_class_put_ref(element);
  return out;
}

int ir_copy_field_class(bt_trace_class *tc, const bt_field_class *in, bt_field_class **out) {
  bt_field_class *fc = NULL;
  int rc = 0;
  switch (bt_field_class_get_type(in)) {
  case BT_FIELD_CLASS_TYPE_BOOL: fc = bt_field_class_bool_create(tc); break;
  case BT_FIELD_CLASS_TYPE_BIT_ARRAY:
    fc = bt_field_class_bit_array_create(tc, bt_field_class_bit_array_get_length(in));
    break;
  case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
    if ((fc = bt_field_class_integer_unsigned_create(tc)))
      rc = copy_integer_properties(in, fc);
    break;
  case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
    if ((fc = bt_field_class_integer_signed_create(tc)))
      rc = copy_integer_properties(in, fc);
    break;
  case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
    if ((fc = bt_field_class_enumeration_unsigned_create(tc)))
      rc = copy_integer_properties(in, fc) || copy_mappings(in, fc, false) ? -1 : 0;
    break;
  case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
    if ((fc = bt_field_class_enumeration_signed_create(tc)))
      rc = copy_integer_properties(in, fc) || copy_mappings(in, fc, true) ? -1 : 0;
    break;
  case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
    fc = bt_field_class_real_single_precision_create(tc);
    break;
  case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
    fc = bt_field_class_real_double_precision_create(tc);
    break;
  case BT_FIELD_CLASS_TYPE_STRING: fc = bt_field_class_string_create(tc); break;
  case BT_FIELD_CLASS_TYPE_STRUCTURE:
    if ((fc = bt_field_class_structure_create(tc)))
      rc = copy_members(tc, in, fc);
    break;
  case BT_FIELD_CLASS_TYPE_STATIC_ARRAY: fc = copy_array(tc, in, true); break;
  case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD:
  case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD: fc = copy_array(tc, in, false); break;
  default: /* options and variants: LTTng-UST 2.13 writes none */ break;
  }
  if (!fc || rc) {
    bt_field_class_put_ref(fc);
    *out = NULL;
    return -1;
  }
  *out = fc;
  return 0;
}

/* ---- fields ---- */

int ir_copy_field(const bt_field *in, bt_field *out) {
  switch (bt_field_get_class_type(in)) {
  case BT_FIELD_CLASS_TYPE_BOOL: bt_field_bool_set_value(out, bt_field_bool_get_value(in)); break;
  case BT_FIELD_CLASS_TYPE_BIT_ARRAY:
    bt_field_bit_array_set_value_as_integer(out, bt_field_bit_array_get_value_as_integer(in));
    break;
  case BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER:
  case BT_FIELD_CLASS_TYPE_UNSIGNED_ENUMERATION:
    bt_field_integer_unsigned_set_value(out, bt_field_integer_unsigned_get_value(in));
    break;
  case BT_FIELD_CLASS_TYPE_SIGNED_INTEGER:
  case BT_FIELD_CLASS_TYPE_SIGNED_ENUMERATION:
    bt_field_integer_signed_set_value(out, bt_field_integer_signed_get_value(in));
    break;
  case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
    bt_field_real_single_precision_set_value(out, bt_field_real_single_precision_get_value(in));
    break;
  case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
    bt_field_real_double_precision_set_value(out, bt_field_real_double_precision_get_value(in));
    break;
  case BT_FIELD_CLASS_TYPE_STRING:
    bt_field_string_clear(out);
    if (bt_field_string_append_with_length(out, bt_field_string_get_value(in),
                                           bt_field_string_get_length(in)))
      return -1;
    break;
  case BT_FIELD_CLASS_TYPE_STRUCTURE: {
    uint64_t n = bt_field_class_structure_get_member_count(bt_field_borrow_class_const(in));
    for (uint64_t i = 0; i < n; i++)
      if (ir_copy_field(bt_field_structure_borrow_member_field_by_index_const(in, i),
                        bt_field_structure_borrow_member_field_by_index(out, i)))
        return -1;
    break;
  }
  case BT_FIELD_CLASS_TYPE_STATIC_ARRAY:
  case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITHOUT_LENGTH_FIELD:
  case BT_FIELD_CLASS_TYPE_DYNAMIC_ARRAY_WITH_LENGTH_FIELD: {
    uint64_t n = bt_field_array_get_length(in);
    if (bt_field_get_class_type(out) != BT_FIELD_CLASS_TYPE_STATIC_ARRAY &&
        bt_field_array_dynamic_set_length(out, n))
      return -1;
    for (uint64_t i = 0; i < n; i++)
      if (ir_copy_field(bt_field_array_borrow_element_field_by_index_const(in, i),
                        bt_field_array_borrow_element_field_by_index(out, i)))
        return -1;
    break;
  }
  default: return -1;
  }
  return 0;
}
