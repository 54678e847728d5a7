/* view_expr: see view_expr.h. */
#include "view_expr.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const struct model_param *view_param_named(const struct model_function *f, const char *name,
                                           size_t len) {
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    if (strlen(p->name) == len && strncmp(p->name, name, len) == 0)
      return p;
  }
  return NULL;
}

/* expr with each param it names prefixed by base (members after `.` and `->` are not
 * params). *guard: the first pointer param named, NULL if none; *named: whether any was. */
static char *over_base(const struct model_function *f, const char *expr, const char *base,
                       const struct model_param **guard, bool *named) {
  struct strbuf sb;
  strbuf_init(&sb);
  *guard = NULL;
  *named = false;
  for (const char *s = expr; *s;) {
    if (!isalpha((unsigned char)*s) && *s != '_') {
      strbuf_addn(&sb, s++, 1);
      continue;
    }
    const char *start = s;
    while (isalnum((unsigned char)*s) || *s == '_')
      s++;
    bool member = start > expr &&
                  (start[-1] == '.' || (start > expr + 1 && start[-1] == '>' && start[-2] == '-'));
    const struct model_param *p = member ? NULL : view_param_named(f, start, (size_t)(s - start));
    if (p) {
      strbuf_addf(&sb, "%s%s", base, p->name);
      *named = true;
      if (!*guard && p->type->kind == MODEL_KIND_POINTER)
        *guard = p;
    } else {
      strbuf_addn(&sb, start, (size_t)(s - start));
    }
  }
  return strbuf_release(&sb);
}

char *view_length_expr(const struct model_function *f, const char *expr, const char *base) {
  const struct model_param *guard;
  bool named;
  char *body = over_base(f, expr, base, &guard, &named);
  char *out = guard ? xasprintf("(%s%s ? (size_t)(%s) : 0)", base, guard->name, body)
                    : xasprintf("(size_t)(%s)", body);
  free(body);
  return out;
}

/* A param alone is read as it is; an expression that reads through one is guarded. */
static char *guarded(const struct model_function *f, const char *expr, const char *base,
                     const char *cast) {
  const struct model_param *guard;
  bool named;
  char *body = over_base(f, expr, base, &guard, &named);
  char *out = NULL;
  if (named && view_param_named(f, expr, strlen(expr)))
    out = xasprintf("(%s)%s", cast, body);
  else if (named && guard)
    out = xasprintf("(%s%s ? (%s)(%s) : 0)", base, guard->name, cast, body);
  else if (named)
    out = xasprintf("(%s)(%s)", cast, body);
  free(body);
  return out;
}

char *view_value_expr(const struct model_function *f, const char *expr, const char *base) {
  return guarded(f, expr, base, "uintptr_t");
}

char *view_string_expr(const struct model_function *f, const char *expr, const char *base) {
  return guarded(f, expr, base, "const char *");
}
