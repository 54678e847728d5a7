/* window_build: the window a command line asks for (--window, --skip-steps, --from,
 * --to), made into the reader's filter (trace_window.h) from the steps and regions each
 * process recorded (steps.h). Each part restricts every process's run, and the window is
 * what all of them leave (their intersection):
 *   --window NAME   the instances of the regions whose name matches NAME (fnmatch: a
 *                   name, or a pattern such as 'Step.[3-9]'), outermost ones only;
 *   --skip-steps N  the process's steps (steps.h) after its first N;
 *   --from, --to    from and to a time, in seconds from the process's first record, or
 *                   from the start of the first region NAME matches and to the end of
 *                   the last one.
 * A process where one of them finds nothing is left out of the window.
 */
#ifndef TRACER_WINDOW_BUILD_H
#define TRACER_WINDOW_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "steps.h"
#include "trace_window.h"

struct window_request {
  const char *region;     /* --window; NULL: none */
  bool skip_asked;        /* --skip-steps given */
  unsigned skip_steps;
  const char *from, *to;  /* --from, --to: seconds ("2.5") or a region name; NULL: none */
};

static inline bool window_requested(const struct window_request *r) {
  return r && (r->region || r->skip_asked || r->from || r->to);
}

/* Whether text is a number of seconds (else a region name). */
bool window_is_seconds(const char *text, double *seconds);

/* The request in words, as the command line gave it ("--skip-steps 3, --window Step.*"),
 * for a report that names the window without its steps (a job's). */
void window_request_label(const struct window_request *request, char *out, size_t size);

/* Makes the window request asks for, on reader's trace: finds its steps (steps_pattern:
 * --steps PATTERN, or NULL) and sets the reader's window (trace_reader_set_window) to
 * *window, which the caller frees after the reader's last read. Returns as
 * window_build(), and -1 when the trace cannot be read. */
int window_apply(struct trace_reader *reader, const struct window_request *request,
                 const char *steps_pattern, unsigned threads, struct trace_window *window,
                 struct diag *d);

enum { WINDOW_BAD_INPUT = -2 };

/* The window of request over the processes of steps into *window. Returns 0; -1 with a
 * cause in d when out of memory; WINDOW_BAD_INPUT with a one-line cause in d when the
 * request finds nothing (a name no region has, a window that holds no part of any
 * process's run, steps asked where none are). */
int window_build(const struct window_request *request, const struct steps *steps,
                 struct trace_window *window, struct diag *d);

#endif
