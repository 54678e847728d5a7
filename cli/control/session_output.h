/* session_output: the folder a session writes its trace to. Internal to the session
 * module. */
#ifndef TRACER_SESSION_OUTPUT_H
#define TRACER_SESSION_OUTPUT_H

#include "session.h"

#include <stdbool.h>

/* Makes path ready for a new trace: an existing folder must be empty (a trace written
 * over another one would mix both, and readers would see one confused trace); a missing
 * one is created with mode 0700, and its missing parents as mkdir -p would. On success
 * *absolute_out is the folder's absolute path (owned by the caller), as LTTng requires,
 * and *created_out says whether this call made the folder. */
enum session_status session_output_prepare(const char *path, char **absolute_out,
                                           bool *created_out, struct session_error *error);

#endif
