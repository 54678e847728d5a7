/* view_glue: see view_glue.h. */
#include "view_glue.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_expr.h"
#include "view_handles.h"

/* The first entry of entries (each starting with its char *function) that matches name,
 * counted as a match; NULL when none does. */
#define FIRST_MATCH(type, entries, name)                                                           \
  __extension__({                                                                                  \
    type *found = NULL;                                                                            \
    for (size_t i = 0; !found && i < (entries)->len; i++)                                          \
      if (fnmatch(((type *)(entries)->items[i])->function, (name), 0) == 0)                        \
        (found = (entries)->items[i])->matches++;                                                  \
    found;                                                                                         \
  })

static int fail(struct diag *d, const struct spec *s, struct spec_loc at, int *status,
                const char *what, const struct model_function *f, const char *why) {
  *status = diag_error_at(d, s->path, at.line, at.column, "Cannot wire trace.%s: function=%s: %s",
                          what, f->name, why);
  return -1;
}

/* The type a pointer param points to, as a variable of it is declared (no const). */
static char *pointee(const struct model_param *p) {
  const char *t = p->type->target ? p->type->target->spelling : "void";
  return xstrdup(strncmp(t, "const ", 6) == 0 ? t + 6 : t);
}

static bool is_collector(const struct spec *s) {
  for (size_t i = 0; i < s->trace.templates.len; i++)
    if (strcmp(((const struct spec_string *)s->trace.templates.items[i])->value,
               "tools/collector.c") == 0)
      return true;
  return false;
}

/* trace.results: the result the tool gives, instead of the library it stands for. */
static char *result_code(const struct spec *s, const struct model_function *f,
                         const struct spec_result *r, struct diag *d, int *status) {
  if (f->result->kind == MODEL_KIND_VOID || !is_collector(s)) {
    fail(d, s, r->loc, status, "results", f,
         is_collector(s) ? "it returns nothing"
                         : "only a collector (trace.templates: tools/collector.c) gives results; "
                           "this backend's library answers");
    return NULL;
  }
  const char *type = f->result->spelling;
  if (r->now)
    return xstrdup("tracer_args.tracer_result = tracer_now();");
  if (r->unique)
    return xasprintf("tracer_args.tracer_result = (%s)tracer_unique_handle();", type);
  const struct model_param *p = view_param_named(f, r->intern, strlen(r->intern));
  if (!p) {
    fail(d, s, r->loc, status, "results", f, "intern names no param");
    return NULL;
  }
  bool wide = strstr(p->type->spelling, "wchar_t") != NULL;
  if (!r->member)
    return xasprintf("tracer_args.tracer_result = (%s)tracer_intern%s(tracer_args.%s);", type,
                     wide ? "_wide" : "", p->name);
  if (f->result->kind != MODEL_KIND_POINTER || !f->result->target || wide) {
    fail(d, s, r->loc, status, "results", f,
         "member (an interned object) needs a result that points to a struct, and a narrow "
         "string param");
    return NULL;
  }
  struct strbuf init;
  strbuf_init(&init);
  for (size_t i = 0; i < r->init_members.len; i++)
    strbuf_addf(&init, "%s.%s = %s", i ? ", " : "",
                ((struct spec_string *)r->init_members.items[i])->value,
                ((struct spec_string *)r->init_values.items[i])->value);
  char *object = xstrdup(f->result->target->spelling);
  char *code = xasprintf("static const %s tracer_init = {%s}; tracer_args.tracer_result = "
                         "tracer_intern_object(\"%s\", tracer_args.%s, &tracer_init, "
                         "sizeof tracer_init, offsetof(%s, %s));",
                         object, init.len ? init.data : "0", object, p->name, object, r->member);
  free(object);
  strbuf_free(&init);
  return code;
}

/* trace.add_flags: flags added to a param before the real call (the record keeps the
 * arguments as the app passed them). */
static char *add_flags_code(const struct spec *s, const struct model_function *f,
                            const struct spec_add_flags *a, struct diag *d, int *status) {
  const struct model_param *p = view_param_named(f, a->param, strlen(a->param));
  if (!p || strcmp(p->name, a->param) != 0) {
    fail(d, s, a->loc, status, "add_flags", f, "param names no param");
    return NULL;
  }
  bool pointer = p->type->kind == MODEL_KIND_POINTER && p->type->target;
  if ((a->member || a->key) && !pointer) {
    fail(d, s, a->loc, status, "add_flags", f, "member and key need a pointer param");
    return NULL;
  }
  if (!a->member && !a->key)
    return xasprintf("tracer_args.%s |= %s;", p->name, a->flags);
  if (a->key) {
    if (p->type->target->size != 8) {
      fail(d, s, a->loc, status, "add_flags", f, "a property list (key) must hold 64-bit values");
      return NULL;
    }
    return xasprintf("tracer_args.%s = (__typeof__(tracer_args.%s))tracer_properties_with("
                     "(const uint64_t *)tracer_args.%s, %s, %s);",
                     p->name, p->name, p->name, a->key, a->flags);
  }
  /* A copy of the struct, in thread-local storage: it must outlive the call. */
  char *type = pointee(p);
  char *code = xasprintf("if (tracer_args.%s) { static __thread %s tracer_flagged; "
                         "tracer_flagged = *tracer_args.%s; tracer_flagged.%s |= %s; "
                         "tracer_args.%s = &tracer_flagged; }",
                         p->name, type, p->name, a->member, a->flags, p->name);
  free(type);
  return code;
}

