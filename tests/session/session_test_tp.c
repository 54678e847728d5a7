/* Instantiates the session_test tracepoint probes in the test app. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "session_test_tp.h"
