/* spec: reads api-specs/<backend>.yaml with libyaml and validates every key. */
#include "spec.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "spec_device.h"
#include "spec_sample.h"
#include "spec_messages.h"
#include "spec_glue.h"
#include "spec_yaml.h"
#include "yamldoc.h"

static const char *const spec_keys[] = {
    "backend",  "description", "library", "collector", "headers", "include_dirs", "include_dirs_after", "defines", "std",
    "missing_hint", "select", "exclude", "handles", "params", "trace", "sample", NULL};
static const char *const trace_keys[] = {"hooks", "runtime_parts", "before", "after", "exclude", "status",
                                         "commands", "calls", "device_times", "kernel_names", "directions", "copy_kinds",
                                         "command_lists",
                                         "dispatch_tables", "templates", "exports", "environment",
                                         "pause", "resume", "regions", "load_through",
                                         "callbacks", "scope", "rows", "messages",
                                         "element_size", "element_sizes", "handle_ids", "devices", "forget_kernel_names", "message_status", "world_rank", "communicators", "groups", "group_made", "rma_sync", "symbol_group", "launcher_variables", "runtime_callers", "fortran",
                                         "counted", "polls", "results", "add_flags", "entry_points",
                                         "drain_after", "hooks_calls", "callback_tables",
                                         "predefined_macro", NULL};
static const char *const scope_keys[] = {"endpoint", "begin", NULL};
static const char *const rows_keys[] = {"param", "strip", NULL};
static const char *const region_keys[] = {"open", "close", "mark",        "start", "end",
                                          "id",   "name",  "name_member", NULL};
static const char *const fortran_keys[] = {"library", "integer", "handles", "absent_params",
                                           "character", "index_base",
                                           "exclude", NULL};
static const char *const poll_keys[] = {"done", NULL};
static const char *const status_keys[] = {"type",      "success", "params", "names", "not_ready",
                                          "functions", "exclude", "rules",  NULL};
static const char *const status_rule_keys[] = {"success", "not_ready", NULL};
static const char *const select_keys[] = {"functions", "types", "constants", NULL};
static const char *const rule_keys[] = {"role", "length", "string", "optional", NULL};

struct spec_loc spec_loc_of(const yaml_node_t *n) {
  struct spec_loc l = {(unsigned)n->start_mark.line + 1, (unsigned)n->start_mark.column + 1};
  return l;
}

int spec_read_string(struct yamldoc *y, yaml_node_t *map, const char *key, bool required,
                       char **out, struct diag *d) {
  yaml_node_t *n = yamldoc_get(y, map, key);
  if (!n) {
    if (required)
      return yamldoc_error(y, map, d, "Missing required key in spec: key=%s", key);
    return 0;
  }
  const char *v = yamldoc_scalar(n);
  if (!v || !*v)
    return yamldoc_error(y, n, d, "Cannot read key %s: expected a non-empty string", key);
  *out = xstrdup(v);
  return 0;
}

/* Reads a sequence of strings (a single string is accepted as a one-item list). */
int spec_read_list(struct yamldoc *y, yaml_node_t *n, const char *key, bool patterns,
                   struct ptrvec *out, struct diag *d) {
  if (!n)
    return 0;
  if (n->type == YAML_SCALAR_NODE) {
    if (!*yamldoc_scalar(n))
      return 0;
  } else if (n->type != YAML_SEQUENCE_NODE) {
    return yamldoc_error(y, n, d, "Cannot read key %s: expected a list of strings", key);
  }
  int count = n->type == YAML_SCALAR_NODE ? 1 : yamldoc_seq_length(n);
  int rc = 0;
  for (int i = 0; i < count; i++) {
    yaml_node_t *item = n->type == YAML_SCALAR_NODE ? n : yamldoc_seq_item(y, n, i);
    const char *v = yamldoc_scalar(item);
    if (!v || !*v) {
      rc = yamldoc_error(y, item, d, "Cannot read key %s: expected a non-empty string", key);
      continue;
    }
    if (patterns) {
      struct spec_pattern *p = xcalloc(1, sizeof *p);
      p->glob = xstrdup(v);
      p->loc = spec_loc_of(item);
      ptrvec_push(out, p);
    } else {
      struct spec_string *s = xcalloc(1, sizeof *s);
      s->value = xstrdup(v);
      s->loc = spec_loc_of(item);
      ptrvec_push(out, s);
    }
  }
  return rc;
}

