/* view_recording: the parts of the view that steer the recording itself rather than one
 * call's events: calls that pause or resume it (trace.pause, trace.resume), calls that
 * open or close a named region (trace.regions), and what a library loaded by the API
 * itself (a collector or tool) exports besides the API (trace.exports).
 */
#ifndef APIGEN_VIEW_RECORDING_H
#define APIGEN_VIEW_RECORDING_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

/* Sets fn's `pause`, `resume`, `region_close` and `region_open` (a map with `name`, the C
 * expression of the region's name) for function f. */
void view_recording_function(const struct spec *s, const struct model_function *f,
                             struct tree *fn);

/* Sets the root's `collector` (the environment variable that loads the library, or "")
 * and `exports`, and reports patterns that matched nothing. Returns 0 or -1. */
int view_recording_root(const struct model *m, const struct spec *s, struct tree *root,
                        struct diag *d);

#endif
