/* view_sample: the sampler's calls, as C. See view_sample.h. */
#include "view_sample.h"

#include <stdlib.h>
#include <string.h>

#include "spec_sample.h"
#include "util.h"
#include "view_expr.h"

struct sample_view {
  const struct model *m;
  const struct spec *s;
  struct diag *d;
  struct strset used; /* functions the sampler resolves */
  struct tree *functions;
  int rc;
  struct spec_loc at; /* where the spec says what is being built, for messages */
};

static const struct model_function *find_function(struct sample_view *v, const char *name,
                                                  const char *what) {
  for (size_t i = 0; i < v->m->functions.len; i++) {
    const struct model_function *f = v->m->functions.items[i];
    if (strcmp(f->name, name) == 0) {
      if (strset_add(&v->used, name))
        tree_set_string(tree_push(v->functions, tree_map()), "name", name);
      return f;
    }
  }
  v->rc = diag_error_at(v->d, v->s->path, v->at.line, v->at.column,
                        "Cannot sample %s: function=%s is not in the model", what, name);
  return NULL;
}

static const char *arg_value(const struct ptrvec *args, const char *param) {
  for (size_t i = 0; args && i < args->len; i++) {
    const struct spec_sample_arg *a = args->items[i];
    if (strcmp(a->param, param) == 0)
      return a->value;
  }
  return NULL;
}

static bool is_out_pointer(const struct model_param *p) {
  return p->type->kind == MODEL_KIND_POINTER && !p->type->handle && p->type->target &&
         !p->type->target->is_const;
}

/* The param that a two-call list's array length names (`*pCount` -> pCount), or NULL. */
static const struct model_param *count_param(const struct model_function *f) {
  static const char identifier[] =
      "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    if (!p->length)
      continue;
    const char *name = p->length + strspn(p->length, "*( ");
    const struct model_param *c = view_param_named(f, name, strspn(name, identifier));
    if (c)
      return c;
  }
  return NULL;
}

/* The call of f as C: `sample_F(a, b, ...)`. handle: the expression of the first handle
 * param (may be NULL); out: of the first out pointer; count and array: a two-call list's
 * (may be NULL); size: a length param after a string out param. */
struct call_values {
  const char *handle, *out, *count, *array, *index, *size;
  const struct ptrvec *args;
};

static char *call_of(struct sample_view *v, const struct model_function *f,
                     const struct call_values *c) {
  struct strbuf b;
  strbuf_init(&b);
  strbuf_addf(&b, "sample_%s(", f->name);
  const struct model_param *counted = c->count ? count_param(f) : NULL;
  bool handle_used = false, out_used = false;
  char *cast = NULL;
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    const char *value = arg_value(c->args, p->name);
    if (!value && counted && p == counted)
      value = c->count;
    else if (!value && c->array && p->length)
      value = c->array;
    else if (!value && c->handle && !handle_used && p->type->handle) {
      /* Cast: the handle may come from another part of the API (Level Zero's core device
       * handles are Sysman's). */
      free(cast);
      cast = xasprintf("(%s)%s", p->type->spelling, c->handle);
      value = cast;
      handle_used = true;
    } else if (!value && c->out && !out_used && is_out_pointer(p))
      value = c->out, out_used = true;
    else if (!value && c->index && p->type->kind == MODEL_KIND_INT)
      value = c->index;
    else if (!value && c->size && out_used && p->type->kind == MODEL_KIND_INT)
      value = c->size;
    if (!value) {
      v->rc = diag_error_at(v->d, v->s->path, v->at.line, v->at.column,
                            "Cannot sample: param=%s of function=%s has no value (give it in "
                            "args)",
                            p->name, f->name);
      value = "0";
    }
    strbuf_addf(&b, "%s%s", i ? ", " : "", value);
  }
  strbuf_add(&b, ")");
  free(cast);
  return strbuf_release(&b);
}

/* The type an out param points to, or of the first handle array (a two-call list). */
static const char *target_of(struct sample_view *v, const struct model_function *f, bool array) {
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    if (is_out_pointer(p) && (array ? p->length != NULL : p->type->target->kind != MODEL_KIND_VOID))
      return p->type->target->spelling;
  }
  v->rc = diag_error_at(v->d, v->s->path, v->at.line, v->at.column,
                        "Cannot sample: function=%s has no %s", f->name,
                        array ? "array of handles (a two-call list)" : "out param");
  return "int";
}

