/* yamldoc: a YAML file loaded as a libyaml document, with lookups that remember where
 * each node came from, so readers can report `file:line:col` for bad input.
 *
 * A struct yamldoc owns its libyaml document; yaml_node_t pointers returned by the
 * lookups are borrowed from it and live until yamldoc_free().
 */
#ifndef APIGEN_YAMLDOC_H
#define APIGEN_YAMLDOC_H

#include <stdbool.h>
#include <yaml.h>

#include "diag.h"

struct yamldoc {
  char *path; /* owned; as given by the caller, used in messages */
  yaml_document_t doc;
  bool loaded;
};

/* Loads path. A missing file or a YAML syntax error adds a located cause to d. */
int yamldoc_load(struct yamldoc *y, const char *path, struct diag *d);
/* Loads len bytes of text (not copied; need not end in NUL). name stands for the file
 * in messages. */
int yamldoc_load_buffer(struct yamldoc *y, const char *text, size_t len, const char *name,
                        struct diag *d);
void yamldoc_free(struct yamldoc *y);

yaml_node_t *yamldoc_root(struct yamldoc *y);
yaml_node_t *yamldoc_node(struct yamldoc *y, int index);

/* The scalar's text, or NULL when node is not a scalar. */
const char *yamldoc_scalar(const yaml_node_t *node);

/* Value of key in a mapping, or NULL when absent or node is not a mapping. */
yaml_node_t *yamldoc_get(struct yamldoc *y, yaml_node_t *mapping, const char *key);

/* Adds a cause located at node (libyaml marks start at 0; messages start at 1). */
int yamldoc_error(struct yamldoc *y, const yaml_node_t *node, struct diag *d, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));

/* Checks that every key of mapping is one of allowed (a NULL-terminated list), and that
 * the node is a mapping at all; adds a located cause for each offender. `what` names the
 * mapping in messages, e.g. "spec" or "param rule". */
int yamldoc_check_keys(struct yamldoc *y, yaml_node_t *mapping, const char *const *allowed,
                       const char *what, struct diag *d);

/* Iteration helpers for sequences and mappings. */
#define yamldoc_seq_length(node) ((int)((node)->data.sequence.items.top - (node)->data.sequence.items.start))
#define yamldoc_map_length(node) ((int)((node)->data.mapping.pairs.top - (node)->data.mapping.pairs.start))
yaml_node_t *yamldoc_seq_item(struct yamldoc *y, yaml_node_t *seq, int i);
yaml_node_t *yamldoc_map_key(struct yamldoc *y, yaml_node_t *map, int i);
yaml_node_t *yamldoc_map_value(struct yamldoc *y, yaml_node_t *map, int i);

#endif
