/* backends: lookups over the compiled-in backend descriptions. */
#include "backends.h"

#include <string.h>

size_t backends_count(void) {
  size_t n = 0;
  while (tracer_backends[n])
    n++;
  return n;
}

const struct tracer_backend_desc *backends_find(const char *name) {
  for (size_t i = 0; tracer_backends[i]; i++)
    if (strcmp(tracer_backends[i]->name, name) == 0)
      return tracer_backends[i];
  return NULL;
}

const struct tracer_backend_desc *backends_find_provider(const char *provider, size_t len) {
  for (size_t i = 0; tracer_backends[i]; i++)
    if (strlen(tracer_backends[i]->provider) == len &&
        strncmp(tracer_backends[i]->provider, provider, len) == 0)
      return tracer_backends[i];
  return NULL;
}

int backends_function_index(const struct tracer_backend_desc *b, const char *name, size_t len) {
  /* Event classes are mapped once per trace, so a linear scan is fine here. */
  for (uint32_t i = 0; i < b->function_count; i++)
    if (strlen(b->functions[i].name) == len && strncmp(b->functions[i].name, name, len) == 0)
      return (int)i;
  return -1;
}