/* trace.entry_points: an API function handed out by name comes back as the wrapper;
 * `by: address`, the wrapper of that very function only (tracer_wrapper_of): a versioned
 * query (cuGetProcAddress) must not get the wrapper of another version by its name. */
static char *entry_point_code(const struct spec *s, const struct model_function *f,
                              const struct spec_entry_point *e, const char *success, struct diag *d,
                              int *status) {
  const struct model_param *name = view_param_named(f, e->name, strlen(e->name));
  const struct model_param *address = view_param_named(f, e->address, strlen(e->address));
  if (!name || !address || strcmp(name->name, e->name) || strcmp(address->name, e->address)) {
    fail(d, s, e->loc, status, "entry_points", f, "name or address names no param");
    return NULL;
  }
  const char *a = address->name;
  if (e->by && strcmp(e->by, "address") == 0)
    return xasprintf("if (tracer_args.tracer_status == %s && tracer_args.%s && *tracer_args.%s) "
                     "*tracer_args.%s = (__typeof__(*tracer_args.%s))tracer_wrapper_of((void "
                     "*)*tracer_args.%s, tracer_args.%s);",
                     success, a, a, a, a, a, name->name);
  return xasprintf("if (tracer_args.tracer_status == %s && tracer_args.%s && *tracer_args.%s) "
                   "*tracer_args.%s = (__typeof__(*tracer_args.%s))tracer_entry_point((void "
                   "*)*tracer_args.%s, tracer_args.%s, (const void *)%s_nested, \"%s\");",
                   success, a, a, a, a, a, name->name, s->backend, s->library ? s->library : "");
}

static bool patterns_match(const struct ptrvec *v, const char *name) {
  bool matched = false;
  for (size_t i = 0; i < v->len; i++)
    if (fnmatch(((struct spec_pattern *)v->items[i])->glob, name, 0) == 0) {
      ((struct spec_pattern *)v->items[i])->matches++;
      matched = true;
    }
  return matched;
}

bool view_glue_function(const struct spec *s, const struct model_function *f, struct tree *fn,
                        struct diag *d, int *status) {
  const struct spec_trace *t = &s->trace;
  const char *success = t->status_success ? t->status_success : "0";
  struct strbuf after;
  strbuf_init(&after);
  bool glued = false;
  struct spec_add_flags *a = FIRST_MATCH(struct spec_add_flags, &t->add_flags, f->name);
  char *before = a ? add_flags_code(s, f, a, d, status) : NULL;
  /* A module about to be unloaded may free kernels whose handles come back for others. */
  if (!before && patterns_match(&t->forget_kernel_names, f->name))
    before = xasprintf("tracer_kernel_names_forget(\"%s\");", s->backend);
  if (before) {
    tree_set_string(tree_set(fn, "glue_before", tree_map()), "code", before);
    glued = true;
  }
  free(before);
  struct spec_result *r = FIRST_MATCH(struct spec_result, &t->results, f->name);
  char *code = r ? result_code(s, f, r, d, status) : NULL;
  if (code)
    strbuf_addf(&after, "%s ", code);
  free(code);
  struct spec_entry_point *e = FIRST_MATCH(struct spec_entry_point, &t->entry_points, f->name);
  code = e ? entry_point_code(s, f, e, success, d, status) : NULL;
  if (code)
    strbuf_addf(&after, "%s ", code);
  free(code);
  /* A call that makes or frees a handle with an id (trace.handle_ids). */
  view_handles_function(s, f, &after, d, status);
  /* A query that finds work done: the pending commands are read then. */
  if (patterns_match(&t->drain_after, f->name))
    strbuf_addf(&after, "if (tracer_args.tracer_status == %s) tracer_pending_drain(\"%s\", false);",
                success, s->backend);
  if (after.len) {
    tree_set_string(tree_set(fn, "glue_after", tree_map()), "code", after.data);
    glued = true;
  }
  strbuf_free(&after);
  return glued;
}

static int unmatched(const struct spec *s, const char *what, const char *function,
                     struct spec_loc at, unsigned matches, struct diag *d) {
  if (matches)
    return 0;
  return diag_error_at(d, s->path, at.line, at.column,
                       "Filter matches nothing: trace.%s function=%s", what, function);
}

static const struct model_enum *enum_named(const struct model *m, const char *name) {
  for (size_t i = 0; i < m->enums.len; i++) {
    const struct model_enum *e = m->enums.items[i];
    if (strcmp(e->name, name) == 0 || (e->tag && strcmp(e->tag, name) == 0))
      return e;
  }
  return NULL;
}

