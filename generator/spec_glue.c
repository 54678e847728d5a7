/* spec_glue: see spec_glue.h. */
#include "spec_glue.h"

#include <stdlib.h>
#include <string.h>

#include "spec_yaml.h"

static const char *const result_keys[] = {"intern", "member", "init", "unique", "now", NULL};
static const char *const add_flags_keys[] = {"param", "member", "key", "flags", NULL};
static const char *const entry_point_keys[] = {"name", "address", "by", NULL};
static const char *const hooks_calls_keys[] = {"prefix", "functions", NULL};
static const char *const callback_table_keys[] = {"ids", "prefix", "functions", NULL};

static int read_flag(struct yamldoc *y, yaml_node_t *body, const char *key, int *out,
                     struct diag *d) {
  yaml_node_t *n = yamldoc_get(y, body, key);
  return n ? spec_read_bool(y, n, out, d) : 0;
}

static int read_result(struct yamldoc *y, const char *function, struct spec_loc loc,
                       yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_result *r = xcalloc(1, sizeof *r);
  r->function = xstrdup(function);
  r->loc = loc;
  ptrvec_push(&t->results, r);
  int rc = spec_read_string(y, body, "intern", false, &r->intern, d);
  rc |= spec_read_string(y, body, "member", false, &r->member, d);
  rc |= read_flag(y, body, "unique", &r->unique, d);
  rc |= read_flag(y, body, "now", &r->now, d);
  yaml_node_t *init = yamldoc_get(y, body, "init");
  if (init && init->type != YAML_MAPPING_NODE)
    rc = yamldoc_error(y, init, d, "Cannot read trace.results.%s.init: expected MEMBER: VALUE",
                       function);
  for (int i = 0; init && init->type == YAML_MAPPING_NODE && i < yamldoc_map_length(init); i++) {
    const char *member = yamldoc_scalar(yamldoc_map_key(y, init, i));
    const char *value = yamldoc_scalar(yamldoc_map_value(y, init, i));
    if (!member || !*member || !value || !*value) {
      rc = yamldoc_error(y, init, d, "Cannot read trace.results.%s.init: expected MEMBER: VALUE",
                         function);
      continue;
    }
    struct spec_string *m = xcalloc(1, sizeof *m), *v = xcalloc(1, sizeof *v);
    m->value = xstrdup(member);
    v->value = xstrdup(value);
    ptrvec_push(&r->init_members, m);
    ptrvec_push(&r->init_values, v);
  }
  if ((r->intern != NULL) + (r->unique == 1) + (r->now == 1) != 1)
    rc = yamldoc_error(y, body, d,
                       "Cannot read trace.results.%s: expected one of intern (a param), "
                       "unique: true or now: true",
                       function);
  if ((r->member || init) && !r->intern)
    rc = yamldoc_error(y, body, d, "Cannot read trace.results.%s: member and init go with intern",
                       function);
  if (init && !r->member)
    rc = yamldoc_error(
        y, init, d, "Cannot read trace.results.%s: init needs member, the object's name", function);
  return rc;
}

static int read_add_flags(struct yamldoc *y, const char *function, struct spec_loc loc,
                          yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_add_flags *a = xcalloc(1, sizeof *a);
  a->function = xstrdup(function);
  a->loc = loc;
  ptrvec_push(&t->add_flags, a);
  int rc = spec_read_string(y, body, "param", true, &a->param, d);
  rc |= spec_read_string(y, body, "flags", true, &a->flags, d);
  rc |= spec_read_string(y, body, "member", false, &a->member, d);
  rc |= spec_read_string(y, body, "key", false, &a->key, d);
  if (a->member && a->key)
    rc = yamldoc_error(y, body, d,
                       "Cannot read trace.add_flags.%s: member (of a struct) and key (of a "
                       "property list) exclude each other",
                       function);
  return rc;
}

static int read_entry_point(struct yamldoc *y, const char *function, struct spec_loc loc,
                            yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_entry_point *e = xcalloc(1, sizeof *e);
  e->function = xstrdup(function);
  e->loc = loc;
  ptrvec_push(&t->entry_points, e);
  int rc = spec_read_string(y, body, "name", true, &e->name, d);
  rc |= spec_read_string(y, body, "address", true, &e->address, d);
  rc |= spec_read_string(y, body, "by", false, &e->by, d);
  if (e->by && strcmp(e->by, "name") != 0 && strcmp(e->by, "address") != 0)
    rc = yamldoc_error(y, body, d,
                       "Cannot read trace.entry_points.%s: by=%s is neither name nor address",
                       function, e->by);
  return rc;
}

