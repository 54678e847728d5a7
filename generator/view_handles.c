/* view_handles: see view_handles.h. */
#include "view_handles.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "view_expr.h"

/* A query answers through its second and last param, a pointer: query(comm, &value). */
static bool is_query(const struct model_function *f) {
  const struct model_param *out = f->params.len == 2 ? f->params.items[1] : NULL;
  return out && out->type->kind == MODEL_KIND_POINTER && out->type->target &&
         f->result->kind != MODEL_KIND_VOID;
}

/* Moves *name to *query and names the interposer's function `defined`, when *name is a
 * query of the model. */
static int take_query(const struct model *m, const struct spec *s,
                      const struct spec_communicator *c, char **name, char **query,
                      const char *defined, struct diag *d) {
  const struct model_function *f = model_function_named(m, *name);
  if (!f)
    return 0;
  if (!is_query(f))
    return diag_error_at(d, s->path, c->loc.line, c->loc.column,
                         "Cannot wire trace.communicators: function=%s is no query(comm, "
                         "&value) of the model",
                         *name);
  *query = *name;
  *name = xstrdup(defined);
  return 0;
}

int view_handles_prepare(const struct model *m, const struct spec *s, struct diag *d) {
  int rc = 0;
  for (size_t i = 0; i < s->trace.communicators.len; i++) {
    struct spec_communicator *c = s->trace.communicators.items[i];
    if (!c->rank_query)
      rc |= take_query(m, s, c, &c->rank, &c->rank_query, "comm_rank", d);
    if (!c->size_query)
      rc |= take_query(m, s, c, &c->size, &c->size_query, "comm_size", d);
  }
  return rc;
}

/* A param's bytes, as a pointer and a size: a pointer param's pointee's. */
static bool bytes_of(const struct model_function *f, const char *name, char **pointer,
                     char **size) {
  const struct model_param *p = view_param_named(f, name, strlen(name));
  if (!p)
    return false;
  bool indirect = p->type->kind == MODEL_KIND_POINTER && p->type->target;
  *pointer = xasprintf("%stracer_args.%s", indirect ? "" : "&", p->name);
  *size = xasprintf("sizeof %stracer_args.%s", indirect ? "*" : "", p->name);
  return true;
}

/* A handle's call succeeded, or is under way (a non-blocking NCCL communicator is handed
 * out while it is still being made): trace.status's success and not-ready values. */
static char *made_condition(const struct spec *s) {
  struct strbuf sb;
  strbuf_init(&sb);
  strbuf_addf(&sb, "(tracer_args.tracer_status == %s",
              s->trace.status_success ? s->trace.status_success : "0");
  for (size_t i = 0; i < s->trace.status_not_ready.len; i++)
    strbuf_addf(&sb, " || tracer_args.tracer_status == %s",
                ((const struct spec_string *)s->trace.status_not_ready.items[i])->value);
  strbuf_add(&sb, ")");
  return strbuf_release(&sb);
}

bool view_handles_function(const struct spec *s, const struct model_function *f,
                           struct strbuf *after, struct diag *d, int *status) {
  struct spec_handle_id *h = NULL;
  for (size_t i = 0; !h && i < s->trace.handle_ids.len; i++)
    if (fnmatch(((struct spec_handle_id *)s->trace.handle_ids.items[i])->function, f->name, 0) == 0)
      (h = s->trace.handle_ids.items[i])->matches++;
  if (!h)
    return false;
  const char *base = "tracer_args.";
  if (h->forget) {
    char *handle = view_value_expr(f, h->forget, base);
    if (handle)
      strbuf_addf(after, "tracer_handle_id_forget(&%s_handle_ids, %s); ", s->backend, handle);
    else
      *status = diag_error_at(d, s->path, h->loc.line, h->loc.column,
                              "Cannot wire trace.handle_ids: function=%s: forget names no param",
                              f->name);
    free(handle);
    return handle != NULL;
  }
  char *handle = view_value_expr(f, h->handle, base);
  char *parent = h->parent ? view_value_expr(f, h->parent, base) : NULL;
  char *when = h->when ? view_length_expr(f, h->when, base) : NULL;
  char *pointer = NULL, *size = NULL;
  bool found = bytes_of(f, h->from ? h->from : h->salt, &pointer, &size);
  if (!handle || !found || (h->parent && !parent)) {
    *status = diag_error_at(d, s->path, h->loc.line, h->loc.column,
                            "Cannot wire trace.handle_ids: function=%s: handle, from, parent "
                            "or salt names no param",
                            f->name);
  } else {
    char *made = made_condition(s);
    strbuf_addf(after, "if (%s%s%s) ", made, when ? " && " : "", when ? when : "");
    if (parent)
      strbuf_addf(after, "tracer_handle_id_derived(&%s_handle_ids, %s, %s, %s, %s); ", s->backend,
                  handle, parent, pointer, size);
    else
      strbuf_addf(after, "tracer_handle_id_made(&%s_handle_ids, %s, %s, %s); ", s->backend, handle,
                  pointer, size);
    free(made);
  }
  free(handle);
  free(parent);
  free(when);
  free(pointer);
  free(size);
  return true;
}

