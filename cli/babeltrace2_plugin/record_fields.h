/* record_fields: a call's record (runtime/tracer_record.h) as named, typed babeltrace2
 * fields, laid out by the backend's generated event description (generated/<b>/
 * <b>_events.c: struct tracer_function_desc), the same description `tracer -t` decodes
 * records with (cli/reports/text/trace_text.c).
 *
 * The fields of a call, in order: `start` and `end` (the trace clock around the real
 * call), `pid`, `tid`, `depth` (the head); then each named slot known at entry (the
 * arguments as passed), then each known at exit (result, status, out values), under the
 * slot's name. Integers keep their C type's size and signedness, addresses are shown in
 * hexadecimal, floating-point values as reals; a value the description names (enums,
 * statuses) is an enumeration whose labels are those names; an out value whose pointer
 * was NULL is an option without a value.
 */
#ifndef TRACER_BT2_RECORD_FIELDS_H
#define TRACER_BT2_RECORD_FIELDS_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "tracer_backend_desc.h"

/* Slots read from one record at most (the longest record has far fewer). */
enum { RECORD_FIELDS_MAX_SLOTS = 256 };

/* An integer field class of `bits` bits whose values' labels are names; NULL on failure. */
bt_field_class *record_fields_enumeration(bt_trace_class *tc, bool is_signed, unsigned bits,
                                          const struct tracer_names *names);

/* Appends the call's fields to payload (a structure field class of tc) for a record of
 * record_length slots; returns how many members it appended, or -1 on failure. */
int64_t record_fields_append_classes(bt_trace_class *tc, bt_field_class *payload,
                                     const struct tracer_function_desc *f, uint64_t record_length);

/* Sets the members record_fields_append_classes() appended (from member 0 of payload)
 * from the n slots of one record. Returns 0, or -1 when n differs from the length the
 * class was made for. */
int record_fields_set(bt_field *payload, const struct tracer_function_desc *f,
                      const uint64_t *slots, uint64_t n, uint64_t record_length);

#endif