/* The type of a two-call list's count (`uint32_t` for `uint32_t *pCount`). */
static const char *count_type_of(struct sample_view *v, const struct model_function *f) {
  const struct model_param *c = count_param(f);
  if (c && c->type->kind == MODEL_KIND_POINTER && c->type->target)
    return c->type->target->spelling;
  v->rc = diag_error_at(v->d, v->s->path, v->at.line, v->at.column,
                        "Cannot sample: function=%s has no count of a two-call list", f->name);
  return "unsigned";
}

static void add_devices(struct sample_view *v, const struct spec_sample *ss, struct tree *root) {
  struct tree *index = tree_set(root, "index_devices", tree_list());
  struct tree *listed = tree_set(root, "listed_devices", tree_list());
  const struct model_function *f;
  if (ss->count) {
    struct tree *t = tree_push(index, tree_map());
    if ((f = find_function(v, ss->count, "devices.count"))) {
      tree_set_string(t, "count_type", target_of(v, f, false));
      char *call = call_of(v, f, &(struct call_values){.out = "&count"});
      tree_set_string(t, "count_call", call);
      free(call);
    }
    if ((f = find_function(v, ss->get, "devices.get"))) {
      tree_set_string(root, "device_type", target_of(v, f, false));
      char *call = call_of(v, f, &(struct call_values){.out = "&device", .index = "i"});
      tree_set_string(t, "get_call", call);
      free(call);
    }
  } else {
    struct tree *t = tree_push(listed, tree_map());
    if ((f = find_function(v, ss->drivers, "devices.drivers"))) {
      tree_set_string(t, "driver_type", target_of(v, f, true));
      tree_set_string(t, "count_type", count_type_of(v, f));
      char *call = call_of(v, f, &(struct call_values){.count = "&count", .array = "drivers"});
      tree_set_string(t, "drivers_call", call);
      free(call);
    }
    if ((f = find_function(v, ss->list, "devices.list"))) {
      tree_set_string(root, "device_type", target_of(v, f, true));
      char *call = call_of(
          v, f,
          &(struct call_values){.handle = "drivers[k]", .count = "&listed", .array = "devices"});
      tree_set_string(t, "list_call", call);
      free(call);
    }
  }
  if (!tree_get(root, "device_type"))
    tree_set_string(root, "device_type", "void *");
  struct tree *string_name = tree_set(root, "name_string", tree_list());
  struct tree *struct_name = tree_set(root, "name_struct", tree_list());
  if (ss->name && (f = find_function(v, ss->name, "devices.name"))) {
    const char *type = target_of(v, f, false);
    bool is_string = strcmp(type, "char") == 0;
    struct tree *t = tree_push(is_string ? string_name : struct_name, tree_map());
    struct call_values c = {.handle = "sampled_devices[device]",
                            .out = is_string ? "name" : "&value",
                            .size = "(unsigned)size"};
    char *call = call_of(v, f, &c);
    tree_set_string(t, "call", call);
    tree_set_string(t, "type", type);
    tree_set_string(t, "member", ss->name_member ? ss->name_member : "name");
    free(call);
  }
}

/* A counter's value: a C expression over the members of the query's out value, each
 * member name taken as `value.NAME` ("size - free" -> "value.size - value.free"). */
static char *members_of(const char *expr) {
  struct strbuf b;
  strbuf_init(&b);
  for (const char *p = expr; *p;) {
    bool starts = (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) &&
                  (p == expr || p[-1] != '.');
    size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
    if (starts) {
      strbuf_add(&b, "value.");
      strbuf_addn(&b, p, n);
      p += n;
    } else {
      strbuf_addn(&b, p, n ? n : 1);
      p += n ? n : 1;
    }
  }
  return strbuf_release(&b);
}

/* The record an out value's type names (its canonical "struct tag", or its name), or NULL. */
static const struct model_record *record_of(const struct model *m,
                                            const struct model_function *f) {
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    if (!is_out_pointer(p))
      continue;
    const struct model_type *t = p->type->target;
    for (size_t k = 0; k < m->records.len; k++) {
      const struct model_record *r = m->records.items[k];
      if (strcmp(r->name, t->canonical) == 0 || strcmp(r->name, t->spelling) == 0)
        return r;
    }
    return NULL;
  }
  return NULL;
}

