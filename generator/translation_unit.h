/* translation_unit: finds a spec's headers and parses them with libclang.
 *
 * The headers are resolved here, not by clang, so that a missing one is reported at the
 * spec line that names it. Declarations count as the backend's only when they live under
 * the folder of one of its headers (the "API folders"); translation_unit_in_api() tells.
 */
#ifndef APIGEN_TRANSLATION_UNIT_H
#define APIGEN_TRANSLATION_UNIT_H

#include <clang-c/Index.h>
#include <stdbool.h>

#include "diag.h"
#include "spec.h"
#include "util.h"

struct tu_config {
  struct ptrvec args;       /* char*: clang command-line arguments */
  struct ptrvec headers;    /* char*: resolved absolute header paths, in spec order */
  struct ptrvec api_dirs;   /* char*: folders whose declarations belong to the backend */
  struct ptrvec search_dirs; /* char*: include search path, spec dirs first */
  char *includes;           /* "#include" lines of every header, for synthetic sources */
};

int tu_config_init(struct tu_config *cfg, const struct spec *s, struct diag *d);
void tu_config_free(struct tu_config *cfg);

/* Parses cfg's headers followed by `extra` (may be NULL) as one C source named
 * "apigen-main.c". With report_errors, every error diagnostic becomes a located cause and
 * the call fails; without, the unit is returned whatever its diagnostics. */
int tu_parse(CXIndex index, const struct tu_config *cfg, const char *extra, bool report_errors,
             CXTranslationUnit *out, struct diag *d);

/* The name of the synthetic main source, for callers that read diagnostics themselves. */
#define TU_MAIN_NAME "apigen-main.c"

/* True when file lies in one of the API folders. */
bool tu_in_api(const struct tu_config *cfg, const char *file);
/* The path of file as an #include would name it ("CL/cl.h"); owned. */
char *tu_include_name(const struct tu_config *cfg, const char *file);
/* File path (owned, "" when none) and 1-based line/column where cursor c is spelled. */
char *tu_cursor_file(CXCursor c, unsigned *line, unsigned *column);

#endif