/* Whether the model has a function of that name that a table can point at. */
static bool has_function(const struct model *m, const char *name) {
  const struct model_function *f = model_function_named(m, name);
  return f && !f->variadic && f->has_prototype;
}

/* trace.callback_tables: per table its module and its slots [{id, function}], the
 * enumerators of its ids whose function the backend implements. */
static int callback_tables(const struct model *m, const struct spec *s, struct tree *root,
                           struct diag *d) {
  int rc = 0;
  struct tree *tables = tree_set(root, "callback_tables", tree_list());
  for (size_t i = 0; i < s->trace.callback_tables.len; i++) {
    const struct spec_callback_table *c = s->trace.callback_tables.items[i];
    const struct model_enum *ids = enum_named(m, c->ids);
    if (!ids || !model_has_enumerator(m, c->module)) {
      rc = diag_error_at(d, s->path, c->loc.line, c->loc.column,
                         "Cannot wire trace.callback_tables: %s=%s is no %s of the model",
                         ids ? "module" : "ids", ids ? c->module : c->ids,
                         ids ? "enumerator" : "enum");
      continue;
    }
    struct tree *table = tree_push(tables, tree_map());
    tree_set_string(table, "module", c->module);
    tree_set(table, "index", tree_stringf("%zu", i));
    struct tree *slots = tree_set(table, "slots", tree_list());
    size_t n = strlen(c->prefix);
    for (size_t k = 0; k < ids->constants.len; k++) {
      const char *id = ((const struct model_enum_constant *)ids->constants.items[k])->name;
      char *function = xasprintf("%s%s", c->functions, id + n);
      if (strncmp(id, c->prefix, n) == 0 && has_function(m, function)) {
        struct tree *slot = tree_push(slots, tree_map());
        tree_set_string(slot, "id", id);
        tree_set_string(slot, "function", function);
      }
      free(function);
    }
    if (!slots->len)
      rc = diag_error_at(d, s->path, c->loc.line, c->loc.column,
                         "Cannot wire trace.callback_tables: no enumerator of %s named %s... "
                         "names a function %s...",
                         c->ids, c->prefix, c->functions);
  }
  return rc;
}

int view_glue_root(const struct model *m, const struct spec *s, struct tree *root, struct diag *d) {
  const struct spec_trace *t = &s->trace;
  int rc = callback_tables(m, s, root, d);
  if (t->predefined_macro)
    tree_set_string(tree_set(root, "predefined_macro", tree_map()), "name", t->predefined_macro);
  for (size_t i = 0; i < t->results.len; i++) {
    const struct spec_result *r = t->results.items[i];
    rc |= unmatched(s, "results", r->function, r->loc, r->matches, d);
  }
  for (size_t i = 0; i < t->add_flags.len; i++) {
    const struct spec_add_flags *a = t->add_flags.items[i];
    rc |= unmatched(s, "add_flags", a->function, a->loc, a->matches, d);
  }
  for (size_t i = 0; i < t->entry_points.len; i++) {
    const struct spec_entry_point *e = t->entry_points.items[i];
    rc |= unmatched(s, "entry_points", e->function, e->loc, e->matches, d);
  }
  for (size_t i = 0; i < t->drain_after.len; i++) {
    const struct spec_pattern *p = t->drain_after.items[i];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: trace.drain_after pattern=%s", p->glob);
  }
  for (size_t i = 0; i < t->forget_kernel_names.len; i++) {
    const struct spec_pattern *p = t->forget_kernel_names.items[i];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: trace.forget_kernel_names pattern=%s", p->glob);
  }
  if (t->drain_after.len && !t->commands.len)
    rc = diag_error_at(d, s->path, t->loc.line, t->loc.column,
                       "Cannot wire trace.drain_after: the backend has no trace.commands to "
                       "read");
  if (!t->hooks_calls.len)
    return rc;
  if (!t->hooks || !s->library)
    rc = diag_error_at(d, s->path, t->hooks_calls_loc.line, t->hooks_calls_loc.column,
                       "Cannot wire trace.hooks_calls: they are for the hooks file of an "
                       "interposer (trace.hooks and library)");
  struct tree *calls = tree_set(root, "hooks_calls", tree_list());
  for (size_t i = 0; i < t->hooks_calls.len; i++) {
    const struct spec_string *name = t->hooks_calls.items[i];
    bool found = false;
    for (size_t k = 0; k < m->functions.len && !found; k++)
      found =
          strcmp(((const struct model_function *)m->functions.items[k])->name, name->value) == 0;
    if (!found)
      rc = diag_error_at(d, s->path, name->loc.line, name->loc.column,
                         "Cannot wire trace.hooks_calls: function=%s is no function of the "
                         "model",
                         name->value);
    char *called =
        xasprintf("%s%s", t->hooks_calls_prefix ? t->hooks_calls_prefix : "", name->value);
    tree_set_string(tree_push(calls, tree_map()), "name", called);
    free(called);
  }
  return rc;
}
