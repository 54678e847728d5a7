/* view_callbacks: a tool that the API calls back (trace.callbacks), and calls tallied in
 * one row per value of a param (trace.rows).
 *
 * Each callback type the spec selects is traced like a function named after the type
 * without its _t (ompt_callback_target_emi_t -> ompt_callback_target_emi): the tool's own
 * function of that type, <backend>_on_<name>, records its calls, and it is registered
 * under the constant of that name. Callbacks called at both ends of what they describe
 * (trace.scope) are recorded once, at the end, timed from the begin.
 */
#ifndef APIGEN_VIEW_CALLBACKS_H
#define APIGEN_VIEW_CALLBACKS_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

/* The functions standing for the callback types the spec selects, in model order; each is
 * owned by the list (view_callbacks_free) and borrows its params from the model. */
void view_callbacks_select(const struct model *m, const struct spec *s, struct ptrvec *out);
void view_callbacks_free(struct ptrvec *callbacks);
/* Whether f is one of those, not a function of the model. A callback's command
 * (trace.commands) is recorded by the tool at the end of its scope: it gives the call no
 * meaning and no hooks time it. */
bool view_is_callback(const struct model *m, const struct model_function *f);

/* Sets fn's `typeof_expr` (what its type is the type of), and for a callback its
 * `callback` (the registration id), `scope` and `scope_command` (the code that records its
 * device work, trace.commands). Returns 0, or -1 with a located cause. */
int view_callbacks_function(const struct model *m, const struct spec *s,
                            const struct model_function *f, bool is_callback, struct tree *fn,
                            struct diag *d);

/* trace.rows over the traced functions (whose trees are root's `functions`, in order):
 * sets each one's `row_field`, `row_names` and `row_first`, adds the rows to the root's
 * `split_rows` and sets `desc_count`. Returns 0, or -1 with located causes. */
int view_callbacks_rows(const struct model *m, const struct spec *s, struct tree *root,
                        const struct model_function **traced, size_t count, struct diag *d);

#endif
