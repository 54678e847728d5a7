/* backends: the backend descriptions compiled into the tracer (generated/<b>/<b>_events.c,
 * one per backend with an interposer), looked up by name or provider. */
#ifndef TRACER_BACKENDS_H
#define TRACER_BACKENDS_H

#include <stddef.h>

#include "tracer_backend_desc.h"

/* NULL-terminated, in name order; defined in the build's backend_registry.c. */
extern const struct tracer_backend_desc *const tracer_backends[];

size_t backends_count(void);
const struct tracer_backend_desc *backends_find(const char *name);
const struct tracer_backend_desc *backends_find_provider(const char *provider, size_t len);
/* Index of a function of b by name, -1 when b has none of that name. */
int backends_function_index(const struct tracer_backend_desc *b, const char *name, size_t len);

#endif
