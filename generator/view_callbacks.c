/* view_callbacks: see view_callbacks.h. */
#include "view_callbacks.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_expr.h"

static const char callback_suffix[] = "_t";

void view_callbacks_select(const struct model *m, const struct spec *s, struct ptrvec *out) {
  struct ptrvec *patterns = (struct ptrvec *)&s->trace.callbacks;
  for (size_t i = 0; i < m->function_pointers.len; i++) {
    const struct model_function_pointer *fp = m->function_pointers.items[i];
    size_t n = strlen(fp->name);
    if (fp->variadic || n <= strlen(callback_suffix) ||
        strcmp(fp->name + n - strlen(callback_suffix), callback_suffix) != 0 ||
        !spec_patterns_match(patterns, fp->name))
      continue;
    struct model_function *f = xcalloc(1, sizeof *f);
    f->name = xstrndup(fp->name, n - strlen(callback_suffix));
    f->header = xstrdup(m->headers.len ? (const char *)m->headers.items[0] : "");
    f->result = fp->result;
    f->has_prototype = true;
    struct strbuf proto;
    strbuf_init(&proto);
    const char *result = fp->result->spelling;
    /* The tool's own function is static: only the table of callbacks names it. */
    strbuf_addf(&proto, "static %s%s%s_on_%s(", result,
                result[strlen(result) - 1] == '*' ? "" : " ", m->backend, f->name);
    for (size_t k = 0; k < fp->params.len; k++) {
      const struct model_param *p = fp->params.items[k];
      ptrvec_push(&f->params, (void *)p);
      strbuf_addf(&proto, "%s%s", k ? ", " : "", p->decl);
    }
    strbuf_addf(&proto, "%s)", fp->params.len ? "" : "void");
    f->prototype = strbuf_release(&proto);
    ptrvec_push(out, f);
  }
}

void view_callbacks_free(struct ptrvec *callbacks) {
  for (size_t i = 0; i < callbacks->len; i++) {
    struct model_function *f = callbacks->items[i];
    free(f->name);
    free(f->header);
    free(f->prototype);
    ptrvec_free(&f->params); /* the params are the model's */
    free(f);
  }
  ptrvec_free(callbacks);
}

bool view_is_callback(const struct model *m, const struct model_function *f) {
  for (size_t i = 0; i < m->functions.len; i++)
    if (m->functions.items[i] == f)
      return false;
  return true;
}

static const struct model_enum_constant *constant_named(const struct model *m, const char *name,
                                                        const struct model_enum **in) {
  for (size_t i = 0; i < m->enums.len; i++) {
    const struct model_enum *e = m->enums.items[i];
    for (size_t k = 0; k < e->constants.len; k++) {
      const struct model_enum_constant *c = e->constants.items[k];
      if (strcmp(c->name, name) == 0) {
        if (in)
          *in = e;
        return c;
      }
    }
  }
  return NULL;
}

static const struct model_param *param_of(const struct model_function *f, const char *name) {
  for (size_t i = 0; name && i < f->params.len; i++)
    if (strcmp(((const struct model_param *)f->params.items[i])->name, name) == 0)
      return f->params.items[i];
  return NULL;
}

/* A command's queue named CALLBACK.PARAM (ompt_callback_target_emi.device_num): the value
 * of another callback's param, kept per thread from the begin of its scope (the device of
 * the target region a submit is in). The name of the variable that keeps it, or NULL. */
static char *kept_value(const struct spec *s, const char *queue) {
  const char *dot = queue ? strchr(queue, '.') : NULL;
  if (!dot)
    return NULL;
  char *callback = xstrndup(queue, (size_t)(dot - queue));
  char *type = xasprintf("%s%s", callback, callback_suffix);
  char *kept = spec_patterns_match((struct ptrvec *)&s->trace.callbacks, type)
                   ? xasprintf("%s_kept_%s_%s", s->backend, callback, dot + 1)
                   : NULL;
  free(type);
  free(callback);
  return kept;
}

/* A callback's device work (trace.commands, timed on the host): at the end of its scope,
 * with the scope's times. A transfer whose direction_param is the param trace.rows splits
 * its calls by is named by its row, and recorded only for the values trace.directions
 * gives a direction (OMPT's data ops: transfers, not allocations). */
