/* model_roles: what each param is for: in, out or in-out; a string; an array and its
 * length; optional. Each fact records where it came from, most trusted last:
 *   default  a guess (a non-const pointer to data is taken as out)
 *   c        the C declaration says so (scalars and const pointers are in; const char *
 *            is a string; a fixed-size array param has its size as length)
 *   doc      the header's doc comments: Level Zero's trailing `///< [in,out][optional]
 *            [range(0, *pCount)]`, Doxygen `\param[out] name` / `@param [in] name`, and
 *            CUDA's `\param name - Returned ...`
 *   spec     the spec's `params` rules
 */
#ifndef APIGEN_MODEL_ROLES_H
#define APIGEN_MODEL_ROLES_H

#include <clang-c/Index.h>

#include "diag.h"
#include "model.h"
#include "spec.h"

/* Sets roles of f's params from C and from the doc comments around fn. */
void model_roles_infer(struct model_function *f, CXCursor fn, CXTranslationUnit tu);
/* Names a callback typedef's params after the header's ParmDecls, and sets C roles. */
void model_roles_name_callback_params(struct model_function_pointer *fp, CXCursor typedef_decl);
/* Applies the spec's params rules; a rule that matches nothing, or a length naming no
 * param, is a located error. */
int model_roles_apply_spec(struct model *m, const struct spec *s, struct diag *d);

#endif
