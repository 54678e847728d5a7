/* view_rma_sync: a function's trace.rma_sync entry (what the call does to synchronize an
 * RMA window) as the slots its record needs and its description in the backend's
 * tables: `rma_sync` of the function's tree, a struct tracer_rma_sync initializer
 * (runtime/tracer_backend_desc.h). */
#ifndef APIGEN_VIEW_RMA_SYNC_H
#define APIGEN_VIEW_RMA_SYNC_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"
#include "view_record.h"

/* The first trace.rma_sync entry matching f (counted as matched), or NULL. */
struct spec_rma_sync *view_rma_sync_of(const struct spec *s, const struct model_function *f);

/* The slots r needs in f's record, added to extra: the window's value as passed when its
 * param points to it (the call frees it), and `lock_shared` for a lock's `shared`. Returns
 * 0, or -1 (diagnosed) when r names no param of f. */
int view_rma_sync_slots(const struct spec *s, const struct model_function *f,
                        const struct spec_rma_sync *r, struct view_record_extra *extra,
                        struct diag *d);

/* Sets `rma_sync` of fn (the record's slots known) to r's description, or to none. */
void view_rma_sync_describe(const struct spec_rma_sync *r, struct tree *fn);

/* Adds `no_rma_sync` to root; diagnoses entries that matched no function. */
int view_rma_sync_finish(const struct spec *s, struct tree *root, struct diag *d);

#endif
