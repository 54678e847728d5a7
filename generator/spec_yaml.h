/* spec_yaml: the readers of spec values that spec.c, spec_device.c and spec_glue.c share. Each adds a
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
/* A list of strings at n (one string is a list of one) into out, as struct spec_pattern*
 * (patterns) or struct spec_string*; key names it in messages. */
int spec_read_list(struct yamldoc *y, yaml_node_t *n, const char *key, bool patterns,
                   struct ptrvec *out, struct diag *d);
/* A mapping NAME: {...} at n (NAME: a function, a glob or a module) whose bodies have the
 * given keys, named `what` (trace.what) and `label` in messages: calls read() on each
 * entry. */
int spec_read_entries(struct yamldoc *y, yaml_node_t *n, const char *what, const char *label,
                      const char *const *keys,
                      int (*read)(struct yamldoc *, const char *, struct spec_loc, yaml_node_t *,
                                  struct spec_trace *, struct diag *),
                      struct spec_trace *t, struct diag *d);
/* A mapping CONSTANT: VALUE at n (trace.directions, trace.element_sizes), named `what`
 * (trace.what) and VALUE `value_name` in messages: calls add() on each pair of non-empty
 * scalars, with the key's node for a located cause. */
int spec_read_pairs(struct yamldoc *y, yaml_node_t *n, const char *what, const char *value_name,
                    int (*add)(struct yamldoc *, yaml_node_t *key, yaml_node_t *value,
                               const char *constant, const char *text, struct spec_trace *,
                               struct diag *),
                    struct spec_trace *t, struct diag *d);
/* true, false, yes or no into *out (1 or 0). */
int spec_read_bool(struct yamldoc *y, yaml_node_t *n, int *out, struct diag *d);

#endif
