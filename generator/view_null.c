/* view_null: the part of the view that templates/null_library.c.tmpl renders. See
 * view_null.h. */
#include "view_null.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_expr.h"

static bool is_scalar(const struct model_type *t) {
  return t->kind == MODEL_KIND_BOOL || t->kind == MODEL_KIND_INT || t->kind == MODEL_KIND_ENUM ||
         t->kind == MODEL_KIND_FLOAT || t->kind == MODEL_KIND_POINTER;
}

/* A length expression is C over the params, which are in scope in the null function as
 * they are. When it reads through a pointer param ("*pCount"), a NULL one means 0. */
static char *guarded_length(const struct model_function *f, const char *expr) {
  const char *s = expr;
  while (*s && !isalpha((unsigned char)*s) && *s != '_')
    s++;
  const char *start = s;
  while (isalnum((unsigned char)*s) || *s == '_')
    s++;
  const struct model_param *first = view_param_named(f, start, (size_t)(s - start));
  if (first && first->type->kind == MODEL_KIND_POINTER)
    return xasprintf("%s ? (size_t)(%s) : 0", first->name, expr);
  return xasprintf("(size_t)(%s)", expr);
}

static bool is_status_param(const struct spec *s, const char *name) {
  for (size_t i = 0; i < s->trace.status_params.len; i++)
    if (strcmp(((const struct spec_string *)s->trace.status_params.items[i])->value, name) == 0)
      return true;
  return false;
}

/* What the null function writes through one param: out pointers are zeroed (arrays of
 * `length` elements, void data of `length` bytes, or one element), status out-params
 * get the success status. In and in-out params are left alone. */
static void zero_output(const struct model_function *f, const struct model_param *p,
                        const struct spec *s, const char *success, struct tree *body) {
  const struct model_type *t = p->type;
  const struct model_type *target = t->target;
  if (p->direction != MODEL_DIR_OUT || t->kind != MODEL_KIND_POINTER || !target ||
      target->is_const || target->kind == MODEL_KIND_FUNCTION)
    return;
  char *line = NULL;
  if (is_status_param(s, p->name)) {
    line = xasprintf("if (%s) *%s = %s;", p->name, p->name, success);
  } else if (p->length && target->kind == MODEL_KIND_VOID) {
    char *n = guarded_length(f, p->length);
    line = xasprintf("if (%s) memset(%s, 0, %s);", p->name, p->name, n);
    free(n);
  } else if (p->length && target->size > 0) {
    char *n = guarded_length(f, p->length);
    line = xasprintf("if (%s) memset(%s, 0, (%s) * sizeof *%s);", p->name, p->name, n,
                     p->name);
    free(n);
  } else if (is_scalar(target)) {
    line = xasprintf("if (%s) *%s = 0;", p->name, p->name);
  } else if (target->size > 0) {
    line = xasprintf("if (%s) memset(%s, 0, sizeof *%s);", p->name, p->name, p->name);
  }
  if (line)
    tree_set_string(tree_push(body, tree_map()), "line", line);
  free(line);
}

/* The prototype with the name in parentheses, when a function-like macro of the same
 * name would otherwise expand in the definition (model `macro: true`). */
static char *unmacroed(const struct model_function *f, char *prototype) {
  char *open = strstr(prototype, f->name);
  if (!f->has_macro || !open || open[strlen(f->name)] != '(')
    return prototype;
  char *out = xasprintf("%.*s(%s)%s", (int)(open - prototype), prototype, f->name,
                        open + strlen(f->name));
  free(prototype);
  return out;
}

static void add_line(struct tree *body, const char *line) {
  tree_set_string(tree_push(body, tree_map()), "line", line);
}

void view_null(const struct model *m, const struct spec *s, struct tree *root) {
  const char *success = s->trace.status_success ? s->trace.status_success : "0";
  struct tree *functions = tree_set(root, "null_functions", tree_list());
  struct tree *skipped = tree_set(root, "null_skipped", tree_list());
  for (size_t i = 0; i < m->functions.len; i++) {
    const struct model_function *f = m->functions.items[i];
    if (f->variadic || !f->has_prototype || f->defined) {
      struct tree *item = tree_push(skipped, tree_map());
      tree_set_string(item, "name", f->name);
      tree_set_string(item, "why", f->variadic ? "variadic"
                                   : f->defined ? "defined in the header"
                                                : "no prototype");
      continue;
    }
    struct tree *fn = tree_push(functions, tree_map());
    tree_set_string(fn, "name", f->name);
    tree_set_string(fn, "header", f->header);
    char *prototype = unmacroed(f, xstrdup(f->prototype));
    tree_set_string(fn, "prototype", prototype);
    free(prototype);
    struct tree *body = tree_set(fn, "body", tree_list());
    for (size_t k = 0; k < f->params.len; k++)
      zero_output(f, f->params.items[k], s, success, body);
    const struct model_type *r = f->result;
    if (r->kind == MODEL_KIND_VOID) {
      /* nothing to return */
    } else if (s->trace.status_type && strcmp(r->spelling, s->trace.status_type) == 0) {
      char *line = xasprintf("return %s;", success);
      add_line(body, line);
      free(line);
    } else if (is_scalar(r)) {
      add_line(body, "return 0;");
    } else {
      char *decl = strpbrk(r->spelling, "([") ? xasprintf("__typeof__(%s) null_result", r->spelling)
                                              : xasprintf("%s null_result", r->spelling);
      char *line = xasprintf("%s;", decl);
      add_line(body, line);
      add_line(body, "memset(&null_result, 0, sizeof null_result);");
      add_line(body, "return null_result;");
      free(line);
      free(decl);
    }
  }
}
