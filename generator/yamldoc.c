/* yamldoc: libyaml's document API with located errors. */
#include "yamldoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Counts one more reference to node `index`; a second one is an error. */
static int reference(struct yamldoc *y, unsigned char *refs, int index, struct diag *d) {
  if (refs[index]++ == 0)
    return 0;
  return yamldoc_error(y, yamldoc_node(y, index), d,
                       "Cannot read YAML: the node anchored here is used again through an "
                       "alias (aliases are not supported)");
}

/* apigen's readers walk plain trees. An alias makes a node reachable twice, so a few bytes
 * could stand for a document too large to walk, or for one that contains itself (a
 * bottomless recursion found by tests/fuzz/fuzz_model_check.c): both are refused here,
 * for every reader, by checking that no node has two parents. */
static int check_tree(struct yamldoc *y, struct diag *d) {
  int count = (int)(y->doc.nodes.top - y->doc.nodes.start);
  unsigned char *refs = xcalloc((size_t)count + 1, 1); /* node indices start at 1 */
  refs[1] = 1;                                          /* the root */
  int rc = 0;
  for (int i = 1; i <= count && rc == 0; i++) {
    yaml_node_t *n = yamldoc_node(y, i);
    if (n->type == YAML_SEQUENCE_NODE) {
      for (yaml_node_item_t *item = n->data.sequence.items.start;
           item < n->data.sequence.items.top && rc == 0; item++)
        rc = reference(y, refs, *item, d);
    } else if (n->type == YAML_MAPPING_NODE) {
      for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
           p < n->data.mapping.pairs.top && rc == 0; p++) {
        rc = reference(y, refs, p->key, d);
        if (rc == 0)
          rc = reference(y, refs, p->value, d);
      }
    }
  }
  free(refs);
  return rc;
}

/* Loads the document parser reads; name is y->path, used in messages. */
static int load_parser(struct yamldoc *y, yaml_parser_t *parser, struct diag *d) {
  if (!yaml_parser_load(parser, &y->doc)) {
    const yaml_mark_t *m =
        parser->problem_mark.line || parser->problem_mark.column ? &parser->problem_mark
                                                                  : &parser->context_mark;
    return diag_error_at(d, y->path, (unsigned)m->line + 1, (unsigned)m->column + 1,
                         "Cannot parse YAML: %s%s%s",
                         parser->problem ? parser->problem : "error",
                         parser->context ? " " : "", parser->context ? parser->context : "");
  }
  y->loaded = true;
  if (!yaml_document_get_root_node(&y->doc))
    return diag_error_at(d, y->path, 1, 1, "Cannot read document: the file is empty");
  return check_tree(y, d);
}

int yamldoc_load(struct yamldoc *y, const char *path, struct diag *d) {
  memset(y, 0, sizeof *y);
  y->path = xstrdup(path);
  FILE *f = fopen(path, "rb");
  if (!f)
    return diag_error_at(d, path, 0, 0, "Cannot open file: %s", strerror(errno));
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, f);
  int rc = load_parser(y, &parser, d);
  yaml_parser_delete(&parser);
  fclose(f);
  return rc;
}

int yamldoc_load_buffer(struct yamldoc *y, const char *text, size_t len, const char *name,
                        struct diag *d) {
  memset(y, 0, sizeof *y);
  y->path = xstrdup(name);
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  int rc = load_parser(y, &parser, d);
  yaml_parser_delete(&parser);
  return rc;
}

void yamldoc_free(struct yamldoc *y) {
  if (y->loaded)
    yaml_document_delete(&y->doc);
  free(y->path);
  memset(y, 0, sizeof *y);
}

yaml_node_t *yamldoc_root(struct yamldoc *y) {
  return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *yamldoc_node(struct yamldoc *y, int index) {
  return yaml_document_get_node(&y->doc, index);
}

const char *yamldoc_scalar(const yaml_node_t *node) {
  if (!node || node->type != YAML_SCALAR_NODE)
    return NULL;
  return (const char *)node->data.scalar.value;
}

yaml_node_t *yamldoc_get(struct yamldoc *y, yaml_node_t *mapping, const char *key) {
  if (!mapping || mapping->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = mapping->data.mapping.pairs.start;
       p < mapping->data.mapping.pairs.top; p++) {
    const char *k = yamldoc_scalar(yamldoc_node(y, p->key));
    if (k && strcmp(k, key) == 0)
      return yamldoc_node(y, p->value);
  }
  return NULL;
}

int yamldoc_error(struct yamldoc *y, const yaml_node_t *node, struct diag *d, const char *fmt,
                  ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = xvasprintf(fmt, ap);
  va_end(ap);
  unsigned line = node ? (unsigned)node->start_mark.line + 1 : 0;
  unsigned col = node ? (unsigned)node->start_mark.column + 1 : 0;
  diag_error_at(d, y->path, line, col, "%s", msg);
  free(msg);
  return -1;
}

int yamldoc_check_keys(struct yamldoc *y, yaml_node_t *mapping, const char *const *allowed,
                       const char *what, struct diag *d) {
  if (!mapping || mapping->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, mapping, d, "Cannot read %s: expected a mapping of keys", what);
  int rc = 0;
  for (yaml_node_pair_t *p = mapping->data.mapping.pairs.start;
       p < mapping->data.mapping.pairs.top; p++) {
    yaml_node_t *keynode = yamldoc_node(y, p->key);
    const char *k = yamldoc_scalar(keynode);
    if (!k) {
      rc = yamldoc_error(y, keynode, d, "Cannot read %s: a key must be a plain string", what);
      continue;
    }
    for (yaml_node_pair_t *q = mapping->data.mapping.pairs.start; q < p; q++) {
      const char *earlier = yamldoc_scalar(yamldoc_node(y, q->key));
      if (earlier && strcmp(earlier, k) == 0)
        rc = yamldoc_error(y, keynode, d, "Duplicate key in %s: key=%s (written twice)", what, k);
    }
    bool known = false;
    for (const char *const *a = allowed; *a; a++)
      if (strcmp(*a, k) == 0)
        known = true;
    if (known)
      continue;
    struct strbuf sb;
    strbuf_init(&sb);
    for (const char *const *a = allowed; *a; a++)
      strbuf_addf(&sb, "%s%s", a == allowed ? "" : ", ", *a);
    rc = yamldoc_error(y, keynode, d, "Unknown key in %s: key=%s (allowed: %s)", what, k,
                       sb.data);
    strbuf_free(&sb);
  }
  return rc;
}

yaml_node_t *yamldoc_seq_item(struct yamldoc *y, yaml_node_t *seq, int i) {
  return yamldoc_node(y, seq->data.sequence.items.start[i]);
}

yaml_node_t *yamldoc_map_key(struct yamldoc *y, yaml_node_t *map, int i) {
  return yamldoc_node(y, map->data.mapping.pairs.start[i].key);
}

yaml_node_t *yamldoc_map_value(struct yamldoc *y, yaml_node_t *map, int i) {
  return yamldoc_node(y, map->data.mapping.pairs.start[i].value);
}
