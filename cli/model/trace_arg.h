/* trace_arg: one named value of a call (an argument as passed, a result, an out value),
 * as the reader decodes it from the call's record and the timeline shows it. Names and
 * strings are borrowed (see where the value came from). */
#ifndef TRACER_TRACE_ARG_H
#define TRACER_TRACE_ARG_H

#include <stdint.h>

enum trace_arg_kind {
  TRACE_ARG_INT,
  TRACE_ARG_UINT,
  TRACE_ARG_DOUBLE,
  TRACE_ARG_STRING,
  TRACE_ARG_POINTER,
};

struct trace_arg {
  const char *name;
  enum trace_arg_kind kind;
  union {
    int64_t i;
    uint64_t u;
    double d;
    const char *s;
  } v;
};

#endif
