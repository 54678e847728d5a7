/* check: `tracer --check` (also `tracer doctor`). In a few lines, what a support engineer
 * asks first about a node: the LTTng versions found, whether a session daemon answers or
 * can be started, the trace clock a job would get and why, the backends built and the
 * real library each would trace here, the MPI launcher seen, and the free space where
 * traces go. It sets up a real session the way a run does (and removes it), so its
 * verdict is a run's, not a guess.
 *
 * Conventions: the request is borrowed for the call; the report goes to out, one line per
 * finding, each marked ok, info, warn or FAIL. Not thread-safe (it uses the session
 * module, see session.h).
 */
#ifndef TRACER_CHECK_H
#define TRACER_CHECK_H

#include <stdbool.h>
#include <stdio.h>

struct check_request {
  const char *version;       /* the tracer's */
  const char *trace_output;  /* --trace-output, or NULL */
  const char *trace_home;    /* where traces go without it (~/tracer-traces) */
  bool monotonic_clock;      /* --clock monotonic */
  /* The clock plugin a run would give a daemon it starts (NULL: none), and the path of
   * one of the tracer's libraries, libtracer_NAME.so (malloc'd; NULL when absent). */
  const char *clock_plugin;
  char *(*find_library)(const char *name);
};

/* Exit statuses of the check. */
enum check_exit {
  CHECK_TRACE_WOULD_WORK = 0,
  CHECK_TRACE_WOULD_FAIL = 1,
};

enum check_exit check_run(const struct check_request *request, FILE *out);

#endif