int spec_read_entries(struct yamldoc *y, yaml_node_t *n, const char *what, const char *label,
                      const char *const *keys,
                      int (*read)(struct yamldoc *, const char *, struct spec_loc, yaml_node_t *,
                                    struct spec_trace *, struct diag *),
                        struct spec_trace *t, struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read trace.%s: expected NAME: {...}", what);
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *key = yamldoc_map_key(y, n, i);
    yaml_node_t *body = yamldoc_map_value(y, n, i);
    if (yamldoc_check_keys(y, body, keys, label, d)) {
      rc = -1;
      continue;
    }
    const char *function = yamldoc_scalar(key) ? yamldoc_scalar(key) : "";
    rc |= read(y, function, spec_loc_of(key), body, t, d);
  }
  return rc;
}

int spec_read_pairs(struct yamldoc *y, yaml_node_t *n, const char *what, const char *value_name,
                    int (*add)(struct yamldoc *, yaml_node_t *, yaml_node_t *, const char *,
                               const char *, struct spec_trace *, struct diag *),
                    struct spec_trace *t, struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read trace.%s: expected CONSTANT: %s", what,
                         value_name);
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *key = yamldoc_map_key(y, n, i);
    yaml_node_t *value = yamldoc_map_value(y, n, i);
    const char *constant = yamldoc_scalar(key), *text = yamldoc_scalar(value);
    if (!constant || !*constant || !text || !*text)
      rc = yamldoc_error(y, key, d, "Cannot read trace.%s: expected CONSTANT: %s", what,
                         value_name);
    else
      rc |= add(y, key, value, constant, text, t, d);
  }
  return rc;
}

/* Expands ${VAR} and ${VAR:-default} so a spec can follow e.g. CUDA_HOME. */
static char *expand_env(const char *s) {
  struct strbuf sb;
  strbuf_init(&sb);
  while (*s) {
    const char *end;
    if (s[0] == '$' && s[1] == '{' && (end = strchr(s, '}'))) {
      char *inner = xstrndup(s + 2, (size_t)(end - s - 2));
      char *fallback = strstr(inner, ":-");
      if (fallback) {
        *fallback = '\0';
        fallback += 2;
      }
      const char *v = getenv(inner);
      if (v && *v)
        strbuf_add(&sb, v);
      else if (fallback)
        strbuf_add(&sb, fallback);
      free(inner);
      s = end + 1;
    } else {
      strbuf_addn(&sb, s++, 1);
    }
  }
  return strbuf_release(&sb);
}

static int read_select(struct yamldoc *y, yaml_node_t *root, const char *key,
                       struct ptrvec *functions, struct ptrvec *types, struct ptrvec *constants,
                       struct diag *d) {
  yaml_node_t *n = yamldoc_get(y, root, key);
  if (!n)
    return 0;
  if (yamldoc_check_keys(y, n, select_keys, key, d))
    return -1;
  int rc = 0;
  rc |= spec_read_list(y, yamldoc_get(y, n, "functions"), "functions", true, functions, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "types"), "types", true, types, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "constants"), "constants", true, constants, d);
  return rc;
}

int spec_read_bool(struct yamldoc *y, yaml_node_t *n, int *out, struct diag *d) {
  const char *v = yamldoc_scalar(n);
  if (v && (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0))
    *out = 1;
  else if (v && (strcmp(v, "false") == 0 || strcmp(v, "no") == 0))
    *out = 0;
  else
    return yamldoc_error(y, n, d, "Cannot read boolean: expected true or false");
  return 0;
}

