/* log: a command's own messages on standard error, by level (error, warn, info, debug),
 * one `-v` or `-q` away from each other. Only commands log: library code returns a
 * status and its causes (diag.h), and the command decides what to say.
 *
 *   error  "PROGRAM: error: MESSAGE"   always, even with -q
 *   warn   "PROGRAM: MESSAGE"          something went wrong, the run goes on
 *   info   "PROGRAM: MESSAGE"          what was done (trace saved, timeline written)
 *   debug  "PROGRAM: debug: MESSAGE"   with -v
 * The default level is info; -q sets error, -v debug.
 */
#ifndef TRACER_COMMON_LOG_H
#define TRACER_COMMON_LOG_H

#include <stdbool.h>

#include "diag.h"

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* The program's name for its lines and the most verbose level shown. */
void log_setup(const char *program, enum log_level level);
enum log_level log_level(void);
bool log_enabled(enum log_level level);

void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An error: PREFIX (may be NULL) and the chain of causes in d on one line (diag_join). */
void log_diag(const struct diag *d, const char *prefix);

#endif
