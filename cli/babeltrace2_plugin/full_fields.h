/* full_fields: the fields of a full-mode call event after its record (trace-format.md:
 * strings, `<param>_vals` arrays, `<param>_bytes`), shown as `tracer -t` shows them: the
 * bytes of a struct the event description lays out (struct tracer_record) become an array
 * of structures, member by member; integers and arrays of integers whose values the
 * description names become enumerations. Everything else is copied as recorded.
 *
 * A field's description is looked up by its name less a trailing `_out` (the value after
 * the call), as `tracer -t` does (backends_field_format()).
 */
#ifndef TRACER_BT2_FULL_FIELDS_H
#define TRACER_BT2_FULL_FIELDS_H

#include <babeltrace2/babeltrace.h>

#include "tracer_backend_desc.h"

/* The class of the field `name` (of upstream class in) of a full event of f, new in tc;
 * -1 on failure. */
int full_fields_class(bt_trace_class *tc, const struct tracer_function_desc *f, const char *name,
                      const bt_field_class *in, bt_field_class **out);

/* Sets out, of the class full_fields_class() made, from in; -1 on failure. */
int full_fields_set(const struct tracer_function_desc *f, const char *name, const bt_field *in,
                    bt_field *out);

#endif