static int read_rule(struct yamldoc *y, const char *function, yaml_node_t *paramkey,
                     yaml_node_t *body, struct spec *s, struct diag *d) {
  if (yamldoc_check_keys(y, body, rule_keys, "param rule", d))
    return -1;
  struct spec_param_rule *r = xcalloc(1, sizeof *r);
  r->function = xstrdup(function);
  r->param = xstrdup(yamldoc_scalar(paramkey));
  r->loc = spec_loc_of(paramkey);
  r->string = r->optional = -1;
  ptrvec_push(&s->param_rules, r);
  int rc = 0;
  yaml_node_t *n;
  if ((n = yamldoc_get(y, body, "role"))) {
    const char *v = yamldoc_scalar(n);
    if (v && strcmp(v, "in") == 0)
      r->direction = SPEC_DIR_IN;
    else if (v && strcmp(v, "out") == 0)
      r->direction = SPEC_DIR_OUT;
    else if (v && strcmp(v, "in-out") == 0)
      r->direction = SPEC_DIR_INOUT;
    else
      rc = yamldoc_error(y, n, d, "Cannot read role: expected in, out or in-out, got %s",
                         v ? v : "a non-string");
  }
  if ((n = yamldoc_get(y, body, "length"))) {
    const char *v = yamldoc_scalar(n);
    if (!v || !*v)
      rc = yamldoc_error(y, n, d, "Cannot read length: expected an expression");
    else
      r->length = xstrdup(v);
  }
  if ((n = yamldoc_get(y, body, "string")))
    rc |= spec_read_bool(y, n, &r->string, d);
  if ((n = yamldoc_get(y, body, "optional")))
    rc |= spec_read_bool(y, n, &r->optional, d);
  return rc;
}

/* params: { FUNCTION-OR-GLOB: { PARAM-OR-GLOB: { role: .., length: .. } } } */
static int read_params(struct yamldoc *y, yaml_node_t *n, struct spec *s, struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read params: expected a mapping of function names");
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *fkey = yamldoc_map_key(y, n, i);
    yaml_node_t *fval = yamldoc_map_value(y, n, i);
    const char *fname = yamldoc_scalar(fkey);
    if (!fname || fval->type != YAML_MAPPING_NODE) {
      rc = yamldoc_error(y, fval, d,
                         "Cannot read params: expected FUNCTION: { PARAM: { role: ... } }");
      continue;
    }
    for (int j = 0; j < yamldoc_map_length(fval); j++) {
      yaml_node_t *pkey = yamldoc_map_key(y, fval, j);
      if (!yamldoc_scalar(pkey)) {
        rc = yamldoc_error(y, pkey, d, "Cannot read params: a param name must be a string");
        continue;
      }
      rc |= read_rule(y, fname, pkey, yamldoc_map_value(y, fval, j), s, d);
    }
  }
  return rc;
}

static int read_optional(struct yamldoc *y, yaml_node_t *map, const char *key, char **out,
                         struct diag *d) {
  return spec_read_string(y, map, key, false, out, d);
}

/* trace.status.rules: FUNCTION-OR-GLOB: {success: [VALUE...], not_ready: [VALUE...]}. */
static int read_status_rules(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t,
                             struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d,
                         "Cannot read trace.status.rules: expected FUNCTION: {success: ...}");
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *key = yamldoc_map_key(y, n, i);
    yaml_node_t *body = yamldoc_map_value(y, n, i);
    if (yamldoc_check_keys(y, body, status_rule_keys, "trace.status rule", d)) {
      rc = -1;
      continue;
    }
    struct spec_status_rule *r = xcalloc(1, sizeof *r);
    r->function = xstrdup(yamldoc_scalar(key) ? yamldoc_scalar(key) : "");
    r->loc = spec_loc_of(key);
    ptrvec_push(&t->status_rules, r);
    rc |= spec_read_list(y, yamldoc_get(y, body, "success"), "success", false, &r->success, d);
    rc |= spec_read_list(y, yamldoc_get(y, body, "not_ready"), "not_ready", false, &r->not_ready, d);
  }
  return rc;
}