static int read_callback_table(struct yamldoc *y, const char *module, struct spec_loc loc,
                               yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_callback_table *c = xcalloc(1, sizeof *c);
  c->module = xstrdup(module);
  c->loc = loc;
  ptrvec_push(&t->callback_tables, c);
  int rc = spec_read_string(y, body, "ids", true, &c->ids, d);
  rc |= spec_read_string(y, body, "prefix", true, &c->prefix, d);
  return rc | spec_read_string(y, body, "functions", true, &c->functions, d);
}

int spec_read_glue(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t, struct diag *d) {
  int rc = spec_read_entries(y, yamldoc_get(y, n, "results"), "results", "trace result",
                             result_keys, read_result, t, d);
  rc |= spec_read_entries(y, yamldoc_get(y, n, "add_flags"), "add_flags", "trace add_flags",
                          add_flags_keys, read_add_flags, t, d);
  rc |= spec_read_entries(y, yamldoc_get(y, n, "entry_points"), "entry_points", "trace entry point",
                          entry_point_keys, read_entry_point, t, d);
  rc |= spec_read_entries(y, yamldoc_get(y, n, "callback_tables"), "callback_tables",
                          "trace callback table", callback_table_keys, read_callback_table, t, d);
  rc |=
      spec_read_list(y, yamldoc_get(y, n, "drain_after"), "drain_after", true, &t->drain_after, d);
  rc |= spec_read_string(y, n, "predefined_macro", false, &t->predefined_macro, d);
  for (const char *c = t->predefined_macro; c && *c; c++)
    if (!(*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
          (c > t->predefined_macro && *c >= '0' && *c <= '9'))) {
      rc = yamldoc_error(y, yamldoc_get(y, n, "predefined_macro"), d,
                         "Cannot read trace.predefined_macro: %s is no macro name",
                         t->predefined_macro);
      break;
    }
  yaml_node_t *calls = yamldoc_get(y, n, "hooks_calls");
  if (calls) {
    if (yamldoc_check_keys(y, calls, hooks_calls_keys, "trace.hooks_calls", d))
      return -1;
    t->hooks_calls_loc = spec_loc_of(calls);
    rc |= spec_read_string(y, calls, "prefix", false, &t->hooks_calls_prefix, d);
    rc |= spec_read_list(y, yamldoc_get(y, calls, "functions"), "hooks_calls.functions", false,
                         &t->hooks_calls, d);
    if (!t->hooks_calls.len)
      rc = yamldoc_error(y, calls, d, "Cannot read trace.hooks_calls: no functions");
  }
  return rc;
}

static void free_strings(struct ptrvec *v) {
  for (size_t i = 0; i < v->len; i++) {
    free(((struct spec_string *)v->items[i])->value);
    free(v->items[i]);
  }
  ptrvec_free(v);
}

void spec_free_glue(struct spec_trace *t) {
  for (size_t i = 0; i < t->results.len; i++) {
    struct spec_result *r = t->results.items[i];
    free(r->function);
    free(r->intern);
    free(r->member);
    free_strings(&r->init_members);
    free_strings(&r->init_values);
    free(r);
  }
  ptrvec_free(&t->results);
  for (size_t i = 0; i < t->add_flags.len; i++) {
    struct spec_add_flags *a = t->add_flags.items[i];
    free(a->function);
    free(a->param);
    free(a->member);
    free(a->key);
    free(a->flags);
    free(a);
  }
  ptrvec_free(&t->add_flags);
  for (size_t i = 0; i < t->entry_points.len; i++) {
    struct spec_entry_point *e = t->entry_points.items[i];
    free(e->function);
    free(e->name);
    free(e->address);
    free(e->by);
    free(e);
  }
  ptrvec_free(&t->entry_points);
  for (size_t i = 0; i < t->drain_after.len; i++) {
    free(((struct spec_pattern *)t->drain_after.items[i])->glob);
    free(t->drain_after.items[i]);
  }
  ptrvec_free(&t->drain_after);
  free_strings(&t->hooks_calls);
  for (size_t i = 0; i < t->callback_tables.len; i++) {
    struct spec_callback_table *c = t->callback_tables.items[i];
    free(c->module);
    free(c->ids);
    free(c->prefix);
    free(c->functions);
    free(c);
  }
  ptrvec_free(&t->callback_tables);
  free(t->hooks_calls_prefix);
  free(t->predefined_macro);
}
