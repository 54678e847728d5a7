/* view_expr: C expressions over a function's params, as the spec writes them
 * (`num_entries`, `*pCount`, `desc->count`, `config->hStream`), turned into C over the
 * generated code's copy of the arguments (`tracer_args.`), guarded so that a NULL pointer
 * param gives 0 rather than a crash. */
#ifndef APIGEN_VIEW_EXPR_H
#define APIGEN_VIEW_EXPR_H

#include <stddef.h>

#include "model.h"

/* The param of f named by the len bytes at name, or NULL. */
const struct model_param *view_param_named(const struct model_function *f, const char *name,
                                           size_t len);

/* A length expression as a size_t over the args at base ("tracer_args->"): 0 when the
 * first pointer param it names is NULL. Owned. */
char *view_length_expr(const struct model_function *f, const char *expr, const char *base);

/* A value as a uintptr_t over the args at base: a param as it is, or 0 when an expression
 * reads through a pointer param that is NULL. Owned; NULL when expr names no param. */
char *view_value_expr(const struct model_function *f, const char *expr, const char *base);

/* The same as a const char * (a name), NULL when a pointer param it reads through is. */
char *view_string_expr(const struct model_function *f, const char *expr, const char *base);

#endif