/* trace.polls: FUNCTION-OR-GLOB: {done: EXPR}. */
static int read_polls(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t, struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read trace.polls: expected FUNCTION: {done: EXPR}");
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *key = yamldoc_map_key(y, n, i);
    yaml_node_t *body = yamldoc_map_value(y, n, i);
    if (yamldoc_check_keys(y, body, poll_keys, "trace poll", d)) {
      rc = -1;
      continue;
    }
    struct spec_poll *p = xcalloc(1, sizeof *p);
    p->function = xstrdup(yamldoc_scalar(key) ? yamldoc_scalar(key) : "");
    p->loc = spec_loc_of(key);
    ptrvec_push(&t->polls, p);
    rc |= spec_read_string(y, body, "done", true, &p->done, d);
  }
  return rc;
}

static int read_fortran(struct yamldoc *y, yaml_node_t *n, struct spec_fortran *f,
                        struct diag *d) {
  if (!n)
    return 0;
  if (yamldoc_check_keys(y, n, fortran_keys, "trace.fortran", d))
    return -1;
  f->present = true;
  f->loc = spec_loc_of(n);
  int rc = spec_read_string(y, n, "library", true, &f->library, d);
  rc |= read_optional(y, n, "integer", &f->integer, d);
  rc |= read_optional(y, n, "character", &f->character, d);
  char *base = NULL;
  rc |= read_optional(y, n, "index_base", &base, d);
  if (base && strcmp(base, "0") != 0 && strcmp(base, "1") != 0)
    rc = yamldoc_error(y, yamldoc_get(y, n, "index_base"), d,
                       "Cannot read trace.fortran.index_base: expected 0 or 1, got %s", base);
  else if (base)
    f->index_base = base[0] - '0';
  free(base);
  yaml_node_t *absent = yamldoc_get(y, n, "absent_params");
  if (absent && absent->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, absent, d,
                         "Cannot read trace.fortran.absent_params: expected FUNCTION: [PARAM]");
  for (int i = 0; absent && i < yamldoc_map_length(absent); i++) {
    yaml_node_t *key = yamldoc_map_key(y, absent, i);
    const char *glob = yamldoc_scalar(key);
    struct ptrvec params = {0};
    if (!glob || !*glob) {
      rc = yamldoc_error(y, key, d,
                         "Cannot read trace.fortran.absent_params: expected FUNCTION: [PARAM]");
      continue;
    }
    rc |= spec_read_list(y, yamldoc_map_value(y, absent, i), "absent_params", false, &params, d);
    for (size_t k = 0; k < params.len; k++) {
      struct spec_pattern *p = xcalloc(1, sizeof *p);
      p->glob = xstrdup(glob);
      p->loc = spec_loc_of(key);
      ptrvec_push(&f->absent_functions, p);
      ptrvec_push(&f->absent_params, params.items[k]);
    }
    ptrvec_free(&params);
  }
  rc |= spec_read_list(y, yamldoc_get(y, n, "exclude"), "exclude", true, &f->exclude, d);
  yaml_node_t *handles = yamldoc_get(y, n, "handles");
  if (handles && handles->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, handles, d,
                         "Cannot read trace.fortran.handles: expected TYPE: F2C_FUNCTION");
  for (int i = 0; handles && i < yamldoc_map_length(handles); i++) {
    yaml_node_t *key = yamldoc_map_key(y, handles, i);
    yaml_node_t *value = yamldoc_map_value(y, handles, i);
    const char *type = yamldoc_scalar(key), *function = yamldoc_scalar(value);
    if (!type || !*type || !function || !*function) {
      rc = yamldoc_error(y, value, d,
                         "Cannot read trace.fortran.handles: expected TYPE: F2C_FUNCTION");
      continue;
    }
    struct spec_string *t = xcalloc(1, sizeof *t), *fn = xcalloc(1, sizeof *fn);
    t->value = xstrdup(type);
    t->loc = spec_loc_of(key);
    fn->value = xstrdup(function);
    fn->loc = spec_loc_of(value);
    ptrvec_push(&f->handle_types, t);
    ptrvec_push(&f->handle_f2c, fn);
  }
  return rc;
}

