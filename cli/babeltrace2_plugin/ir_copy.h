/* ir_copy: copies of babeltrace2 trace-IR objects for a filter that rewrites events.
 *
 * A filter that changes an event's fields needs event classes of its own, and those live
 * in stream classes and trace classes of its own: so the filter keeps, for every upstream
 * clock class, trace class, trace, stream class and stream, the copy it made the first
 * time it met it (struct ir_map), and copies field classes and fields between them.
 *
 * Copies are made with the filter's own self component and trace classes; the map owns
 * one reference to each copy and drops them in ir_map_clear(). The upstream objects are
 * borrowed: they only serve as keys, and stay alive while their messages flow.
 * Every function returns 0 on success, -1 on failure (out of memory, a field class kind
 * that LTTng traces do not have); the ir_map_* functions also append a babeltrace2 error
 * cause, the ir_copy_* ones leave that to their caller, which knows the event.
 */
#ifndef TRACER_BT2_IR_COPY_H
#define TRACER_BT2_IR_COPY_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>

struct ir_pair {
  const void *in;
  void *out;   /* owned */
  void *extra; /* stream: its current packet (owned), or NULL */
};

struct ir_pairs {
  struct ir_pair *items;
  size_t count, capacity;
};

struct ir_map {
  bt_self_component *self;
  struct ir_pairs clock_classes, trace_classes, traces, stream_classes, streams;
};

void ir_map_clear(struct ir_map *map);

/* The copy of an upstream clock class (NULL in, NULL out). */
int ir_map_clock_class(struct ir_map *map, const bt_clock_class *in, bt_clock_class **out);
/* The copies of an upstream stream's class (without its event classes: the caller maps
 * those) and of the stream itself, created with the same ids, names and properties. */
int ir_map_stream_class(struct ir_map *map, const bt_stream_class *in, bt_stream_class **out);
int ir_map_stream(struct ir_map *map, const bt_stream *in, bt_stream **out);
/* The stream's packet slot: the copy of its packet now open (NULL when none). */
bt_packet **ir_map_stream_packet(struct ir_map *map, const bt_stream *in);

/* A new field class of trace class tc, of the same kind and properties as in, members
 * and elements copied. Dynamic arrays are copied without a linked length field (their
 * length field stays a member of its own), which prints the same. */
int ir_copy_field_class(bt_trace_class *tc, const bt_field_class *in, bt_field_class **out);
/* Sets out, a field of a class ir_copy_field_class() made from in's class, to in's value. */
int ir_copy_field(const bt_field *in, bt_field *out);

#endif
