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

static void push_range(struct ptrvec *to, int64_t low, int64_t high) {
  struct model_range *r = xcalloc(1, sizeof *r);
  r->low = low;
  r->high = high;
  ptrvec_push(to, r);
}

/* The words a status rule may use for a range of statuses. */
static bool resolve_word(const char *text, struct ptrvec *ranges) {
  if (strcmp(text, "negative") == 0)
    push_range(ranges, INT64_MIN, -1);
  else if (strcmp(text, "positive") == 0)
    push_range(ranges, 1, INT64_MAX);
  else if (strcmp(text, "nonnegative") == 0)
    push_range(ranges, 0, INT64_MAX);
  else if (strcmp(text, "zero") == 0)
    push_range(ranges, 0, 0);
  else if (strcmp(text, "nonzero") == 0) {
    push_range(ranges, INT64_MIN, -1);
    push_range(ranges, 1, INT64_MAX);
  } else
    return false;
  return true;
}

/* "LOW..HIGH", either bound a value or absent (no bound). False when text is no range or
 * a bound names nothing (*bad then names the bound). */
static bool resolve_range(const struct model *m, const char *text, struct ptrvec *ranges,
                          bool *is_range) {
  const char *dots = strstr(text, "..");
  *is_range = dots != NULL;
  if (!dots)
    return false;
  char *low_text = xstrndup(text, (size_t)(dots - text));
  char *high_text = xstrdup(dots + 2);
  str_trim(low_text);
  str_trim(high_text);
  int64_t low = INT64_MIN, high = INT64_MAX;
  bool ok = (!*low_text || resolve(m, low_text, &low)) && (!*high_text || resolve(m, high_text, &high)) &&
            low <= high;
  free(low_text);
  free(high_text);
  if (ok)
    push_range(ranges, low, high);
  return ok;
}

/* Resolves each value of `from` into `to` (int64_t*), reporting those that name nothing.
 * With ranges (not NULL), words and ranges go there and single values to `to`. */