static int read_trace(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t, struct diag *d) {
  if (!n)
    return 0;
  if (yamldoc_check_keys(y, n, trace_keys, "trace", d))
    return -1;
  t->present = true;
  t->loc = spec_loc_of(n);
  int rc = read_optional(y, n, "hooks", &t->hooks, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "before"), "before", true, &t->before, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "after"), "after", true, &t->after, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "exclude"), "exclude", true, &t->exclude, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "counted"), "counted", true, &t->counted, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "dispatch_tables"), "dispatch_tables", true,
                  &t->dispatch_tables, d);
  yaml_node_t *status = yamldoc_get(y, n, "status");
  if (status) {
    if (yamldoc_check_keys(y, status, status_keys, "trace.status", d))
      return -1;
    rc |= read_optional(y, status, "type", &t->status_type, d);
    rc |= read_optional(y, status, "success", &t->status_success, d);
    rc |= spec_read_list(y, yamldoc_get(y, status, "params"), "params", false, &t->status_params, d);
    rc |= spec_read_list(y, yamldoc_get(y, status, "names"), "names", true, &t->status_names, d);
    rc |= spec_read_list(y, yamldoc_get(y, status, "not_ready"), "not_ready", false,
                    &t->status_not_ready, d);
    rc |= spec_read_list(y, yamldoc_get(y, status, "functions"), "functions", true,
                    &t->status_functions, d);
    rc |= spec_read_list(y, yamldoc_get(y, status, "exclude"), "exclude", true, &t->status_exclude,
                    d);
    rc |= read_status_rules(y, yamldoc_get(y, status, "rules"), t, d);
    t->status_loc = spec_loc_of(status);
  }
  rc |= spec_read_device(y, n, t, d);
  rc |= spec_read_glue(y, n, t, d);
  rc |= read_optional(y, n, "device_times", &t->device_times, d);
  rc |= spec_read_messages(y, n, t, d);
  rc |= read_polls(y, yamldoc_get(y, n, "polls"), t, d);
  rc |= read_optional(y, n, "symbol_group", &t->symbol_group, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "launcher_variables"), "launcher_variables", false,
                  &t->launcher_variables, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "runtime_callers"), "runtime_callers", false,
                  &t->runtime_callers, d);
  rc |= read_fortran(y, yamldoc_get(y, n, "fortran"), &t->fortran, d);
  if (t->device_times && strcmp(t->device_times, "device") != 0 &&
      strcmp(t->device_times, "host") != 0) {
    struct spec_loc at = spec_loc_of(yamldoc_get(y, n, "device_times"));
    rc |= diag_error_at(d, y->path, at.line, at.column,
                        "Cannot read trace.device_times: value=%s is neither device nor host",
                        t->device_times);
  }
  rc |= spec_read_list(y, yamldoc_get(y, n, "templates"), "templates", false, &t->templates, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "exports"), "exports", false, &t->exports, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "runtime_parts"), "runtime_parts", false,
                       &t->runtime_parts, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "environment"), "environment", false, &t->environment,
                  d);
  for (size_t i = 0; i < t->environment.len; i++) {
    const struct spec_string *e = t->environment.items[i];
    const char *eq = strchr(e->value, '=');
    if (!eq || eq == e->value || strpbrk(e->value, "\"\\"))
      rc |= diag_error_at(d, y->path, e->loc.line, e->loc.column,
                          "Cannot read trace.environment: entry=%s is not NAME=VALUE",
                          e->value);
  }
  rc |= spec_read_list(y, yamldoc_get(y, n, "pause"), "pause", true, &t->pause, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "resume"), "resume", true, &t->resume, d);
  yaml_node_t *regions = yamldoc_get(y, n, "regions");
  if (regions) {
    if (yamldoc_check_keys(y, regions, region_keys, "trace.regions", d))
      return -1;
    rc |= spec_read_list(y, yamldoc_get(y, regions, "open"), "open", true, &t->region_open, d);
    rc |= spec_read_list(y, yamldoc_get(y, regions, "close"), "close", true, &t->region_close, d);
    rc |= spec_read_list(y, yamldoc_get(y, regions, "mark"), "mark", true, &t->region_mark, d);
    rc |= spec_read_list(y, yamldoc_get(y, regions, "start"), "start", true, &t->region_start, d);
    rc |= spec_read_list(y, yamldoc_get(y, regions, "end"), "end", true, &t->region_end, d);
    rc |= read_optional(y, regions, "id", &t->region_id, d);
    if (!yamldoc_get(y, regions, "name"))
      rc = yamldoc_error(y, regions, d, "Missing required key in spec: key=name");
    rc |= spec_read_list(y, yamldoc_get(y, regions, "name"), "name", false, &t->region_names, d);
    rc |= read_optional(y, regions, "name_member", &t->region_name_member, d);
    if (!t->region_end.len != !t->region_id)
      rc = yamldoc_error(y, regions, d,
                         "Cannot read trace.regions: end (calls that end a range) and id (their "
                         "param that holds the range's id) go together");
  }
  rc |= read_optional(y, n, "load_through", &t->load_through, d);
  rc |= spec_read_list(y, yamldoc_get(y, n, "callbacks"), "callbacks", true, &t->callbacks, d);
  yaml_node_t *scope = yamldoc_get(y, n, "scope");
  if (scope) {
    if (yamldoc_check_keys(y, scope, scope_keys, "trace.scope", d))
      return -1;
    rc |= spec_read_string(y, scope, "endpoint", true, &t->scope_endpoint, d);
    rc |= spec_read_string(y, scope, "begin", true, &t->scope_begin, d);
  }
  yaml_node_t *rows = yamldoc_get(y, n, "rows");
  if (rows && rows->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, rows, d, "Cannot read trace.rows: expected FUNCTION: {param: ...}");
  for (int i = 0; rows && i < yamldoc_map_length(rows); i++) {
    yaml_node_t *key = yamldoc_map_key(y, rows, i);
    yaml_node_t *body = yamldoc_map_value(y, rows, i);
    if (yamldoc_check_keys(y, body, rows_keys, "trace rows", d)) {
      rc = -1;
      continue;
    }
    struct spec_rows *r = xcalloc(1, sizeof *r);
    r->function = xstrdup(yamldoc_scalar(key) ? yamldoc_scalar(key) : "");
    r->loc = spec_loc_of(key);
    ptrvec_push(&t->rows, r);
    rc |= spec_read_string(y, body, "param", true, &r->param, d);
    rc |= read_optional(y, body, "strip", &r->strip, d);
  }
  return rc;
}

