/* control_error: see control_error.h. */
#include "control_error.h"

#include <stdarg.h>
#include <stdio.h>

enum session_status session_fail(struct session_error *error, enum session_status status,
                                 const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error->message, sizeof error->message, fmt, ap);
  va_end(ap);
  return status;
}

enum launch_status launch_fail(struct launch_error *error, enum launch_status status,
                               const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error->message, sizeof error->message, fmt, ap);
  va_end(ap);
  return status;
}
