/* The test app's own tracepoint provider, in the standard lttng-ust 2.13 shape. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER session_test

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./session_test_tp.h"

#if !defined(SESSION_TEST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SESSION_TEST_TP_H

#include <lttng/tracepoint.h>

/* One event per step of the app: seq numbers them, tag says which run (and which process
 * of the run) emitted it, so traces of concurrent runs can be told apart. */
LTTNG_UST_TRACEPOINT_EVENT(session_test, tick,
                           LTTNG_UST_TP_ARGS(int, seq, const char *, tag),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, seq, seq)
                                                   lttng_ust_field_string(tag, tag)))

#endif

#include <lttng/tracepoint-event.h>