static int scope_command(const struct spec *s, const struct model_function *f, struct tree *fn,
                         struct diag *d) {
  const struct spec_command *c = NULL;
  for (size_t i = 0; i < s->trace.commands.len && !c; i++) {
    const struct spec_command *entry = s->trace.commands.items[i];
    if (fnmatch(entry->function, f->name, 0) == 0)
      c = entry;
  }
  if (!c)
    return 0;
  const struct spec_rows *rows = NULL;
  for (size_t i = 0; i < s->trace.rows.len && !rows; i++)
    if (strcmp(((const struct spec_rows *)s->trace.rows.items[i])->function, f->name) == 0)
      rows = s->trace.rows.items[i];
  char *bytes = c->bytes ? view_length_expr(f, c->bytes, "tracer_args.") : xstrdup("0");
  char *kept = kept_value(s, c->queue);
  char *queue = kept ? xasprintf("(uintptr_t)%s", kept)
                : c->queue ? view_value_expr(f, c->queue, "tracer_args.")
                           : xstrdup("0");
  free(kept);
  const char *why = !bytes || !queue ? "bytes or queue names no param"
                    : c->direction_param && (!rows || strcmp(rows->param, c->direction_param))
                        ? "a callback's direction_param must be the param trace.rows splits "
                          "its calls by, which names the transfer"
                        : NULL;
  if (why) {
    free(bytes);
    free(queue);
    return diag_error_at(d, s->path, c->loc.line, c->loc.column,
                         "Cannot wire command: callback=%s: %s", f->name, why);
  }
  struct strbuf code;
  strbuf_init(&code);
  char *name = xasprintf("\"%s\"", f->name);
  if (c->direction_param) {
    strbuf_addf(&code, "const char *tracer_name = NULL; switch (tracer_args.%s) {",
                c->direction_param);
    size_t strip = rows->strip ? strlen(rows->strip) : 0;
    for (size_t i = 0; i < s->trace.directions.len; i++) {
      const char *value =
          ((const struct spec_direction_value *)s->trace.directions.items[i])->value;
      bool stripped = strip && strncmp(value, rows->strip, strip) == 0;
      strbuf_addf(&code, "case %s: tracer_name = \"%s:%s\"; break; ", value, f->name,
                  value + (stripped ? strip : 0));
    }
    strbuf_addf(&code, "default: break; } if (tracer_name) ");
    free(name);
    name = xstrdup("tracer_name");
  }
  char *kind = xstrdup(c->kind);
  for (char *k = kind; *k; k++)
    *k = (char)(*k - 'a' + 'A');
  strbuf_addf(&code,
              "tracer_device_command_of(&(struct tracer_call_id){tracer_tid(), "
              "tracer_args.tracer_start, 0}, \"%s\", TRACER_COMMAND_%s, %s, %s, %s, "
              "tracer_args.tracer_start, tracer_record.head.end);",
              s->backend, kind, name, bytes, queue);
  tree_set_string(tree_set(fn, "scope_command", tree_map()), "code", code.data);
  strbuf_free(&code);
  free(kind);
  free(name);
  free(bytes);
  free(queue);
  return 0;
}

int view_callbacks_function(const struct model *m, const struct spec *s,
                            const struct model_function *f, bool is_callback, struct tree *fn,
                            struct diag *d) {
  if (!is_callback) {
    tree_set_string(fn, "typeof_expr", f->name);
    return 0;
  }
  /* The callback type is a pointer to the function type. */
  tree_set(fn, "typeof_expr", tree_stringf("*(%s%s)0", f->name, callback_suffix));
  const struct model_enum_constant *id = constant_named(m, f->name, NULL);
  if (!id) {
    char *type = xasprintf("%s%s", f->name, callback_suffix);
    struct spec_loc at = s->trace.loc;
    for (size_t i = s->trace.callbacks.len; i-- > 0;) {
      const struct spec_pattern *p = s->trace.callbacks.items[i];
      if (fnmatch(p->glob, type, 0) == 0)
        at = p->loc;
    }
    int rc = diag_error_at(d, s->path, at.line, at.column,
                           "Cannot register callback=%s: no constant named %s gives its id", type,
                           f->name);
    free(type);
    return rc;
  }
  struct tree *callback = tree_set(fn, "callback", tree_map());
  tree_set_string(callback, "id", id->name);
  const struct model_param *endpoint = param_of(f, s->trace.scope_endpoint);
  if (endpoint && s->trace.scope_begin) {
    struct tree *scope = tree_set(fn, "scope", tree_map());
    tree_set_string(scope, "endpoint", endpoint->name);
    tree_set_string(scope, "begin", s->trace.scope_begin);
  }
  /* Its params that commands of other callbacks name (kept_value): kept at its begin. */
  struct tree *keeps = NULL;
  for (size_t i = 0; i < s->trace.commands.len; i++) {
    const char *queue = ((const struct spec_command *)s->trace.commands.items[i])->queue;
    size_t n = strlen(f->name);
    const struct model_param *p = queue && strncmp(queue, f->name, n) == 0 && queue[n] == '.'
                                      ? param_of(f, queue + n + 1)
                                      : NULL;
    char *kept = p && endpoint && s->trace.scope_begin ? kept_value(s, queue) : NULL;
    if (!kept)
      continue;
    if (!keeps)
      keeps = tree_set(fn, "scope_keep", tree_list());
    struct tree *keep = tree_push(keeps, tree_map());
    tree_set_string(keep, "var", kept);
    tree_set_string(keep, "callback", f->name);
    tree_set_string(keep, "param", p->name);
    tree_set_string(keep, "type", p->type->spelling);
    free(kept);
  }
  return scope_command(s, f, fn, d);
}

