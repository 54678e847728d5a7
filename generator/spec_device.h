/* spec_device: the keys of a spec's trace section that say what calls do to a device
 * and its memory (docs/spec-format.md): commands, calls, kernel_names, directions and
 * copy_kinds. */
#ifndef APIGEN_SPEC_DEVICE_H
#define APIGEN_SPEC_DEVICE_H

#include "spec.h"
#include "yamldoc.h"

/* Reads those keys of the trace mapping n into t. */
int spec_read_device(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t, struct diag *d);
void spec_free_device(struct spec_trace *t);

#endif