/* Reads the spec from its loaded document y, which it frees; s->path and s->dir are set. */
static int spec_read(struct spec *s, struct yamldoc *y, struct diag *d) {
  yaml_node_t *root = yamldoc_root(y);
  int rc = yamldoc_check_keys(y, root, spec_keys, "spec", d);
  if (rc == 0) {
    rc |= spec_read_string(y, root, "backend", true, &s->backend, d);
    rc |= spec_read_string(y, root, "description", false, &s->description, d);
    rc |= spec_read_string(y, root, "library", false, &s->library, d);
    rc |= spec_read_string(y, root, "collector", false, &s->collector, d);
    if (rc == 0 && !s->library == !s->collector)
      rc = yamldoc_error(y, root, d,
                         "Cannot read spec: give exactly one of library (the soname that "
                         "exports the functions) and collector (the environment variable "
                         "through which the API loads a tool)");
    rc |= spec_read_string(y, root, "missing_hint", false, &s->missing_hint, d);
    rc |= spec_read_string(y, root, "std", false, &s->std, d);
    rc |= spec_read_list(y, yamldoc_get(y, root, "headers"), "headers", false, &s->headers, d);
    rc |= spec_read_list(y, yamldoc_get(y, root, "include_dirs"), "include_dirs", false,
                    &s->include_dirs, d);
    rc |= spec_read_list(y, yamldoc_get(y, root, "include_dirs_after"), "include_dirs_after", false,
                    &s->include_dirs_after, d);
    rc |= spec_read_list(y, yamldoc_get(y, root, "defines"), "defines", false, &s->defines, d);
    rc |= read_select(y, root, "select", &s->functions, &s->types, &s->constants, d);
    rc |= read_select(y, root, "exclude", &s->exclude_functions, &s->exclude_types,
                      &s->exclude_constants, d);
    rc |= spec_read_list(y, yamldoc_get(y, root, "handles"), "handles", true, &s->handles, d);
    rc |= read_params(y, yamldoc_get(y, root, "params"), s, d);
    rc |= read_trace(y, yamldoc_get(y, root, "trace"), &s->trace, d);
    rc |= spec_sample_read(y, yamldoc_get(y, root, "sample"), &s->sample, d);
    if (rc == 0 && s->headers.len == 0)
      rc = yamldoc_error(y, root, d, "Missing required key in spec: key=headers");
    if (rc == 0 && s->functions.len == 0)
      rc = yamldoc_error(y, root, d, "Missing required key in spec: key=select.functions");
  }
  if (s->backend) {
    for (const char *c = s->backend; *c; c++)
      if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) {
        rc = yamldoc_error(y, yamldoc_get(y, root, "backend"), d,
                           "Cannot use backend name: backend=%s (use a-z, 0-9 and _)",
                           s->backend);
        break;
      }
  }
  /* Relative include dirs are relative to the spec's folder, so specs are portable. */
  for (size_t i = 0; i < s->include_dirs.len + s->include_dirs_after.len; i++) {
    struct spec_string *inc = i < s->include_dirs.len
                                  ? s->include_dirs.items[i]
                                  : s->include_dirs_after.items[i - s->include_dirs.len];
    char *expanded = expand_env(inc->value);
    free(inc->value);
    if (expanded[0] == '/') {
      inc->value = expanded;
    } else {
      inc->value = xasprintf("%s/%s", s->dir, expanded);
      free(expanded);
    }
  }
  if (!s->std)
    s->std = xstrdup("gnu11");
  yamldoc_free(y);
  if (rc) {
    spec_free(s);
    return -1;
  }
  return 0;
}

