/* spec_glue: the keys of a spec's trace section that say what hooks files used to say in
 * a few lines of glue each (docs/spec-format.md): results, add_flags, entry_points,
 * drain_after, hooks_calls, callback_tables and predefined_macro. */
#ifndef APIGEN_SPEC_GLUE_H
#define APIGEN_SPEC_GLUE_H

#include "spec.h"
#include "yamldoc.h"

/* Reads those keys of the trace mapping n into t. */
int spec_read_glue(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t, struct diag *d);
void spec_free_glue(struct spec_trace *t);

#endif
