/* decode_filter: the babeltrace2 plugin `tracer` and its filter component class `decode`
 * (filter.tracer.decode): every call event of the tracer's default and full modes
 * (`lttng_ust_<backend>:F`, `F__full`), whose first field `record` is an array of slots,
 * leaves it as an event of the same name whose fields are the call's parameters by name
 * and type (record_fields.h); the other fields of a full event follow, struct bytes and
 * named values decoded as `tracer -t` shows them (full_fields.h); minimal mode's batches
 * (`lttng_ust_<backend>:call`) become one such event per call (batch_calls.h).
 * Every other message passes through unchanged, copied into the filter's own trace
 * objects (ir_copy.h), which a filter that changes event classes needs.
 *
 *   babeltrace2 --plugin-path=DIR TRACE -c filter.tracer.decode
 *
 * The backends are those `tracer` knows: compiled in, plus TRACER_BACKEND_PATH's.
 */
#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "batch_calls.h"
#include "full_fields.h"
#include "ir_copy.h"
#include "record_fields.h"

BT_PLUGIN_MODULE();
BT_PLUGIN(tracer);
BT_PLUGIN_DESCRIPTION("The tracer's call records as named, typed fields.");
BT_PLUGIN_LICENSE("MIT");

struct decode_filter {
  bt_self_component_port_input *in_port; /* borrowed */
};

/* What the filter does with one upstream event class. */
struct event_class_entry {
  /* The key: an upstream event class and 0, or a batch's `call` event class and 1 + the
   * index of the function whose batched calls the entry's class carries. */
  const bt_event_class *in; /* borrowed */
  uint64_t tag;
  bt_event_class *out;                         /* owned by its stream class */
  const struct tracer_function_desc *function; /* NULL: the payload is copied as is */
  uint64_t record_length;
  uint64_t decoded;                        /* members of the out payload made from the record */
  const struct tracer_backend_desc *batch; /* a `call` event's backend; else NULL */
};

enum { BATCH_MAX = 1024 }; /* calls read from one batch at most (the runtime writes 32) */

struct decode_iterator {
  bt_self_message_iterator *self;
  bt_message_iterator *upstream; /* owned */
  struct ir_map map;
  /* The event classes by key, open addressing (a power of two). */
  struct event_class_entry *classes;
  size_t class_count, class_capacity;
  uint64_t batch_heads[BATCH_MAX][TRACER_RECORD_HEAD]; /* the calls of a batch being read */
  /* Messages made and not yet returned (owned), from head. */
  const bt_message **queue;
  size_t queue_head, queue_count, queue_capacity;
};

#define CAUSE(it, ...)                                                                             \
  BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR((it)->self, __VA_ARGS__)

/* ---- event classes ---- */

static size_t class_slot(const struct decode_iterator *it, const bt_event_class *in, uint64_t tag) {
  size_t mask = it->class_capacity - 1;
  size_t i = (((uintptr_t)in >> 4) ^ tag) * 0x9e3779b97f4a7c15u & mask;
  while (it->classes[i].in && (it->classes[i].in != in || it->classes[i].tag != tag))
    i = (i + 1) & mask;
  return i;
}

static int classes_grow(struct decode_iterator *it) {
  struct event_class_entry *old = it->classes;
  size_t old_capacity = it->class_capacity;
  size_t capacity = old_capacity ? 2 * old_capacity : 256;
  if (!(it->classes = calloc(capacity, sizeof *it->classes))) {
    it->classes = old;
    return -1;
  }
  it->class_capacity = capacity;
  for (size_t i = 0; i < old_capacity; i++)
    if (old[i].in)
      it->classes[class_slot(it, old[i].in, old[i].tag)] = old[i];
  free(old);
  return 0;
}

/* The function whose call record the event class carries, or NULL: its name is
 * PROVIDER:F or PROVIDER:F__full of a backend the tracer knows, and its payload starts
 * with `record`, a static array of integers. */
