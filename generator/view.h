/* view: what the templates see. It turns a model (and the spec's `trace` section) into a
 * tree of ready-made strings: the args struct members, the LTTng field list of every
 * event, the call expression, hook and command wiring. Every decision that would need an
 * `if` in a template is taken here, so templates stay logic-less.
 */
#ifndef APIGEN_VIEW_H
#define APIGEN_VIEW_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

/* Returns the owned root of the view, or NULL with located causes in d (a command or hook
 * naming a function or param the model lacks, for instance). model_path names the model
 * file in generated comments. */
struct tree *view_build(const struct model *m, const struct spec *s, const char *model_path,
                        struct diag *d);

#endif
