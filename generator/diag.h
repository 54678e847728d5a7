/* diag: error context shared by apigen's modules.
 *
 * Library code never prints or exits. It records what went wrong with diag_error() or
 * diag_error_at() (a cause, optionally tied to file:line:column) and returns a failure
 * status; the command line prints the chain with diag_print() and maps it to an exit
 * code from enum apigen_exit. Lines and columns start at 1, as in compilers' messages.
 */
#ifndef APIGEN_DIAG_H
#define APIGEN_DIAG_H

#include <stdarg.h>
#include <stdio.h>

/* Exit codes of apigen, documented in `apigen --help`. */
enum apigen_exit {
  APIGEN_EXIT_OK = 0,
  APIGEN_EXIT_USAGE = 2,  /* bad command line */
  APIGEN_EXIT_SPEC = 3,   /* the spec cannot be read or is invalid */
  APIGEN_EXIT_HEADER = 4, /* a header is missing or does not compile */
  APIGEN_EXIT_MODEL = 5,  /* a model cannot be built, read or written */
  APIGEN_EXIT_IO = 6,     /* an output file cannot be written */
};

#define DIAG_MAX_CAUSES 64

struct diag_cause {
  char *file; /* owned; NULL when the cause has no location */
  unsigned line, column;
  char *message; /* owned */
};

struct diag {
  struct diag_cause causes[DIAG_MAX_CAUSES];
  unsigned count;   /* causes kept */
  unsigned dropped; /* causes beyond DIAG_MAX_CAUSES */
};

void diag_init(struct diag *d);
void diag_clear(struct diag *d);

/* Adds a cause without location. Always returns -1, so callers can `return diag_error(...)`. */
int diag_error(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Adds a cause at file:line:column (1-based; 0 means unknown). Returns -1. */
int diag_error_at(struct diag *d, const char *file, unsigned line, unsigned column,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Prints every cause as `file:line:col: error: message`, with the source line and a caret
 * under the column when the file can be read. */
void diag_print(const struct diag *d, FILE *out, const char *program);

#endif