static int enum_index(const struct model *m, const char *canonical) {
  for (size_t i = 0; i < m->enums.len; i++) {
    const struct model_enum *e = m->enums.items[i];
    char *spelled = e->tag ? xasprintf("enum %s", e->tag) : xstrdup(e->name);
    bool same = strcmp(spelled, canonical) == 0 || strcmp(e->name, canonical) == 0;
    free(spelled);
    if (same)
      return (int)i;
  }
  return -1;
}

int view_callbacks_rows(const struct model *m, const struct spec *s, struct tree *root,
                        const struct model_function **traced, size_t count, struct diag *d) {
  struct tree *functions = (struct tree *)tree_get(root, "functions");
  struct tree *rows = tree_set(root, "split_rows", tree_list());
  size_t next = count;
  int rc = 0;
  bool *used = xcalloc(s->trace.rows.len + 1, sizeof *used);
  for (size_t i = 0; i < count; i++) {
    struct tree *fn = functions->items[i];
    const struct spec_rows *rule = NULL;
    for (size_t k = 0; k < s->trace.rows.len && !rule; k++)
      if (strcmp(((const struct spec_rows *)s->trace.rows.items[k])->function,
                 traced[i]->name) == 0) {
        rule = s->trace.rows.items[k];
        used[k] = true;
      }
    const struct model_param *p = rule ? param_of(traced[i], rule->param) : NULL;
    int e = p && p->type->kind == MODEL_KIND_ENUM ? enum_index(m, p->type->canonical) : -1;
    if (rule && e < 0) {
      rc = diag_error_at(d, s->path, rule->loc.line, rule->loc.column,
                         "Cannot split rows: function=%s has no enum param=%s", rule->function,
                         rule->param);
      rule = NULL;
    }
    if (!rule) {
      tree_set_string(fn, "row_field", "NULL");
      tree_set_string(fn, "row_names", "NULL");
      tree_set_string(fn, "row_first", "0");
      continue;
    }
    /* The param is in the call's record (default and full modes), so the analysis can
     * pick the row. */
    tree_set(fn, "row_field", tree_stringf("\"%s\"", p->name));
    tree_set(fn, "row_names", tree_stringf("&%s_names_%d", m->backend, e));
    tree_set(fn, "row_first", tree_stringf("%zu", next));
    /* One row per distinct value, in the order of the names table (sorted by value, the
     * first name of each value). */
    const struct model_enum *en = m->enums.items[(size_t)e];
    size_t n = en->constants.len;
    const struct model_enum_constant **sorted = xcalloc(n + 1, sizeof *sorted);
    for (size_t k = 0; k < n; k++)
      sorted[k] = en->constants.items[k];
    for (size_t a = 1; a < n; a++)
      for (size_t b = a; b > 0 && (en->is_signed ? sorted[b]->value < sorted[b - 1]->value
                                                 : sorted[b]->uvalue < sorted[b - 1]->uvalue);
           b--) {
        const struct model_enum_constant *t = sorted[b];
        sorted[b] = sorted[b - 1];
        sorted[b - 1] = t;
      }
    for (size_t k = 0; k < n; k++) {
      if (k > 0 && sorted[k]->uvalue == sorted[k - 1]->uvalue)
        continue;
      const char *value = sorted[k]->name;
      size_t strip = rule->strip ? strlen(rule->strip) : 0;
      if (strip && strncmp(value, rule->strip, strip) == 0)
        value += strip;
      tree_set(tree_push(rows, tree_map()), "name",
               tree_stringf("%s:%s", traced[i]->name, value));
      next++;
    }
    free(sorted);
  }
  for (size_t k = 0; k < s->trace.rows.len; k++)
    if (!used[k]) {
      const struct spec_rows *r = s->trace.rows.items[k];
      rc = diag_error_at(d, s->path, r->loc.line, r->loc.column,
                         "Filter matches nothing: trace.rows function=%s", r->function);
    }
  free(used);
  tree_set(root, "desc_count", tree_stringf("%zu", next));
  return rc;
}