/* `set`: members of the out value given before the query; each must be a member of it. */
static void add_set(struct sample_view *v, const struct spec_sample_counter *c,
                    const struct model_function *f, struct tree *t) {
  struct tree *set = tree_set(t, "set", tree_list());
  const struct model_record *r = c->set.len ? record_of(v->m, f) : NULL;
  for (size_t i = 0; i < c->set.len; i++) {
    const struct spec_sample_arg *a = c->set.items[i];
    bool member = false;
    for (size_t k = 0; r && k < r->fields.len; k++) {
      const struct model_field *field = r->fields.items[k];
      member |= field->name && strcmp(field->name, a->param) == 0;
    }
    if (!member) {
      v->rc = diag_error_at(v->d, v->s->path, c->loc.line, c->loc.column,
                            "Cannot sample %s: set member=%s is not a member of the out value "
                            "of function=%s",
                            c->name, a->param, f->name);
      continue;
    }
    struct tree *s = tree_push(set, tree_map());
    tree_set_string(s, "member", a->param);
    tree_set_string(s, "to", a->value);
  }
}

static void add_counter(struct sample_view *v, const struct spec_sample_counter *c,
                        struct tree *list) {
  v->at = c->loc;
  const struct model_function *f = find_function(v, c->query, "a counter");
  if (!f)
    return;
  struct tree *t = tree_push(list, tree_map());
  tree_set_string(t, "name", c->name);
  tree_set_string(t, "query", c->query);
  tree_set_string(t, "unit", c->unit);
  tree_set_string(t, "scale", c->scale ? c->scale : "1.0");
  tree_set_string(t, "value_type", target_of(v, f, false));
  char *value = c->value ? members_of(c->value) : xstrdup("value");
  tree_set_string(t, "value", value);
  free(value);
  add_set(v, c, f, t);
  struct tree *direct = tree_set(t, "direct", tree_list());
  struct tree *domains = tree_set(t, "domains", tree_list());
  struct tree *rate = tree_set(t, "rate", tree_list());
  struct tree *level = tree_set(t, "level", tree_list());
  if (c->rate)
    tree_set_string(tree_push(rate, tree_map()), "time", c->rate);
  else
    tree_push(level, tree_map());
  const struct model_function *e = c->domains ? find_function(v, c->domains, c->name) : NULL;
  if (e) {
    struct tree *dm = tree_push(domains, tree_map());
    tree_set_string(dm, "type", target_of(v, e, true));
    tree_set_string(dm, "count_type", count_type_of(v, e));
    char *call = call_of(v, e,
                         &(struct call_values){.handle = "sampled_devices[device]",
                                               .count = "&count",
                                               .array = "handles",
                                               .args = &c->args});
    tree_set_string(dm, "enumerate_call", call);
    free(call);
    call = call_of(
        v, f, &(struct call_values){.handle = "handles[k]", .out = "&value", .args = &c->args});
    tree_set_string(dm, "call", call);
    free(call);
  } else if (!c->domains) {
    char *call =
        call_of(v, f,
                &(struct call_values){
                    .handle = "sampled_devices[device]", .out = "&value", .args = &c->args});
    tree_set_string(tree_push(direct, tree_map()), "call", call);
    free(call);
  }
}

int view_sample(const struct model *m, const struct spec *s, struct tree *root, struct diag *d) {
  struct tree *list = tree_set(root, "sample", tree_list());
  const struct spec_sample *ss = s->sample;
  if (!ss)
    return 0;
  struct tree *t = tree_push(list, tree_map());
  struct sample_view v = {m, s, d, {0}, tree_set(t, "functions", tree_list()), 0, ss->loc};
  tree_set_string(t, "success", s->trace.status_success ? s->trace.status_success : "0");
  struct tree *environment = tree_set(t, "environment", tree_list());
  for (size_t i = 0; i < ss->environment.len; i++)
    tree_set_string(tree_push(environment, tree_map()), "value",
                    ((const struct spec_string *)ss->environment.items[i])->value);
  struct tree *init = tree_set(t, "init", tree_list());
  struct tree *shutdown = tree_set(t, "shutdown", tree_list());
  const struct model_function *f;
  if (ss->init && (f = find_function(&v, ss->init, "init"))) {
    char *call = call_of(&v, f, &(struct call_values){.args = &ss->init_args});
    tree_set_string(tree_push(init, tree_map()), "call", call);
    free(call);
  }
  if (ss->shutdown && (f = find_function(&v, ss->shutdown, "shutdown"))) {
    char *call = call_of(&v, f, &(struct call_values){0});
    tree_set_string(tree_push(shutdown, tree_map()), "call", call);
    free(call);
  }
  add_devices(&v, ss, t);
  struct tree *counters = tree_set(t, "counters", tree_list());
  for (size_t i = 0; i < ss->counters.len; i++)
    add_counter(&v, ss->counters.items[i], counters);
  strset_free(&v.used);
  return v.rc;
}
