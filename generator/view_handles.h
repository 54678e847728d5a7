/* view_handles: what the interposer itself defines for a backend's handles, devices and
 * datatypes, from the spec, where a hooks file would otherwise write it:
 * - trace.devices: devices that are ordinals, the thread's current one a command's, and
 *   their names, registered with the runtime (tracer_device_of_register);
 * - trace.communicators whose rank or size names a function of the model: the
 *   interposer's <prefix>_comm_rank (comm_size) asks it, through its out param;
 * - trace.handle_ids: the calls that make and free handles keep an id every process
 *   shares per handle (runtime/tracer_handle_ids.h), and trace.communicators' `id` is
 *   the interposer's <prefix>_<id> reading it;
 * - trace.element_sizes: the interposer's <prefix>_element_size(), a switch over the
 *   datatype constants.
 */
#ifndef APIGEN_VIEW_HANDLES_H
#define APIGEN_VIEW_HANDLES_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"
#include "util.h"

/* Before the functions are built: communicators whose rank or size is a query of the
 * model get the names of the functions the interposer defines. */
int view_handles_prepare(const struct model *m, const struct spec *s, struct diag *d);

/* The code after f's real call that keeps its handle's id (trace.handle_ids), appended
 * to after; false when f makes or frees none. */
bool view_handles_function(const struct spec *s, const struct model_function *f,
                           struct strbuf *after, struct diag *d, int *status);

/* The root's device_ordinals, communicator_queries, handle_ids, handle_id_functions and
 * element_sizes. */
int view_handles_root(const struct model *m, const struct spec *s, struct tree *root,
                      struct diag *d);

#endif
