/* model_status: per-function status rules. See model_status.h. */
#include "model_status.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* An integer, a macro constant or an enum constant of the model. */
static bool resolve(const struct model *m, const char *text, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 0);
  if (!errno && end != text && !*end) {
    *out = v;
    return true;
  }
  for (size_t i = 0; i < m->constants.len; i++) {
    const struct model_constant *c = m->constants.items[i];
    if (c->kind == MODEL_CONST_INT && strcmp(c->name, text) == 0) {
      *out = c->is_signed ? c->value : (int64_t)c->uvalue;
      return true;
    }
  }
  for (size_t i = 0; i < m->enums.len; i++) {
    const struct model_enum *e = m->enums.items[i];
    for (size_t k = 0; k < e->constants.len; k++) {
      const struct model_enum_constant *c = e->constants.items[k];
      if (strcmp(c->name, text) == 0) {
        *out = e->is_signed ? c->value : (int64_t)c->uvalue;
        return true;
      }
    }
  }
  return false;
}

/* Resolves each value of `from` into `to` (int64_t*), reporting those that name nothing. */
static int resolve_all(const struct model *m, const struct spec *s, const struct ptrvec *from,
                       struct ptrvec *to, const char *what, struct diag *d) {
  int rc = 0;
  for (size_t i = 0; i < from->len; i++) {
    const struct spec_string *v = from->items[i];
    int64_t value;
    if (!resolve(m, v->value, &value)) {
      rc = diag_error_at(d, s->path, v->loc.line, v->loc.column,
                         "Cannot resolve trace.status.%s: %s is neither an integer nor an "
                         "integer constant of the model",
                         what, v->value);
      continue;
    }
    int64_t *slot = xcalloc(1, sizeof *slot);
    *slot = value;
    ptrvec_push(to, slot);
  }
  return rc;
}

static const struct model_param *status_param(const struct spec *s,
                                              const struct model_function *f) {
  for (size_t i = 0; i < s->trace.status_params.len; i++) {
    const struct spec_string *sp = s->trace.status_params.items[i];
    for (size_t k = 0; k < f->params.len; k++) {
      const struct model_param *p = f->params.items[k];
      if (strcmp(p->name, sp->value) == 0 && p->type->kind == MODEL_KIND_POINTER &&
          p->type->target)
        return p;
    }
  }
  return NULL;
}

static int status_of(const struct model *m, struct spec *s, struct model_function *f,
                     struct diag *d) {
  struct spec_trace *t = &s->trace;
  /* Both lists count their matches, so each pattern is tried on every function. */
  bool listed = spec_patterns_match(&t->status_functions, f->name);
  bool excluded = spec_patterns_match(&t->status_exclude, f->name);
  if ((t->status_functions.len && !listed) || excluded)
    return 0;
  /* A status out-param wins over the result, which is then the call's product. */
  const struct model_param *p = status_param(s, f);
  if (!p && (!t->status_type || strcmp(f->result->spelling, t->status_type) != 0))
    return 0;
  struct spec_status_rule *rule = NULL;
  for (size_t i = 0; i < t->status_rules.len && !rule; i++) {
    struct spec_status_rule *r = t->status_rules.items[i];
    if (fnmatch(r->function, f->name, 0) == 0) {
      r->matches++;
      rule = r;
    }
  }
  struct model_status *st = xcalloc(1, sizeof *st);
  st->param = p ? xstrdup(p->name) : NULL;
  f->status = st;
  int rc = 0;
  if (rule && rule->success.len) {
    rc |= resolve_all(m, s, &rule->success, &st->success, "rules.success", d);
  } else {
    struct spec_string fallback = {t->status_success ? t->status_success : "0", t->status_loc};
    struct ptrvec one = {0};
    ptrvec_push(&one, &fallback);
    rc |= resolve_all(m, s, &one, &st->success, "success", d);
    ptrvec_free(&one);
  }
  if (rule && rule->not_ready.len)
    rc |= resolve_all(m, s, &rule->not_ready, &st->not_ready, "rules.not_ready", d);
  else
    rc |= resolve_all(m, s, &t->status_not_ready, &st->not_ready, "not_ready", d);
  return rc;
}

static int check_patterns(const struct spec *s, const struct ptrvec *v, const char *what,
                          struct diag *d) {
  int rc = 0;
  for (size_t i = 0; i < v->len; i++) {
    const struct spec_pattern *p = v->items[i];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: %s pattern=%s", what, p->glob);
  }
  return rc;
}

int model_status_apply(struct model *m, struct spec *s, struct diag *d) {
  struct spec_trace *t = &s->trace;
  if (!t->present || (!t->status_type && t->status_params.len == 0))
    return 0;
  int rc = 0;
  for (size_t i = 0; i < m->functions.len; i++)
    rc |= status_of(m, s, m->functions.items[i], d);
  rc |= check_patterns(s, &t->status_functions, "trace.status.functions", d);
  rc |= check_patterns(s, &t->status_exclude, "trace.status.exclude", d);
  for (size_t i = 0; i < t->status_rules.len; i++) {
    const struct spec_status_rule *r = t->status_rules.items[i];
    if (r->matches == 0)
      rc = diag_error_at(d, s->path, r->loc.line, r->loc.column,
                         "Filter matches nothing: trace.status.rules function=%s", r->function);
  }
  return rc ? -1 : 0;
}
