/* tracer_tool: see tracer_tool.h. */
#include "tracer_tool.h"

#include <stdlib.h>

enum { SCOPE_CALLBACKS = 256, SCOPE_DEPTH = 16 };
struct scope_stack {
  uint64_t start[SCOPE_DEPTH];
  unsigned depth; /* may exceed the array: deeper scopes are not timed */
};

/* Allocated on a thread's first scope (a tool is loaded late, by the API's runtime,
 * where static TLS has no room for more), never freed. */
static __thread struct scope_stack *stacks;

void tracer_scope_begin(unsigned callback, uint64_t start) {
  if (callback >= SCOPE_CALLBACKS ||
      (!stacks && !(stacks = calloc(SCOPE_CALLBACKS, sizeof *stacks))))
    return;
  struct scope_stack *s = &stacks[callback];
  if (s->depth < SCOPE_DEPTH)
    s->start[s->depth] = start;
  s->depth++;
}

uint64_t tracer_scope_end(unsigned callback, uint64_t now) {
  if (callback >= SCOPE_CALLBACKS || !stacks || stacks[callback].depth == 0)
    return now;
  struct scope_stack *s = &stacks[callback];
  s->depth--;
  return s->depth < SCOPE_DEPTH ? s->start[s->depth] : now;
}