static void spec_init(struct spec *s, const char *path) {
  memset(s, 0, sizeof *s);
  s->path = xstrdup(path);
  const char *slash = strrchr(path, '/');
  s->dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
}

int spec_load(struct spec *s, const char *path, struct diag *d) {
  spec_init(s, path);
  struct yamldoc y;
  if (yamldoc_load(&y, path, d)) {
    yamldoc_free(&y);
    spec_free(s);
    return -1;
  }
  return spec_read(s, &y, d);
}

int spec_load_buffer(struct spec *s, const char *text, size_t len, const char *path,
                     struct diag *d) {
  spec_init(s, path);
  struct yamldoc y;
  if (yamldoc_load_buffer(&y, text, len, path, d)) {
    yamldoc_free(&y);
    spec_free(s);
    return -1;
  }
  return spec_read(s, &y, d);
}

static void free_strings(struct ptrvec *v) {
  for (size_t i = 0; i < v->len; i++) {
    struct spec_string *s = v->items[i];
    free(s->value);
    free(s);
  }
  ptrvec_free(v);
}

static void free_patterns(struct ptrvec *v) {
  for (size_t i = 0; i < v->len; i++) {
    struct spec_pattern *p = v->items[i];
    free(p->glob);
    free(p);
  }
  ptrvec_free(v);
}

