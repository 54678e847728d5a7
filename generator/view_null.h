/* view_null: what templates/null_library.c.tmpl needs to write a backend's null
 * implementation: one function per model function (variadic and unprototyped ones
 * excepted) that zeroes its out params, writes the spec's success status into status
 * out-params and returns that status (or zero). docs/null-library.md says what it is for.
 */
#ifndef APIGEN_VIEW_NULL_H
#define APIGEN_VIEW_NULL_H

#include "model.h"
#include "spec.h"
#include "tree.h"

/* Adds `null_functions` (name, header, prototype, body: list of `line`) and
 * `null_skipped` (name, why) to root. */
void view_null(const struct model *m, const struct spec *s, struct tree *root);

#endif
