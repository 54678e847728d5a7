/* batch_calls: minimal mode's `lttng_ust_<backend>:call` events, each a batch of one
 * thread's calls (runtime/tracer_record.h: the thread's ids, then per call its start, end
 * and call slots), as one event per call, named PROVIDER:F like a default-mode call, with
 * the head's fields and what slot 3 holds (the status or a status result), the fields
 * `tracer -t` shows for a batched call (record_fields.h with a record of the head alone).
 */
#ifndef TRACER_BT2_BATCH_CALLS_H
#define TRACER_BT2_BATCH_CALLS_H

#include <babeltrace2/babeltrace.h>
#include <stddef.h>
#include <stdint.h>

#include "tracer_backend_desc.h"
#include "tracer_record.h"

/* The backend whose batches ec carries (PROVIDER:call with a `calls` array of integers),
 * or NULL. */
const struct tracer_backend_desc *batch_calls_backend(const bt_event_class *ec);

/* The calls of a batch event's payload, as record heads (up to max); returns how many. */
size_t batch_calls_read(const bt_field *payload, uint64_t (*heads)[TRACER_RECORD_HEAD], size_t max);

/* A new event class of sc with this id for the batched calls of f; NULL on failure. The
 * stream class holds it. */
bt_event_class *batch_calls_event_class(bt_stream_class *sc, uint64_t id,
                                        const struct tracer_backend_desc *b,
                                        const struct tracer_function_desc *f);

#endif