static const struct tracer_function_desc *call_function(const bt_event_class *ec,
                                                        uint64_t *record_length) {
  const char *name = bt_event_class_get_name(ec), *colon = name ? strchr(name, ':') : NULL;
  const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
  if (!colon || !payload || bt_field_class_get_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE ||
      bt_field_class_structure_get_member_count(payload) == 0)
    return NULL;
  const bt_field_class_structure_member *first =
      bt_field_class_structure_borrow_member_by_index_const(payload, 0);
  const bt_field_class *record = bt_field_class_structure_member_borrow_field_class_const(first);
  if (strcmp(bt_field_class_structure_member_get_name(first), "record") != 0 ||
      bt_field_class_get_type(record) != BT_FIELD_CLASS_TYPE_STATIC_ARRAY ||
      !bt_field_class_type_is(
          bt_field_class_get_type(bt_field_class_array_borrow_element_field_class_const(record)),
          BT_FIELD_CLASS_TYPE_INTEGER))
    return NULL;
  const struct tracer_backend_desc *b = backends_find_provider(name, (size_t)(colon - name));
  const char *function = colon + 1;
  size_t len = strlen(function);
  if (len > 6 && strcmp(function + len - 6, "__full") == 0)
    len -= 6;
  int index = b ? backends_function_index(b, function, len) : -1;
  if (index < 0)
    return NULL;
  *record_length = bt_field_class_array_static_get_length(record);
  return &b->functions[index];
}

/* The decoded payload: the record's fields, then the upstream members after the record.
 * Returns NULL when a member's name is also a record field's (then the event is copied
 * as is). */
static bt_field_class *decoded_payload(bt_trace_class *tc, const bt_field_class *in,
                                       struct event_class_entry *e) {
  bt_field_class *payload = bt_field_class_structure_create(tc);
  int64_t decoded =
      payload ? record_fields_append_classes(tc, payload, e->function, e->record_length) : -1;
  if (decoded < 0)
    goto fail;
  e->decoded = (uint64_t)decoded;
  uint64_t n = bt_field_class_structure_get_member_count(in);
  for (uint64_t i = 1; i < n; i++) {
    const bt_field_class_structure_member *m =
        bt_field_class_structure_borrow_member_by_index_const(in, i);
    const char *name = bt_field_class_structure_member_get_name(m);
    bt_field_class *member;
    if (bt_field_class_structure_borrow_member_by_name(payload, name) ||
        full_fields_class(tc, e->function, name,
                          bt_field_class_structure_member_borrow_field_class_const(m), &member))
      goto fail;
    int rc = bt_field_class_structure_append_member(payload, name, member);
    bt_field_class_put_ref(member);
    if (rc)
      goto fail;
  }
  return payload;
fail:
  bt_field_class_put_ref(payload);
  return NULL;
}

