/* model_build: turns a spec and its parsed headers into a struct model.
 *
 * Selection: functions, types and constants whose names match the spec's `select`
 * patterns (and none of its `exclude` patterns) and that are declared under the API
 * folders; then every type those declarations name, transitively, so the model is
 * self-contained. Entries keep the order of the headers. A pattern or param rule that
 * matches nothing is an error located at its spec line.
 */
#ifndef APIGEN_MODEL_BUILD_H
#define APIGEN_MODEL_BUILD_H

#include "diag.h"
#include "model.h"
#include "spec.h"

/* Fills m (which the caller frees with model_free, also on failure). Returns 0, or the
 * exit status for the failure: APIGEN_EXIT_HEADER when a header is missing or does not
 * compile, APIGEN_EXIT_SPEC when the spec does not fit the headers (a pattern or rule
 * matches nothing), APIGEN_EXIT_MODEL when the constants cannot be evaluated. */
int model_build(const struct spec *s, struct model *m, struct diag *d);

#endif
