/* spec_init: `apigen --init HEADER...`, a starting spec for a C library from its headers.
 *
 * It parses the headers (adding each define a header's `#error NAME must be defined`
 * asks for), finds the Debian package that installs them and, among the package's
 * libraries, the one that exports the most of their functions (its soname is the spec's
 * `library`, unless --library names one), selects the functions the package's headers
 * declare by their prefixes, and infers the status of each result from the header's own
 * words (spec_init_status.c). The spec is written with a comment on each inferred line,
 * after its model was built once to prove that it fits the headers.
 */
#ifndef APIGEN_SPEC_INIT_H
#define APIGEN_SPEC_INIT_H

#include <stddef.h>

struct spec_init_options {
  const char *const *headers; /* as an #include names them, or paths */
  size_t header_count;
  const char *library; /* --library SONAME; may be NULL */
  const char *backend; /* --backend NAME; may be NULL */
  const char *output;  /* a file; NULL: standard output */
};

/* Writes the spec; returns an apigen exit status (apigen_exit.h), with the causes of a
 * failure printed on standard error. */
int spec_init_write(const struct spec_init_options *o);

#endif
