/* view_dispatch: dispatch tables routed into the interposer. See view_dispatch.h. */
#include "view_dispatch.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct model_record *record_named(const struct model *m, const char *name) {
  for (size_t i = 0; i < m->records.len; i++) {
    const struct model_record *r = m->records.items[i];
    if (strcmp(r->name, name) == 0)
      return r;
  }
  return NULL;
}

/* A struct whose fields are all function pointers, with at least one. */
static bool is_table(const struct model_record *r) {
  if (!r || r->is_union || !r->fields.len)
    return false;
  for (size_t i = 0; i < r->fields.len; i++) {
    const struct model_field *f = r->fields.items[i];
    if (f->type->kind != MODEL_KIND_POINTER || !f->type->target ||
        f->type->target->kind != MODEL_KIND_FUNCTION)
      return false;
  }
  return true;
}

/* The param through which f fills a table, and the table's record; NULL if none. */
static const struct model_param *table_param(const struct model *m,
                                             const struct model_function *f,
                                             const struct model_record **record) {
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    const struct model_type *t = p->type;
    if (t->kind != MODEL_KIND_POINTER || !t->target || t->target->is_const)
      continue;
    *record = record_named(m, t->target->canonical);
    if (is_table(*record))
      return p;
  }
  return NULL;
}

/* `<prefix>_pfn<Name>_t` names the type of `<prefix><Name>`; NULL for other spellings. */
static char *function_of_entry(const char *spelling) {
  const char *pfn = strstr(spelling, "_pfn");
  size_t n = strlen(spelling);
  if (!pfn || n < 2 || strcmp(spelling + n - 2, "_t") != 0 || pfn + 4 >= spelling + n - 2)
    return NULL;
  return xasprintf("%.*s%.*s", (int)(pfn - spelling), spelling,
                   (int)(spelling + n - 2 - (pfn + 4)), pfn + 4);
}

static struct tree *function_view(struct tree *root, const char *name) {
  const struct tree *functions = tree_get(root, "functions");
  for (size_t i = 0; functions && i < functions->len; i++) {
    const struct tree *name_node = tree_get(functions->items[i], "name");
    if (name_node && strcmp(name_node->string, name) == 0)
      return functions->items[i];
  }
  return NULL;
}

/* The wrapper calls the after hook, in every mode: minimal mode's lean path (which calls
 * no hook) goes. */
static void set_hook_after(struct tree *fn) {
  for (size_t i = 0; i < fn->len;) {
    if (strcmp(fn->keys[i], "hook_after") == 0)
      fn->items[i]->boolean = true;
    if (strcmp(fn->keys[i], "lean") == 0) {
      tree_free(fn->items[i]);
      free(fn->keys[i]);
      memmove(&fn->items[i], &fn->items[i + 1], (fn->len - i - 1) * sizeof *fn->items);
      memmove(&fn->keys[i], &fn->keys[i + 1], (fn->len - i - 1) * sizeof *fn->keys);
      fn->len--;
      continue;
    }
    i++;
  }
}

int view_dispatch(const struct model *m, const struct spec *s, struct tree *root,
                  struct diag *d) {
  const char *success = s->trace.status_success ? s->trace.status_success : "0";
  struct tree *getters = tree_set(root, "dispatch_getters", tree_list());
  int rc = 0;
  for (size_t i = 0; i < m->functions.len; i++) {
    const struct model_function *f = m->functions.items[i];
    struct tree *fn = function_view(root, f->name);
    if (!fn || !spec_patterns_match((struct ptrvec *)&s->trace.dispatch_tables, f->name))
      continue;
    const struct model_record *record = NULL;
    const struct model_param *table = table_param(m, f, &record);
    if (!table) {
      rc = diag_error_at(d, s->path, s->trace.loc.line, s->trace.loc.column,
                         "Cannot wrap dispatch table: function=%s fills no struct of "
                         "function pointers",
                         f->name);
      continue;
    }
    tree_set_bool(fn, "dispatch", true);
    set_hook_after(fn);
    struct tree *getter = tree_push(getters, tree_map());
    tree_set_string(getter, "name", f->name);
    tree_set_string(getter, "args_type", tree_get(fn, "args_type")->string);
    tree_set_string(getter, "table", table->name);
    tree_set_string(getter, "table_type", table->type->target->spelling);
    tree_set_string(getter, "success", success);
    struct tree *entries = tree_set(getter, "entries", tree_list());
    struct tree *unwrapped = tree_set(getter, "unwrapped", tree_list());
    for (size_t e = 0; e < record->fields.len; e++) {
      const struct model_field *field = record->fields.items[e];
      char *function = function_of_entry(field->type->spelling);
      const struct model_function *target = function ? model_function_named(m, function) : NULL;
      struct tree *item = tree_push(target && function_view(root, function) ? entries
                                                                            : unwrapped,
                                    tree_map());
      tree_set_string(item, "field", field->name);
      if (target && function_view(root, function))
        tree_set_string(item, "function", function);
      else
        tree_set_string(item, "why", !function ? "its type names no API function"
                                     : !target ? "the model has no such function"
                                               : "the function has no wrapper");
      free(function);
    }
  }
  for (size_t k = 0; k < s->trace.dispatch_tables.len; k++) {
    const struct spec_pattern *p = s->trace.dispatch_tables.items[k];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: trace.dispatch_tables pattern=%s", p->glob);
  }
  return rc;
}
