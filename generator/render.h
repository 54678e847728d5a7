/* render: renders every template (templates/NAME.tmpl) over a backend's view, into
 * <outdir>/<backend>_NAME, C files laid out by clang-format (format.h). All files are
 * rendered and formatted in memory first and written only when every one succeeded, each
 * through a temporary file. A template that renders only white space gives no file (and
 * removes the one an earlier run left). */
#ifndef APIGEN_RENDER_H
#define APIGEN_RENDER_H

#include "diag.h"
#include "model.h"
#include "spec.h"

/* Returns APIGEN_EXIT_OK, APIGEN_EXIT_SPEC (the trace section does not fit the model, a
 * template fails) or APIGEN_EXIT_IO (formatting or writing failed), with causes in d. */
int render_backend(const struct model *m, const struct spec *s, const char *template_dir,
                   const char *outdir, const char *model_path, struct diag *d);

#endif
