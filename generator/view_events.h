/* view_events: the part of the view that describes events for the analyses: value-name
 * tables (enums, statuses), struct layouts, and per function the status source and how
 * to show its fields. Rendered by templates/events.c.tmpl into <backend>_events.c. */
#ifndef APIGEN_VIEW_EVENTS_H
#define APIGEN_VIEW_EVENTS_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

/* Adds `names`, `records`, `status_names`, `success` to root, and `formats` and
 * `status_source` to each item of root's `functions` (traced[i] is its model function). */
int view_events(const struct model *m, const struct spec *s, struct tree *root,
                const struct model_function *const *traced, size_t count, struct diag *d);

#endif
