/* tracer_tool: what a generated tool (templates/tools/tool.c.tmpl) shares with its hooks:
 * the table of its callbacks, and the begin times of callbacks called at both ends of
 * what they describe (a scope), so each can be recorded once, at its end.
 */
#ifndef TRACER_TOOL_H
#define TRACER_TOOL_H

#include <stdint.h>

typedef void tracer_callback_fn(void);

/* One callback of the tool: registered by the hooks under id. */
struct tracer_callback {
  int id;                    /* the API's id for this callback */
  const char *name;
  tracer_callback_fn *fn;    /* the tool's own */
  tracer_callback_fn **next; /* a chained tool's callback of this kind is stored here */
};

/* A table of function pointers by id that the API has its tool fill (the spec's
 * trace.callback_tables: NVTX's, one per module), as the backend implements it: the
 * function for each slot. */
struct tracer_slot {
  int id;
  tracer_callback_fn *fn;
};
struct tracer_slot_table {
  int module; /* the API's id for the table */
  const struct tracer_slot *slots;
  unsigned count;
};

/* Scopes nest on the thread that runs them: the begin time of the callback's innermost
 * open scope on this thread is kept until its end. */
void tracer_scope_begin(unsigned callback, uint64_t start);
/* The begin time of that scope, which closes; `now` when none is open on this thread (a
 * scope begun on another thread): such a scope then counts as taking no time. */
uint64_t tracer_scope_end(unsigned callback, uint64_t now);

#endif
