/* spec_yaml: the readers of spec values that spec.c and spec_device.c share. Each adds a
 * located cause to d and returns -1 for a value of the wrong form. */
#ifndef APIGEN_SPEC_YAML_H
#define APIGEN_SPEC_YAML_H

#include <stdbool.h>

#include "spec.h"
#include "yamldoc.h"

struct spec_loc spec_loc_of(const yaml_node_t *n);
/* A non-empty string at key of map into *out (owned); a missing key is an error only
 * when required. */
int spec_read_string(struct yamldoc *y, yaml_node_t *map, const char *key, bool required,
                     char **out, struct diag *d);
/* true, false, yes or no into *out (1 or 0). */
int spec_read_bool(struct yamldoc *y, yaml_node_t *n, int *out, struct diag *d);

#endif
