/* render: renders every template (templates/NAME.tmpl) over a backend's view, into
 * <outdir>/<backend>_NAME. All files are rendered in memory first and written only when
 * every one succeeded, each through a temporary file. */
#ifndef APIGEN_RENDER_H
#define APIGEN_RENDER_H

#include "diag.h"
#include "model.h"
#include "spec.h"

int render_backend(const struct model *m, const struct spec *s, const char *template_dir,
                   const char *outdir, const char *model_path, struct diag *d);

#endif