static int copy_event_class(const bt_event_class *in, bt_event_class *out,
                            struct event_class_entry *e) {
  bt_trace_class *tc = bt_stream_class_borrow_trace_class(bt_event_class_borrow_stream_class(out));
  const char *name = bt_event_class_get_name(in), *uri = bt_event_class_get_emf_uri(in);
  bt_event_class_log_level level;
  if ((name && bt_event_class_set_name(out, name)) || (uri && bt_event_class_set_emf_uri(out, uri)))
    return -1;
  if (bt_event_class_get_log_level(in, &level) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
    bt_event_class_set_log_level(out, level);
  const bt_field_class *context = bt_event_class_borrow_specific_context_field_class_const(in);
  const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(in);
  bt_field_class *fc = NULL;
  if (context) {
    if (ir_copy_field_class(tc, context, &fc))
      return -1;
    int rc = bt_event_class_set_specific_context_field_class(out, fc);
    bt_field_class_put_ref(fc);
    if (rc)
      return -1;
  }
  if (!payload)
    return 0;
  e->batch = batch_calls_backend(in);
  e->function = call_function(in, &e->record_length);
  if (e->function && !(fc = decoded_payload(tc, payload, e)))
    e->function = NULL;
  if (!e->function && ir_copy_field_class(tc, payload, &fc))
    return -1;
  int rc = bt_event_class_set_payload_field_class(out, fc);
  bt_field_class_put_ref(fc);
  return rc ? -1 : 0;
}

/* The entry of (in, tag), or NULL when there is none; room for one more when *room. */
static struct event_class_entry *find_class(struct decode_iterator *it, const bt_event_class *in,
                                            uint64_t tag, bool *room) {
  if (it->class_capacity) {
    struct event_class_entry *e = &it->classes[class_slot(it, in, tag)];
    if (e->in)
      return e;
  }
  *room = 2 * (it->class_count + 1) <= it->class_capacity || classes_grow(it) == 0;
  if (!*room)
    CAUSE(it, "Cannot map event class: out of memory");
  return NULL;
}

static struct event_class_entry *add_class(struct decode_iterator *it,
                                           const struct event_class_entry *e) {
  struct event_class_entry *slot = &it->classes[class_slot(it, e->in, e->tag)];
  *slot = *e;
  it->class_count++;
  return slot;
}

static struct event_class_entry *map_event_class(struct decode_iterator *it,
                                                 const bt_event_class *in) {
  bool room;
  struct event_class_entry *found = find_class(it, in, 0, &room);
  if (found || !room)
    return found;
  bt_stream_class *sc;
  if (ir_map_stream_class(&it->map, bt_event_class_borrow_stream_class_const(in), &sc))
    return NULL;
  struct event_class_entry e = {.in = in};
  e.out = bt_event_class_create_with_id(sc, bt_event_class_get_id(in));
  if (!e.out || copy_event_class(in, e.out, &e)) {
    bt_event_class_put_ref(e.out);
    CAUSE(it, "Cannot copy event class: name=%s", bt_event_class_get_name(in));
    return NULL;
  }
  /* The stream class holds the event class from now on. */
  bt_event_class_put_ref(e.out);
  return add_class(it, &e);
}

/* The class of the batched calls of function `function` of a `call` event's entry, in the
 * same stream class; its id is out of the range of LTTng's (which are 32-bit), one per
 * upstream `call` class and function (at most 16 bits in a record). */
static struct event_class_entry *map_batch_class(struct decode_iterator *it,
                                                 const struct event_class_entry *call,
                                                 unsigned function) {
  bool room;
  struct event_class_entry *found = find_class(it, call->in, 1 + (uint64_t)function, &room);
  if (found || !room)
    return found;
  struct event_class_entry e = {.in = call->in,
                                .tag = 1 + (uint64_t)function,
                                .function = &call->batch->functions[function],
                                .record_length = TRACER_RECORD_HEAD};
  uint64_t id = UINT64_C(1) << 63 | bt_event_class_get_id(call->in) << 16 | function;
  e.out = batch_calls_event_class(bt_event_class_borrow_stream_class(call->out), id, call->batch,
                                  e.function);
  if (!e.out) {
    CAUSE(it, "Cannot make event class: function=%s", e.function->name);
    return NULL;
  }
  return add_class(it, &e);
}

/* ---- events ---- */

static int copy_event_fields(const struct event_class_entry *e, const bt_event *in, bt_event *out) {
  const bt_field *context = bt_event_borrow_common_context_field_const(in);
  if (context && ir_copy_field(context, bt_event_borrow_common_context_field(out)))
    return -1;
  context = bt_event_borrow_specific_context_field_const(in);
  if (context && ir_copy_field(context, bt_event_borrow_specific_context_field(out)))
    return -1;
  const bt_field *payload = bt_event_borrow_payload_field_const(in);
  if (!payload)
    return 0;
  bt_field *out_payload = bt_event_borrow_payload_field(out);
  if (!e->function)
    return ir_copy_field(payload, out_payload);
  const bt_field *record = bt_field_structure_borrow_member_field_by_index_const(payload, 0);
  uint64_t slots[RECORD_FIELDS_MAX_SLOTS], n = bt_field_array_get_length(record);
  if (n > RECORD_FIELDS_MAX_SLOTS)
    return -1;
  for (uint64_t i = 0; i < n; i++) {
    const bt_field *slot = bt_field_array_borrow_element_field_by_index_const(record, i);
    slots[i] =
        bt_field_class_type_is(bt_field_get_class_type(slot), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)
            ? (uint64_t)bt_field_integer_signed_get_value(slot)
            : bt_field_integer_unsigned_get_value(slot);
  }
  if (record_fields_set(out_payload, e->function, slots, n, e->record_length))
    return -1;
  const bt_field_class *payload_class = bt_field_borrow_class_const(payload);
  uint64_t members = bt_field_class_structure_get_member_count(payload_class);
  for (uint64_t i = 1; i < members; i++) {
    const char *name = bt_field_class_structure_member_get_name(
        bt_field_class_structure_borrow_member_by_index_const(payload_class, i));
    if (full_fields_set(
            e->function, name, bt_field_structure_borrow_member_field_by_index_const(payload, i),
            bt_field_structure_borrow_member_field_by_index(out_payload, e->decoded + i - 1)))
      return -1;
  }
  return 0;
}

/* Takes m (NULL: a failure already reported) into the queue of messages to return. */
static int push(struct decode_iterator *it, const bt_message *m) {
  if (!m)
    return -1;
  if (it->queue_head + it->queue_count == it->queue_capacity) {
    size_t capacity = it->queue_capacity ? 2 * it->queue_capacity : 64;
    const bt_message **queue = realloc(it->queue, capacity * sizeof *queue);
    if (!queue) {
      bt_message_put_ref(m);
      CAUSE(it, "Cannot queue messages: out of memory");
      return -1;
    }
    it->queue = queue;
    it->queue_capacity = capacity;
  }
  it->queue[it->queue_head + it->queue_count++] = m;
  return 0;
}

/* An event message of class ec at the time of in, an upstream event message of in_stream. */
static bt_message *new_event_message(struct decode_iterator *it, const bt_message *in,
                                     const bt_stream *in_stream, bt_event_class *ec) {
  const bt_stream_class *in_sc = bt_stream_borrow_class_const(in_stream);
  bt_stream *stream;
  if (ir_map_stream(&it->map, in_stream, &stream))
    return NULL;
  bt_packet *packet =
      bt_stream_class_supports_packets(in_sc) ? *ir_map_stream_packet(&it->map, in_stream) : NULL;
  if (!bt_stream_class_borrow_default_clock_class_const(in_sc))
    return packet ? bt_message_event_create_with_packet(it->self, ec, packet)
                  : bt_message_event_create(it->self, ec, stream);
  uint64_t at =
      bt_clock_snapshot_get_value(bt_message_event_borrow_default_clock_snapshot_const(in));
  return packet ? bt_message_event_create_with_packet_and_default_clock_snapshot(it->self, ec,
                                                                                 packet, at)
                : bt_message_event_create_with_default_clock_snapshot(it->self, ec, stream, at);
}

/* A batch of minimal mode: one event per call, all at the batch's time (the calls' own
 * times are their start and end fields). */
static int batch_messages(struct decode_iterator *it, const bt_message *in,
                          const struct event_class_entry *call) {
  uint64_t(*heads)[TRACER_RECORD_HEAD] = it->batch_heads;
  const bt_event *event = bt_message_event_borrow_event_const(in);
  size_t n = batch_calls_read(bt_event_borrow_payload_field_const(event), heads, BATCH_MAX);
  for (size_t i = 0; i < n; i++) {
    unsigned function = tracer_record_function(heads[i][TRACER_RECORD_CALL]);
    if (function >= call->batch->function_count)
      continue; /* as the tracer does: no such function */
    struct event_class_entry *e = map_batch_class(it, call, function);
    bt_message *out =
        e ? new_event_message(it, in, bt_event_borrow_stream_const(event), e->out) : NULL;
    if (out && record_fields_set(bt_event_borrow_payload_field(bt_message_event_borrow_event(out)),
                                 e->function, heads[i], TRACER_RECORD_HEAD, TRACER_RECORD_HEAD)) {
      bt_message_put_ref(out);
      out = NULL;
    }
    if (push(it, out))
      return -1;
  }
  return 0;
}

static int event_messages(struct decode_iterator *it, const bt_message *in) {
  const bt_event *event = bt_message_event_borrow_event_const(in);
  struct event_class_entry *e = map_event_class(it, bt_event_borrow_class_const(event));
  if (!e)
    return -1;
  if (e->batch)
    return batch_messages(it, in, e);
  bt_message *out = new_event_message(it, in, bt_event_borrow_stream_const(event), e->out);
  if (out && copy_event_fields(e, event, bt_message_event_borrow_event(out))) {
    CAUSE(it, "Cannot decode event: name=%s", bt_event_class_get_name(e->in));
    bt_message_put_ref(out);
    return -1;
  }
  return push(it, out);
}

/* ---- streams and packets ---- */

static bt_message *stream_message(struct decode_iterator *it, const bt_message *in, bool begin) {
  const bt_stream *in_stream = begin ? bt_message_stream_beginning_borrow_stream_const(in)
                                     : bt_message_stream_end_borrow_stream_const(in);
  bt_stream *stream;
  if (ir_map_stream(&it->map, in_stream, &stream))
    return NULL;
  const bt_clock_snapshot *at = NULL;
  bt_message_stream_clock_snapshot_state state =
      begin ? bt_message_stream_beginning_borrow_default_clock_snapshot_const(in, &at)
            : bt_message_stream_end_borrow_default_clock_snapshot_const(in, &at);
  bt_message *out = begin ? bt_message_stream_beginning_create(it->self, stream)
                          : bt_message_stream_end_create(it->self, stream);
  if (out && state == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN) {
    if (begin)
      bt_message_stream_beginning_set_default_clock_snapshot(out, bt_clock_snapshot_get_value(at));
    else
      bt_message_stream_end_set_default_clock_snapshot(out, bt_clock_snapshot_get_value(at));
  }
  return out;
}

static bt_message *packet_message(struct decode_iterator *it, const bt_message *in, bool begin) {
  const bt_packet *in_packet = begin ? bt_message_packet_beginning_borrow_packet_const(in)
                                     : bt_message_packet_end_borrow_packet_const(in);
  const bt_stream *in_stream = bt_packet_borrow_stream_const(in_packet);
  const bt_stream_class *in_sc = bt_stream_borrow_class_const(in_stream);
  bt_stream *stream;
  if (ir_map_stream(&it->map, in_stream, &stream))
    return NULL;
  bt_packet **open = ir_map_stream_packet(&it->map, in_stream);
  if (begin) {
    bt_packet_put_ref(*open);
    const bt_field *context = bt_packet_borrow_context_field_const(in_packet);
    if (!(*open = bt_packet_create(stream)) ||
        (context && ir_copy_field(context, bt_packet_borrow_context_field(*open)))) {
      CAUSE(it, "Cannot copy packet: stream=%" PRIu64, bt_stream_get_id(in_stream));
      return NULL;
    }
  }
  if (!*open)
    return NULL;
  bt_message *out;
  if (begin && bt_stream_class_packets_have_beginning_default_clock_snapshot(in_sc))
    out = bt_message_packet_beginning_create_with_default_clock_snapshot(
        it->self, *open,
        bt_clock_snapshot_get_value(
            bt_message_packet_beginning_borrow_default_clock_snapshot_const(in)));
  else if (begin)
    out = bt_message_packet_beginning_create(it->self, *open);
  else if (bt_stream_class_packets_have_end_default_clock_snapshot(in_sc))
    out = bt_message_packet_end_create_with_default_clock_snapshot(
        it->self, *open,
        bt_clock_snapshot_get_value(bt_message_packet_end_borrow_default_clock_snapshot_const(in)));
  else
    out = bt_message_packet_end_create(it->self, *open);
  if (!begin) {
    bt_packet_put_ref(*open);
    *open = NULL;
  }
  return out;
}

static bt_message *discarded_message(struct decode_iterator *it, const bt_message *in,
                                     bool events) {
  const bt_stream *in_stream = events ? bt_message_discarded_events_borrow_stream_const(in)
                                      : bt_message_discarded_packets_borrow_stream_const(in);
  const bt_stream_class *in_sc = bt_stream_borrow_class_const(in_stream);
  bt_stream *stream;
  if (ir_map_stream(&it->map, in_stream, &stream))
    return NULL;
  bt_message *out;
  uint64_t count;
  if (events) {
    if (bt_stream_class_discarded_events_have_default_clock_snapshots(in_sc))
      out = bt_message_discarded_events_create_with_default_clock_snapshots(
          it->self, stream,
          bt_clock_snapshot_get_value(
              bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(in)),
          bt_clock_snapshot_get_value(
              bt_message_discarded_events_borrow_end_default_clock_snapshot_const(in)));
    else
      out = bt_message_discarded_events_create(it->self, stream);
    if (out &&
        bt_message_discarded_events_get_count(in, &count) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
      bt_message_discarded_events_set_count(out, count);
  } else {
    if (bt_stream_class_discarded_packets_have_default_clock_snapshots(in_sc))
      out = bt_message_discarded_packets_create_with_default_clock_snapshots(
          it->self, stream,
          bt_clock_snapshot_get_value(
              bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(in)),
          bt_clock_snapshot_get_value(
              bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(in)));
    else
      out = bt_message_discarded_packets_create(it->self, stream);
    if (out &&
        bt_message_discarded_packets_get_count(in, &count) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
      bt_message_discarded_packets_set_count(out, count);
  }
  return out;
}

static bt_message *inactivity_message(struct decode_iterator *it, const bt_message *in) {
  const bt_clock_snapshot *at =
      bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(in);
  bt_clock_class *clock;
  if (ir_map_clock_class(&it->map, bt_clock_snapshot_borrow_clock_class_const(at), &clock))
    return NULL;
  return bt_message_message_iterator_inactivity_create(it->self, clock,
                                                       bt_clock_snapshot_get_value(at));
}

static int transform(struct decode_iterator *it, const bt_message *in) {
  switch (bt_message_get_type(in)) {
  case BT_MESSAGE_TYPE_EVENT: return event_messages(it, in);
  case BT_MESSAGE_TYPE_STREAM_BEGINNING: return push(it, stream_message(it, in, true));
  case BT_MESSAGE_TYPE_STREAM_END: return push(it, stream_message(it, in, false));
  case BT_MESSAGE_TYPE_PACKET_BEGINNING: return push(it, packet_message(it, in, true));
  case BT_MESSAGE_TYPE_PACKET_END: return push(it, packet_message(it, in, false));
  case BT_MESSAGE_TYPE_DISCARDED_EVENTS: return push(it, discarded_message(it, in, true));
  case BT_MESSAGE_TYPE_DISCARDED_PACKETS: return push(it, discarded_message(it, in, false));
  case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY: return push(it, inactivity_message(it, in));
  }
  return -1;
}

/* ---- the component and its message iterator ---- */

static bt_component_class_initialize_method_status
decode_initialize(bt_self_component_filter *self, bt_self_component_filter_configuration *config,
                  const bt_value *params, void *data) {
  (void)config, (void)params, (void)data;
  struct decode_filter *filter = calloc(1, sizeof *filter);
  if (!filter)
    return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
  backends_load_path();
  if (bt_self_component_filter_add_input_port(self, "in", NULL, &filter->in_port) ||
      bt_self_component_filter_add_output_port(self, "out", NULL, NULL)) {
    free(filter);
    return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
  }
  bt_self_component_set_data(bt_self_component_filter_as_self_component(self), filter);
  return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void decode_finalize(bt_self_component_filter *self) {
  free(bt_self_component_get_data(bt_self_component_filter_as_self_component(self)));
}

static void iterator_free(struct decode_iterator *it) {
  for (size_t i = it->queue_head; i < it->queue_head + it->queue_count; i++)
    bt_message_put_ref(it->queue[i]);
  free(it->queue);
  bt_message_iterator_put_ref(it->upstream);
  ir_map_clear(&it->map);
  free(it->classes);
  free(it);
}

static bt_message_iterator_class_initialize_method_status
decode_iterator_initialize(bt_self_message_iterator *self,
                           bt_self_message_iterator_configuration *config,
                           bt_self_component_port_output *port) {
  (void)config, (void)port;
  bt_self_component *component = bt_self_message_iterator_borrow_component(self);
  struct decode_filter *filter = bt_self_component_get_data(component);
  struct decode_iterator *it = calloc(1, sizeof *it);
  if (!it)
    return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
  it->self = self;
  it->map.self = component;
  if (bt_message_iterator_create_from_message_iterator(self, filter->in_port, &it->upstream) !=
      BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
    iterator_free(it);
    return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
  }
  bt_self_message_iterator_set_data(self, it);
  return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void decode_iterator_finalize(bt_self_message_iterator *self) {
  iterator_free(bt_self_message_iterator_get_data(self));
}

/* Transforms upstream messages into the queue; takes their references. */
static int enqueue(struct decode_iterator *it, bt_message_array_const in, uint64_t count) {
  int rc = 0;
  if (it->queue_count == 0)
    it->queue_head = 0;
  for (uint64_t i = 0; i < count; i++) {
    if (!rc && transform(it, in[i])) {
      CAUSE(it, "Cannot copy message: type=%d", (int)bt_message_get_type(in[i]));
      rc = -1;
    }
    bt_message_put_ref(in[i]);
  }
  return rc;
}

static bt_message_iterator_class_next_method_status
decode_iterator_next(bt_self_message_iterator *self, bt_message_array_const messages,
                     uint64_t capacity, uint64_t *count) {
  struct decode_iterator *it = bt_self_message_iterator_get_data(self);
  while (it->queue_count == 0) {
    bt_message_array_const in;
    uint64_t n;
    switch (bt_message_iterator_next(it->upstream, &in, &n)) {
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
      if (enqueue(it, in, n))
        return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
      break;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
      return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
      return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
    case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
      return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
    default: return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
    }
  }
  uint64_t n = it->queue_count < capacity ? it->queue_count : capacity;
  for (uint64_t i = 0; i < n; i++)
    messages[i] = it->queue[it->queue_head + i];
  it->queue_head += n;
  it->queue_count -= n;
  *count = n;
  return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

BT_PLUGIN_FILTER_COMPONENT_CLASS(decode, decode_iterator_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(
    decode,
    "Turn the tracer's call records into events with the calls' parameters by name and type.");
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(decode, decode_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(decode, decode_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(
    decode, decode_iterator_initialize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(decode,
                                                                        decode_iterator_finalize);
