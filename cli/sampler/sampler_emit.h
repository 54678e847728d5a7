/* sampler_emit: writes the values a backend reads as lttng_ust_sampler:sample events,
 * keeping the last reading of each cumulative counter to record its rate. */
#ifndef TRACER_SAMPLER_EMIT_H
#define TRACER_SAMPLER_EMIT_H

#include "sampler_backend.h"

enum { SAMPLER_MAX_RATES = 1024 };

struct sampler_rate {
  const struct sampler_backend *backend;
  const char *counter; /* static: compared by address */
  unsigned device, domain;
  double amount, timestamp;
};

struct sampler_emit {
  const struct sampler_backend *backend; /* borrowed: the one being read */
  const char *device_name;               /* borrowed */
  unsigned long values;                  /* written so far */
  struct sampler_rate rates[SAMPLER_MAX_RATES];
  unsigned rate_count;
};

#endif
