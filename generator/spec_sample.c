/* spec_sample: reads a spec's `sample` section. See spec_sample.h. */
#include "spec_sample.h"

#include <stdlib.h>
#include <string.h>

#include "spec_yaml.h"

static const char *const sample_keys[] = {"init",    "init_args", "shutdown", "environment",
                                          "devices", "counters",  NULL};
static const char *const device_keys[] = {"count", "get",         "drivers", "list",
                                          "name",  "name_member", NULL};
static const char *const counter_keys[] = {"query",   "args", "set", "value", "unit",
                                           "scale",   "domains", "rate", NULL};

/* PARAM: VALUE pairs into args (`args`; `set`: MEMBER: VALUE). */
static int read_args(struct yamldoc *y, yaml_node_t *n, struct ptrvec *args, struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read args: expected a mapping NAME: VALUE");
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    const char *param = yamldoc_scalar(yamldoc_map_key(y, n, i));
    yaml_node_t *v = yamldoc_map_value(y, n, i);
    const char *value = yamldoc_scalar(v);
    if (!param || !value || !*value) {
      rc = yamldoc_error(y, v, d, "Cannot read args: expected NAME: VALUE (a C expression)");
      continue;
    }
    struct spec_sample_arg *a = xcalloc(1, sizeof *a);
    a->param = xstrdup(param);
    a->value = xstrdup(value);
    ptrvec_push(args, a);
  }
  return rc;
}

static int read_counter(struct yamldoc *y, const char *name, yaml_node_t *body,
                        struct spec_sample *s, struct diag *d) {
  if (yamldoc_check_keys(y, body, counter_keys, "sample counter", d))
    return -1;
  struct spec_sample_counter *c = xcalloc(1, sizeof *c);
  c->name = xstrdup(name);
  c->loc = spec_loc_of(body);
  ptrvec_push(&s->counters, c);
  int rc = spec_read_string(y, body, "query", true, &c->query, d);
  rc |= spec_read_string(y, body, "unit", true, &c->unit, d);
  rc |= spec_read_string(y, body, "value", false, &c->value, d);
  rc |= spec_read_string(y, body, "scale", false, &c->scale, d);
  rc |= spec_read_string(y, body, "domains", false, &c->domains, d);
  rc |= spec_read_string(y, body, "rate", false, &c->rate, d);
  rc |= read_args(y, yamldoc_get(y, body, "args"), &c->args, d);
  rc |= read_args(y, yamldoc_get(y, body, "set"), &c->set, d);
  if (c->scale) {
    char *end = NULL;
    strtod(c->scale, &end);
    if (!end || *end)
      rc = yamldoc_error(y, yamldoc_get(y, body, "scale"), d,
                         "Cannot read scale: expected a number, got %s", c->scale);
  }
  return rc;
}

int spec_sample_read(struct yamldoc *y, yaml_node_t *n, struct spec_sample **out, struct diag *d) {
  *out = NULL;
  if (!n)
    return 0;
  if (yamldoc_check_keys(y, n, sample_keys, "sample", d))
    return -1;
  struct spec_sample *s = xcalloc(1, sizeof *s);
  s->loc = spec_loc_of(n);
  *out = s;
  int rc = spec_read_string(y, n, "init", false, &s->init, d);
  rc |= read_args(y, yamldoc_get(y, n, "init_args"), &s->init_args, d);
  rc |= spec_read_string(y, n, "shutdown", false, &s->shutdown, d);
  yaml_node_t *env = yamldoc_get(y, n, "environment");
  for (int i = 0; env && env->type == YAML_SEQUENCE_NODE && i < yamldoc_seq_length(env); i++) {
    yaml_node_t *item = yamldoc_seq_item(y, env, i);
    const char *v = yamldoc_scalar(item);
    if (!v || !strchr(v, '=')) {
      rc = yamldoc_error(y, item, d, "Cannot read sample environment: expected NAME=VALUE");
      continue;
    }
    struct spec_string *e = xcalloc(1, sizeof *e);
    e->value = xstrdup(v);
    e->loc = spec_loc_of(item);
    ptrvec_push(&s->environment, e);
  }
  if (env && env->type != YAML_SEQUENCE_NODE)
    rc = yamldoc_error(y, env, d, "Cannot read sample environment: expected a list NAME=VALUE");
  yaml_node_t *devices = yamldoc_get(y, n, "devices");
  if (!devices)
    return yamldoc_error(y, n, d, "Missing required key in sample: key=devices");
  if (yamldoc_check_keys(y, devices, device_keys, "sample devices", d))
    return -1;
  rc |= spec_read_string(y, devices, "count", false, &s->count, d);
  rc |= spec_read_string(y, devices, "get", false, &s->get, d);
  rc |= spec_read_string(y, devices, "drivers", false, &s->drivers, d);
  rc |= spec_read_string(y, devices, "list", false, &s->list, d);
  rc |= spec_read_string(y, devices, "name", false, &s->name, d);
  rc |= spec_read_string(y, devices, "name_member", false, &s->name_member, d);
  if (rc == 0 && !(s->count && s->get && !s->drivers && !s->list) &&
      !(s->drivers && s->list && !s->count && !s->get))
    rc = yamldoc_error(y, devices, d,
                       "Cannot read sample devices: give either count and get (a count, then "
                       "a handle per index) or drivers and list (two-call lists)");
  yaml_node_t *counters = yamldoc_get(y, n, "counters");
  if (!counters || counters->type != YAML_MAPPING_NODE || yamldoc_map_length(counters) == 0)
    return yamldoc_error(y, counters ? counters : n, d,
                         "Cannot read sample counters: expected a mapping NAME: {query, unit, "
                         "...} with at least one counter");
  for (int i = 0; i < yamldoc_map_length(counters); i++) {
    const char *name = yamldoc_scalar(yamldoc_map_key(y, counters, i));
    rc |= read_counter(y, name ? name : "", yamldoc_map_value(y, counters, i), s, d);
  }
  return rc;
}

static void free_args(struct ptrvec *args) {
  for (size_t i = 0; i < args->len; i++) {
    struct spec_sample_arg *a = args->items[i];
    free(a->param);
    free(a->value);
    free(a);
  }
  ptrvec_free(args);
}

void spec_sample_free(struct spec_sample *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->counters.len; i++) {
    struct spec_sample_counter *c = s->counters.items[i];
    free(c->name);
    free(c->query);
    free(c->value);
    free(c->unit);
    free(c->scale);
    free(c->domains);
    free(c->rate);
    free_args(&c->args);
    free_args(&c->set);
    free(c);
  }
  ptrvec_free(&s->counters);
  free_args(&s->init_args);
  for (size_t i = 0; i < s->environment.len; i++) {
    struct spec_string *e = s->environment.items[i];
    free(e->value);
    free(e);
  }
  ptrvec_free(&s->environment);
  free(s->init);
  free(s->shutdown);
  free(s->count);
  free(s->get);
  free(s->drivers);
  free(s->list);
  free(s->name);
  free(s->name_member);
  free(s);
}
