/* model_write: renders a struct model as model.yaml text (libyaml's emitter), in a fixed
 * order and with no timestamps, so the same headers always give the same bytes. */
#ifndef APIGEN_MODEL_WRITE_H
#define APIGEN_MODEL_WRITE_H

#include "diag.h"
#include "model.h"

/* Returns the owned YAML text, or NULL with a cause in d. */
char *model_write_yaml(const struct model *m, struct diag *d);

#endif
