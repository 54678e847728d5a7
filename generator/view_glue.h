/* view_glue: the part of the view that wires what hooks files used to say in a few lines
 * of glue (spec_glue.c): per function the code that runs before the real call
 * (glue_before: trace.add_flags) and after it (glue_after: trace.results, in a collector;
 * trace.entry_points; trace.drain_after), each one string of C over tracer_args; at the
 * root the library functions the hooks call (hooks_calls: [{name}], the names called) and
 * the callback tables of a tool (callback_tables: [{module, index, slots: [{id,
 * function}]}]), and the macro that names the library's predefined objects
 * (predefined_macro: {name}).
 */
#ifndef APIGEN_VIEW_GLUE_H
#define APIGEN_VIEW_GLUE_H

#include <stdbool.h>

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

/* Sets f's glue keys in fn; true when some code reads or changes the arguments. Adds a
 * located cause to d and sets *status to -1 for an entry that does not fit f. */
bool view_glue_function(const struct spec *s, const struct model_function *f, struct tree *fn,
                        struct diag *d, int *status);
/* Adds the root keys and checks that every entry matched a function. Returns 0 or -1. */
int view_glue_root(const struct model *m, const struct spec *s, struct tree *root,
                   struct diag *d);

#endif
