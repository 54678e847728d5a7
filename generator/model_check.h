/* model_check: writes a C program that proves a written model.yaml exact.
 *
 * The program includes the real headers and, for every function, typedef, function
 * pointer type, enum constant, struct or union field and macro constant of the model,
 * asks the compiler whether the model's declaration is the header's: function types with
 * __builtin_types_compatible_p, values and layouts with _Static_assert. What cannot be a
 * constant expression (bit-field positions, string constants) is checked when the program
 * runs. It prints what it checked per kind and exits non-zero on any mismatch.
 */
#ifndef APIGEN_MODEL_CHECK_H
#define APIGEN_MODEL_CHECK_H

#include "diag.h"
#include "spec.h"
#include "util.h"
#include "yamldoc.h"

int model_check_write_source(const struct spec *s, const char *model_path,
                             const char *out_path, struct diag *d);

/* The same program for a model already loaded (borrowed), into *out (initialized here,
 * owned by the caller after a success; nothing to free after a failure). */
int model_check_build_source(const struct spec *s, struct yamldoc *model, struct strbuf *out,
                             struct diag *d);

#endif