static void add_query(const struct model *m, const struct spec *s, struct tree *list,
                      const struct spec_communicator *c, const char *name, const char *query,
                      const char *what) {
  const struct model_function *f = model_function_named(m, query);
  const struct model_param *out = f->params.items[1];
  struct tree *item = tree_push(list, tree_map());
  tree_set_string(item, "what", what);
  tree_set_string(item, "name", name);
  tree_set_string(item, "type", c->type);
  tree_set_string(item, "query", query);
  tree_set_string(item, "value_type", out->type->target->spelling);
  tree_set_string(item, "status_type", f->result->spelling);
  tree_set_string(item, "success", s->trace.status_success ? s->trace.status_success : "0");
}

/* trace.devices: a device is its ordinal, current(&ordinal) the thread's, named by
 * name(buffer, size, ordinal); or (hooks: true) the hooks' functions. Either way the
 * interposer registers them. */
static int device_ordinals(const struct model *m, const struct spec *s, struct tree *root,
                           struct diag *d) {
  const struct spec_trace *t = &s->trace;
  if (t->devices_hooks) {
    tree_set(root, "device_hooks", tree_map());
    return 0;
  }
  if (!t->devices_current)
    return 0;
  const struct model_function *current = model_function_named(m, t->devices_current);
  const struct model_function *name = model_function_named(m, t->devices_name);
  const struct model_param *out =
      current && current->params.len == 1 ? current->params.items[0] : NULL;
  if (!out || out->type->kind != MODEL_KIND_POINTER || !out->type->target || !name ||
      name->params.len != 3 || current->result->kind == MODEL_KIND_VOID)
    return diag_error_at(d, s->path, t->devices_loc.line, t->devices_loc.column,
                         "Cannot wire trace.devices: current=%s must be a function of the model "
                         "taking &ordinal, name=%s one taking (name, size, ordinal)",
                         t->devices_current, t->devices_name);
  struct tree *item = tree_set(root, "device_ordinals", tree_map());
  tree_set_string(item, "current", t->devices_current);
  tree_set_string(item, "name_query", t->devices_name);
  tree_set_string(item, "type", out->type->target->spelling);
  tree_set_string(item, "status_type", current->result->spelling);
  tree_set_string(item, "success", t->status_success ? t->status_success : "0");
  return 0;
}

int view_handles_root(const struct model *m, const struct spec *s, struct tree *root,
                      struct diag *d) {
  const struct spec_trace *t = &s->trace;
  int rc = device_ordinals(m, s, root, d);
  struct tree *queries = tree_set(root, "communicator_queries", tree_list());
  struct tree *ids = tree_set(root, "handle_id_functions", tree_list());
  for (size_t i = 0; i < t->communicators.len; i++) {
    const struct spec_communicator *c = t->communicators.items[i];
    if (c->rank_query)
      add_query(m, s, queries, c, c->rank, c->rank_query, "A communicator's rank");
    if (c->size_query)
      add_query(m, s, queries, c, c->size, c->size_query, "A communicator's size");
    if (c->id && t->handle_ids.len) {
      struct tree *item = tree_push(ids, tree_map());
      tree_set_string(item, "name", c->id);
      tree_set_string(item, "type", c->type);
    }
  }
  if (t->handle_ids.len)
    tree_set_string(tree_set(root, "handle_ids", tree_map()), "most", "1024");
  for (size_t i = 0; i < t->handle_ids.len; i++) {
    const struct spec_handle_id *h = t->handle_ids.items[i];
    if (!h->matches)
      rc = diag_error_at(d, s->path, h->loc.line, h->loc.column,
                         "Filter matches nothing: trace.handle_ids function=%s", h->function);
  }
  struct tree *sizes = tree_set(root, "element_sizes", tree_list());
  for (size_t i = 0; i < t->element_sizes.len; i++) {
    const struct spec_element_size *e = t->element_sizes.items[i];
    if (!t->element_size || !model_has_constant(m, e->constant)) {
      rc = diag_error_at(d, s->path, e->loc.line, e->loc.column,
                         "Cannot wire trace.element_sizes: %s",
                         t->element_size ? "the constant is no constant of the model"
                                         : "they need trace.element_size, the datatype type");
      continue;
    }
    struct tree *item = tree_push(sizes, tree_map());
    tree_set_string(item, "constant", e->constant);
    tree_set_string(item, "bytes", e->bytes);
    tree_set_string(item, "type", t->element_size);
  }
  return rc;
}
