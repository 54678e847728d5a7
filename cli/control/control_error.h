/* control_error: fills the error structs of session and launch with one sentence and
 * returns the status, so failure paths stay one line: `return session_fail(...)`. */
#ifndef TRACER_CONTROL_ERROR_H
#define TRACER_CONTROL_ERROR_H

#include "launch.h"
#include "session.h"

enum session_status session_fail(struct session_error *error, enum session_status status,
                                 const char *fmt, ...) __attribute__((format(printf, 3, 4)));
enum launch_status launch_fail(struct launch_error *error, enum launch_status status,
                               const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
