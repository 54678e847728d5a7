/* The sampler's LTTng-UST provider (sampler_tracepoints.h), instantiated once. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "sampler_tracepoints.h"
