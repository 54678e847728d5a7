/* view_dispatch: what templates/dispatch.c.tmpl needs to route calls made through
 * dispatch tables (Level Zero's ze*GetProcAddrTable) into the interposer.
 *
 * A function named by the spec's trace.dispatch_tables fills a struct of function
 * pointers. Its wrapper gets an `after` hook, generated here, that replaces each entry
 * with the interposer's wrapper of the same API function, so that calls made through the
 * table are traced like calls of the exported symbols. An entry is matched to a function
 * by the naming convention of its type: `<prefix>_pfn<Name>_t` holds `<prefix><Name>`;
 * the compiler checks that the types agree.
 */
#ifndef APIGEN_VIEW_DISPATCH_H
#define APIGEN_VIEW_DISPATCH_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

/* Adds `dispatch_getters` (name, args_type, table, entries: field and function,
 * unwrapped: field and why) to root and turns on hook_after for those functions. Returns
 * -1 with a located cause when a pattern matches nothing or a matched function fills no
 * table. */
int view_dispatch(const struct model *m, const struct spec *s, struct tree *root,
                  struct diag *d);

#endif
