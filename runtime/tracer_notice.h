/* tracer_notice: sentences for the report that no call shows (the `notice` event of
 * lttng_ust_tracer): why a backend the app uses records nothing, or what a backend leaves
 * out by default. The analyses print each distinct one once, before the tables.
 *
 * Runtime callers: some libraries call an API for their own tools, not for the app
 * (libomp notifies ITT of its locks and barriers for Intel's tools). A backend names them
 * in its spec (trace.runtime_callers); their calls are not recorded unless the tracer
 * asks (`tracer --runtime-calls`, which sets TRACER_RUNTIME_CALLS=1 in the app).
 */
#ifndef TRACER_NOTICE_H
#define TRACER_NOTICE_H

#include <stdbool.h>

/* Writes one notice of backend. Not for signal handlers (it formats with vsnprintf). */
void tracer_notice(const char *backend, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The libraries whose calls of a backend are theirs, not the app's. */
struct tracer_runtime_callers {
  const char *backend;         /* "itt" */
  const char *api;             /* "ITT", for the notice */
  const char *const *patterns; /* fnmatch patterns of file names ("libomp.so*"), NULL-ended */
  int noticed;                 /* the notice that they are left out was written */
};

/* True when caller (a return address) lies in one of those libraries and the app's run
 * does not record runtime calls: the call is then not recorded. The first such call
 * writes a notice naming the library. */
bool tracer_caller_is_runtime(struct tracer_runtime_callers *callers, const void *caller);

#endif