static int resolve_all(const struct model *m, const struct spec *s, const struct ptrvec *from,
                       struct ptrvec *to, struct ptrvec *ranges, const char *what,
                       struct diag *d) {
  int rc = 0;
  for (size_t i = 0; i < from->len; i++) {
    const struct spec_string *v = from->items[i];
    if (ranges && resolve_word(v->value, ranges))
      continue;
    bool is_range = false;
    if (ranges && resolve_range(m, v->value, ranges, &is_range))
      continue;
    int64_t value;
    if (is_range || !resolve(m, v->value, &value)) {
      rc = diag_error_at(d, s->path, v->loc.line, v->loc.column,
                         is_range ? "Cannot resolve trace.status.%s: range=%s needs LOW..HIGH "
                                    "with LOW <= HIGH, each an integer or an integer "
                                    "constant of the model (or left out)"
                         : ranges ? "Cannot resolve trace.status.%s: %s is neither an integer, "
                                    "an integer constant of the model, a range LOW..HIGH nor "
                                    "one of negative, positive, zero, nonzero, nonnegative"
                                  : "Cannot resolve trace.status.%s: %s is neither an integer "
                                    "nor an integer constant of the model",
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

static bool is_status_type(const struct spec_trace *t, const char *spelling) {
  for (size_t i = 0; i < t->status_types.len; i++)
    if (strcmp(((const struct spec_string *)t->status_types.items[i])->value, spelling) == 0)
      return true;
  return false;
}

static const struct model_function *function_named(const struct model *m, const char *name) {
  for (size_t i = 0; i < m->functions.len; i++) {
    const struct model_function *f = m->functions.items[i];
    if (strcmp(f->name, name) == 0 || (f->written && strcmp(f->written, name) == 0))
      return f;
  }
  return NULL;
}

/* The library's own test of a result: a function of the model that takes one value and
 * returns an integer or a bool. Its model name is kept (pcre2-like macros resolved). */
static int resolve_is_error(const struct model *m, const struct spec *s,
                            const struct spec_string *is_error, const struct model_function *f,
                            struct model_status *st, struct diag *d) {
  const struct model_function *test = function_named(m, is_error->value);
  if (!test || test->params.len != 1 ||
      (test->result->kind != MODEL_KIND_INT && test->result->kind != MODEL_KIND_BOOL &&
       test->result->kind != MODEL_KIND_ENUM))
    return diag_error_at(d, s->path, is_error->loc.line, is_error->loc.column,
                         "Cannot use trace.status.is_error=%s for function=%s: it must be a "
                         "function of the model that takes the result alone and returns an "
                         "integer",
                         is_error->value, f->name);
  if (f->status->param)
    return diag_error_at(d, s->path, is_error->loc.line, is_error->loc.column,
                         "Cannot use trace.status.is_error=%s for function=%s: its status is "
                         "an out-param, which is_error does not test",
                         is_error->value, f->name);
  st->is_error = xstrdup(test->name);
  int64_t *zero = xcalloc(1, sizeof *zero);
  ptrvec_push(&st->success, zero); /* the wrapper records 0 for a result that is no error */
  return 0;
}

static int status_of(const struct model *m, struct spec *s, struct model_function *f,
                     struct diag *d) {
  struct spec_trace *t = &s->trace;
  /* Both lists count their matches, so each pattern is tried on every function. */
  bool listed = spec_patterns_match_function(&t->status_functions, f->name, f->written);
  bool excluded = spec_patterns_match_function(&t->status_exclude, f->name, f->written);
  if ((t->status_functions.len && !listed) || excluded)
    return 0;
  /* A status out-param wins over the result, which is then the call's product. */
  const struct model_param *p = status_param(s, f);
  struct spec_status_rule *rule = NULL;
  for (size_t i = 0; i < t->status_rules.len && !rule; i++) {
    struct spec_status_rule *r = t->status_rules.items[i];
    if (r->type && strcmp(r->type, f->result->spelling) != 0)
      continue;
    if (fnmatch(r->function, f->name, 0) == 0 ||
        (f->written && fnmatch(r->function, f->written, 0) == 0))
      rule = r;
  }
  bool typed = rule && rule->type; /* a rule with a type gives its functions a status */
  if (!p && !typed && !is_status_type(t, f->result->spelling))
    return 0;
  /* The library's own test is no status of its own calls. */
  const struct spec_string *is_error = rule && rule->is_error ? rule->is_error : t->status_is_error;
  if (is_error && !p && function_named(m, is_error->value) == f)
    return 0;
  if (rule)
    rule->matches++;
  struct model_status *st = xcalloc(1, sizeof *st);
  st->param = p ? xstrdup(p->name) : NULL;
  f->status = st;
  int rc = 0;
  if (is_error)
    return resolve_is_error(m, s, is_error, f, st, d);
  /* A rule that says what succeeds or fails replaces both of the status level's; an
   * error rule succeeds with whatever is no error, so it adds no success value. */
  bool own = rule && (rule->success.len || rule->error.len);
  const struct ptrvec *error = own ? &rule->error : &t->status_error;
  if (rule && rule->success.len) {
    rc |= resolve_all(m, s, &rule->success, &st->success, &st->success_ranges, "rules.success", d);
  } else if (!error->len || (!own && t->status_success)) {
    struct spec_string fallback = {t->status_success ? t->status_success : "0", t->status_loc};
    struct ptrvec one = {0};
    ptrvec_push(&one, &fallback);
    rc |= resolve_all(m, s, &one, &st->success, NULL, "success", d);
    ptrvec_free(&one);
  }
  if (rule && rule->not_ready.len)
    rc |= resolve_all(m, s, &rule->not_ready, &st->not_ready, NULL, "rules.not_ready", d);
  else
    rc |= resolve_all(m, s, &t->status_not_ready, &st->not_ready, NULL, "not_ready", d);
  /* Errors named as values are ranges of one value: the rest is no error. */
  struct ptrvec error_values = {0};
  rc |= resolve_all(m, s, error, &error_values, &st->errors, own ? "rules.error" : "error", d);
  for (size_t i = 0; i < error_values.len; i++) {
    int64_t v = *(int64_t *)error_values.items[i];
    push_range(&st->errors, v, v);
    free(error_values.items[i]);
  }
  ptrvec_free(&error_values);
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
  bool typed_rules = false;
  for (size_t i = 0; i < t->status_rules.len; i++)
    typed_rules |= ((const struct spec_status_rule *)t->status_rules.items[i])->type != NULL;
  if (!t->present || (!t->status_types.len && t->status_params.len == 0 && !typed_rules))
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
                         "Filter matches nothing: trace.status.rules function=%s%s%s", r->function,
                         r->type ? ", type=" : "", r->type ? r->type : "");
  }
  return rc ? -1 : 0;
}
