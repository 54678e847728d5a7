/* view_device: the part of the view that wires a backend's device machinery from its
 * spec (runtime/tracer_device.h, tracer_pending.h): per function its command
 * (trace.commands: kind, queue, kernel, bytes, completion, direction, a copy's ends, and
 * whether the hooks or the runtime time it), what its call does to the allocations the
 * runtime keeps (trace.calls with a pointer), the kernel it names (trace.kernel_names),
 * and whether it drains the pending commands (a sync call); per backend its struct
 * tracer_device (the hooks' kernel_name and memory_of, trace.copy_kinds) and the table
 * of trace.directions.
 *
 * Keys per function: command {kind, queue, kernel, bytes, completion, direction, src,
 * dst, named_copy, hooks, host, success}, allocation {pointer, bytes, memory, success},
 * deallocation {pointer}, kernel_named {kernel, name, success}, drain. At the root, for a
 * backend with commands: device {kernel_name, memory_of, copy_names}, directions
 * [{value, direction}], command_hooks, kernel_name_hook, memory_hook.
 */
#ifndef APIGEN_VIEW_DEVICE_H
#define APIGEN_VIEW_DEVICE_H

#include "diag.h"
#include "model.h"
#include "spec.h"
#include "tree.h"

struct view_device;

/* prefix: of the hook functions (<prefix>_kernel_name). */
struct view_device *view_device_new(const struct model *m, const struct spec *s, struct diag *d,
                                    const char *prefix);
void view_device_function(struct view_device *v, const struct model_function *f, struct tree *fn);
/* Whether the interposer's wrapper of f puts work on a device (a trace.commands entry that
 * is no tool callback's): such a call keeps its stack. */
bool view_device_submits(const struct view_device *v, const struct model_function *f);
/* Adds the root keys and checks every entry matched; frees v. Returns 0 or -1 (causes in
 * d). */
int view_device_finish(struct view_device *v, struct tree *root);

#endif
