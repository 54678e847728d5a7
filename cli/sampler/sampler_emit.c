/* sampler_emit: the values read, as events. See sampler_emit.h. */
#include "sampler_emit.h"

#include <stdio.h>

#include "sampler_tracepoints.h"

static void write_value(struct sampler_emit *e, unsigned device, const char *counter,
                        unsigned domain, unsigned domains, const char *unit, double value) {
  char name[96];
  if (domains > 1)
    snprintf(name, sizeof name, "%s.%u", counter, domain);
  else
    snprintf(name, sizeof name, "%s", counter);
  lttng_ust_tracepoint(lttng_ust_sampler, sample, e->backend->name, device, e->device_name, name,
                       unit, value);
  e->values++;
}

void sampler_emit_level(struct sampler_emit *e, unsigned device, const char *counter,
                        unsigned domain, unsigned domains, const char *unit, double value) {
  write_value(e, device, counter, domain, domains, unit, value);
}

void sampler_emit_rate(struct sampler_emit *e, unsigned device, const char *counter,
                       unsigned domain, unsigned domains, const char *unit, double amount,
                       double timestamp, double scale) {
  struct sampler_rate *r = NULL;
  for (unsigned i = 0; i < e->rate_count && !r; i++)
    if (e->rates[i].backend == e->backend && e->rates[i].counter == counter &&
        e->rates[i].device == device && e->rates[i].domain == domain)
      r = &e->rates[i];
  if (!r) {
    if (e->rate_count == SAMPLER_MAX_RATES)
      return;
    r = &e->rates[e->rate_count++];
    *r = (struct sampler_rate){e->backend, counter, device, domain, amount, timestamp};
    return; /* a rate needs two readings */
  }
  /* A counter that went back (a reset, a wrap) starts again from this reading. */
  if (timestamp > r->timestamp && amount >= r->amount)
    write_value(e, device, counter, domain, domains, unit,
                (amount - r->amount) / (timestamp - r->timestamp) * scale);
  r->amount = amount;
  r->timestamp = timestamp;
}