void spec_free(struct spec *s) {
  free(s->path);
  free(s->dir);
  free(s->backend);
  free(s->description);
  free(s->library);
  free(s->collector);
  free(s->missing_hint);
  free(s->std);
  free_strings(&s->headers);
  free_strings(&s->include_dirs);
  free_strings(&s->include_dirs_after);
  free_strings(&s->defines);
  free_patterns(&s->functions);
  free_patterns(&s->types);
  free_patterns(&s->constants);
  free_patterns(&s->exclude_functions);
  free_patterns(&s->exclude_types);
  free_patterns(&s->exclude_constants);
  free_patterns(&s->handles);
  for (size_t i = 0; i < s->param_rules.len; i++) {
    struct spec_param_rule *r = s->param_rules.items[i];
    free(r->function);
    free(r->param);
    free(r->length);
    free(r);
  }
  ptrvec_free(&s->param_rules);
  free(s->trace.hooks);
  free(s->trace.status_type);
  free(s->trace.status_success);
  free(s->trace.device_times);
  free_patterns(&s->trace.before);
  free_patterns(&s->trace.after);
  free_patterns(&s->trace.dispatch_tables);
  free_patterns(&s->trace.exclude);
  free_patterns(&s->trace.counted);
  free_patterns(&s->trace.status_names);
  free_strings(&s->trace.status_params);
  free_strings(&s->trace.status_not_ready);
  free_patterns(&s->trace.status_functions);
  free_patterns(&s->trace.status_exclude);
  for (size_t i = 0; i < s->trace.status_rules.len; i++) {
    struct spec_status_rule *r = s->trace.status_rules.items[i];
    free(r->function);
    free_strings(&r->success);
    free_strings(&r->not_ready);
    free(r);
  }
  ptrvec_free(&s->trace.status_rules);
  spec_free_device(&s->trace);
  spec_sample_free(s->sample);
  spec_free_messages(&s->trace);
  spec_free_glue(&s->trace);
  for (size_t i = 0; i < s->trace.polls.len; i++) {
    struct spec_poll *p = s->trace.polls.items[i];
    free(p->function);
    free(p->done);
    free(p);
  }
  ptrvec_free(&s->trace.polls);
  free(s->trace.symbol_group);
  free(s->trace.fortran.library);
  free(s->trace.fortran.integer);
  free(s->trace.fortran.character);
  free_strings(&s->trace.fortran.handle_types);
  free_strings(&s->trace.fortran.handle_f2c);
  free_strings(&s->trace.fortran.absent_params);
  free_patterns(&s->trace.fortran.absent_functions);
  free_patterns(&s->trace.fortran.exclude);
  free_strings(&s->trace.templates);
  free_strings(&s->trace.exports);
  free_strings(&s->trace.runtime_parts);
  free_strings(&s->trace.environment);
  free_strings(&s->trace.launcher_variables);
  free_strings(&s->trace.runtime_callers);
  free_patterns(&s->trace.pause);
  free_patterns(&s->trace.resume);
  free_patterns(&s->trace.region_open);
  free_patterns(&s->trace.region_close);
  free_patterns(&s->trace.region_mark);
  free_patterns(&s->trace.region_start);
  free_patterns(&s->trace.region_end);
  free(s->trace.region_id);
  free_strings(&s->trace.region_names);
  free(s->trace.region_name_member);
  free(s->trace.load_through);
  free_patterns(&s->trace.callbacks);
  free(s->trace.scope_endpoint);
  free(s->trace.scope_begin);
  for (size_t i = 0; i < s->trace.rows.len; i++) {
    struct spec_rows *r = s->trace.rows.items[i];
    free(r->function);
    free(r->param);
    free(r->strip);
    free(r);
  }
  ptrvec_free(&s->trace.rows);
  memset(s, 0, sizeof *s);
}

bool spec_patterns_match(struct ptrvec *v, const char *name) {
  bool matched = false;
  for (size_t i = 0; i < v->len; i++) {
    struct spec_pattern *p = v->items[i];
    if (fnmatch(p->glob, name, 0) == 0) {
      p->matches++;
      matched = true;
    }
  }
  return matched;
}
