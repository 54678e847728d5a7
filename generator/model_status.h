/* model_status: which calls of a traced backend return a status, and which of its values
 * mean success or "not ready yet" rather than an error, from the spec's trace.status.
 *
 * A function has a status when it has one of trace.status.params (which then carries
 * it), or when its result is spelled trace.status.type, unless trace.status.functions leaves it out or
 * trace.status.exclude names it. Its success and not-ready values come from the first
 * trace.status.rules entry that matches it, else from trace.status.success and
 * trace.status.not_ready. Values are resolved to integers here, once.
 */
#ifndef APIGEN_MODEL_STATUS_H
#define APIGEN_MODEL_STATUS_H

#include "diag.h"
#include "model.h"
#include "spec.h"

/* Sets model_function.status. Adds located causes to d and returns -1 for a value that
 * is neither an integer nor an integer constant of the model, or a pattern or rule that
 * matches no function. */
int model_status_apply(struct model *m, struct spec *s, struct diag *d);

#endif
