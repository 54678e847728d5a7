/* sampler_backend: what a generated <backend>_sampler.c gives the sampler (the spec's
 * `sample` section, templates/sampler.c.tmpl), and what the sampler gives it back: the
 * place to put each value read.
 *
 * A backend keeps its devices in static state between open() and close(); the sampler
 * calls it from one thread. Names are static strings.
 */
#ifndef TRACER_SAMPLER_BACKEND_H
#define TRACER_SAMPLER_BACKEND_H

#include <stddef.h>

enum { SAMPLER_MAX_DEVICES = 64, SAMPLER_MAX_DOMAINS = 16 };

/* The sampler's writer of values (sampler_emit.c): opaque to the backends. */
struct sampler_emit;

/* A value as it is now: `counter` of `device`, of its domain `domain` out of `domains`
 * (a device with several power or frequency domains gives one counter each). */
void sampler_emit_level(struct sampler_emit *e, unsigned device, const char *counter,
                        unsigned domain, unsigned domains, const char *unit, double value);
/* A cumulative value (energy, busy time) read with its own timestamp: what is recorded is
 * its change over the change of the timestamp since the last read, times scale; the
 * first read of a counter records nothing. */
void sampler_emit_rate(struct sampler_emit *e, unsigned device, const char *counter,
                       unsigned domain, unsigned domains, const char *unit, double amount,
                       double timestamp, double scale);

struct sampler_backend {
  const char *name;               /* the spec's backend: "nvml" */
  const char *library;            /* soname the sampler dlopens */
  const char *const *environment; /* NAME=VALUE set before it is opened; NULL-terminated */
  /* Resolves, initialises and lists the devices: their number, or -1 with why. */
  int (*open)(void *library, char *why, size_t size);
  void (*device_name)(unsigned device, char *name, size_t size);
  void (*read)(unsigned device, struct sampler_emit *e);
  void (*close)(void);
};

/* Every backend compiled in (sampler_registry.c, made by CMake), NULL-terminated. */
extern const struct sampler_backend *const sampler_backends[];

#endif
