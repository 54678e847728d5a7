/* apigen_exit: the exit statuses of apigen, documented in `apigen --help`. Its errors
 * are causes in a struct diag (common/diag.h). */
#ifndef APIGEN_EXIT_H
#define APIGEN_EXIT_H

enum apigen_exit {
  APIGEN_EXIT_OK = 0,
  APIGEN_EXIT_USAGE = 2,  /* bad command line */
  APIGEN_EXIT_SPEC = 3,   /* the spec cannot be read or is invalid */
  APIGEN_EXIT_HEADER = 4, /* a header is missing or does not compile */
  APIGEN_EXIT_MODEL = 5,  /* a model cannot be built, read or written */
  APIGEN_EXIT_IO = 6,     /* an output file cannot be written */
};

#endif
