/* view_recording: the parts of the view that steer the recording itself rather than one
 * call's events: calls that pause or resume it (trace.pause, trace.resume), calls that
 * open, close or mark a named region or start and end a range (trace.regions), and what a library loaded by the API
 * itself (a collector or tool) exports besides the API (trace.exports).
 */
#ifndef APIGEN_VIEW_RECORDING_H
#define APIGEN_VIEW_RECORDING_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

/* Sets fn's `pause`, `resume` and `region` (a map with `code`, the statement that opens,
 * closes or marks a region, or starts or ends a range) for function f. prefix: of the
 * hook functions (<prefix>_region_name). */
void view_recording_function(const struct spec *s, const char *prefix,
                             const struct model_function *f, struct tree *fn);

/* Sets the root's `collector` (the environment variable that loads the library, or ""),
 * `exports` and `region_name_hooks` (the types the hooks name regions of), and reports
 * patterns that matched nothing and regions without a name param. Returns 0 or -1. */
int view_recording_root(const struct model *m, const struct spec *s, const char *prefix,
                        struct tree *root, struct diag *d);

#endif
