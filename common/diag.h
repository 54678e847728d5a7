/* diag: the error context shared by apigen and the tracer (one error model).
 *
 * Library code never prints or exits. It records what went wrong with diag_error() or
 * diag_error_at() (a cause, optionally tied to file:line:column) and returns a failure
 * status; a caller that knows more adds its own cause on top, so the causes form a chain,
 * innermost first. The command line prints them and maps the failure to an exit status
 * from its one table (apigen: generator/apigen_exit.h; tracer: cli/commands/commands.h).
 * Lines and columns start at 1, as in compilers' messages.
 *
 * Two renderings: diag_print(), compiler style, one cause a line with the source line and
 * a caret (apigen's located causes); diag_join(), the chain on one line, outermost cause
 * first ("Cannot write the timeline: Cannot create the timeline: file=x, ...", the
 * tracer's). Out of memory, a cause is dropped and counted, never fatal.
 */
#ifndef TRACER_COMMON_DIAG_H
#define TRACER_COMMON_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define DIAG_MAX_CAUSES 64

struct diag_cause {
  char *file; /* owned; NULL when the cause has no location */
  unsigned line, column;
  char *message; /* owned */
};

struct diag {
  struct diag_cause causes[DIAG_MAX_CAUSES];
  unsigned count;   /* causes kept */
  unsigned dropped; /* causes beyond DIAG_MAX_CAUSES, or lost for want of memory */
};

void diag_init(struct diag *d);
void diag_clear(struct diag *d);

/* Adds a cause without location. Always returns -1, so callers can `return diag_error(...)`. */
int diag_error(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int diag_verror(struct diag *d, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Adds a cause at file:line:column (1-based; 0 means unknown). Returns -1. */
int diag_error_at(struct diag *d, const char *file, unsigned line, unsigned column,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Prints every cause as `file:line:col: error: message`, with the source line and a caret
 * under the column when the file can be read. */
void diag_print(const struct diag *d, FILE *out, const char *program);

/* The chain on one line into buf, outermost cause first, joined by ": " ("" when d has
 * no cause). Returns buf. */
char *diag_join(const struct diag *d, char *buf, size_t size);

#endif
