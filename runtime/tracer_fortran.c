/* tracer_fortran: see tracer_fortran.h. */
#include "tracer_fortran.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SCRATCH_SLOTS = 4 };

struct scratch {
  void *data;
  size_t size;
};

static __thread struct scratch scratch[SCRATCH_SLOTS];

const char *tracer_fortran_string(char *to, size_t size, const void *from, size_t length) {
  if (!size)
    return to;
  size_t n = from ? length : 0;
  const char *text = from;
  while (n > 0 && text[n - 1] == ' ')
    n--;
  if (n > size - 1)
    n = size - 1;
  if (n)
    memcpy(to, text, n);
  to[n] = '\0';
  return to;
}

void *tracer_fortran_scratch(unsigned slot, long long count, size_t size) {
  if (slot >= SCRATCH_SLOTS || count <= 0 || size == 0 ||
      (unsigned long long)count > SIZE_MAX / size)
    return NULL;
  size_t bytes = (size_t)count * size;
  struct scratch *s = &scratch[slot];
  if (bytes > s->size) {
    void *grown = realloc(s->data, bytes);
    if (!grown)
      return NULL;
    s->data = grown;
    s->size = bytes;
  }
  return s->data;
}
