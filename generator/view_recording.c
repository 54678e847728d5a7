/* view_recording: see view_recording.h. */
#include "view_recording.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The first of the spec's region name params that f has, or NULL. */
static const struct model_param *name_param(const struct spec_trace *t,
                                            const struct model_function *f) {
  for (size_t k = 0; k < t->region_names.len; k++) {
    const char *name = ((const struct spec_string *)t->region_names.items[k])->value;
    for (size_t i = 0; i < f->params.len; i++) {
      const struct model_param *p = f->params.items[i];
      if (strcmp(p->name, name) == 0)
        return p;
    }
  }
  return NULL;
}

/* A region's name as C: a string param as it is, a wide one interned in the multibyte
 * encoding, the name_member of the struct a param points to, else the hooks' name of it
 * (PREFIX_region_name); NULL (an unnamed region, which the check reports) without one. */
static char *name_of(const struct spec_trace *t, const char *prefix,
                     const struct model_function *f) {
  const struct model_param *p = name_param(t, f);
  if (!p)
    return xstrdup("NULL");
  const struct model_type *target = p->type->kind == MODEL_KIND_POINTER ? p->type->target : NULL;
  if (strstr(p->type->spelling, "wchar_t"))
    return xasprintf("tracer_intern_wide(%s)", p->name);
  if (target && target->kind == MODEL_KIND_INT && target->size == 1)
    return xstrdup(p->name);
  if (t->region_name_member)
    return xasprintf("%s ? %s->%s : NULL", p->name, p->name, t->region_name_member);
  return xasprintf("%s_region_name(%s)", prefix, p->name);
}

void view_recording_function(const struct spec *s, const char *prefix,
                             const struct model_function *f, struct tree *fn) {
  struct spec_trace *t = (struct spec_trace *)&s->trace;
  tree_set_bool(fn, "pause", spec_patterns_match(&t->pause, f->name));
  tree_set_bool(fn, "resume", spec_patterns_match(&t->resume, f->name));
  const char *b = s->backend;
  char *code = NULL;
  if (spec_patterns_match(&t->region_close, f->name)) {
    code = xasprintf("tracer_region_close(\"%s\", tracer_args.tracer_start);", b);
  } else if (t->region_id && spec_patterns_match(&t->region_end, f->name)) {
    code = xasprintf("tracer_range_end(\"%s\", %s, tracer_now());", b, t->region_id);
  } else {
    const char *call = spec_patterns_match(&t->region_open, f->name)    ? "tracer_region_open"
                       : spec_patterns_match(&t->region_mark, f->name)  ? "tracer_region_mark"
                       : spec_patterns_match(&t->region_start, f->name) ? "tracer_range_start"
                                                                        : NULL;
    char *name = call ? name_of(t, prefix, f) : NULL;
    if (call)
      code =
          xasprintf("%s%s(\"%s\", %s, tracer_args.tracer_start);",
                    strcmp(call, "tracer_range_start") == 0 ? "tracer_args.tracer_result = " : "",
                    call, b, name);
    free(name);
  }
  if (code)
    tree_set_string(tree_set(fn, "region", tree_map()), "code", code);
  free(code);
}

static int check_matched(const struct spec *s, const struct ptrvec *patterns, const char *what,
                         struct diag *d) {
  int rc = 0;
  for (size_t i = 0; i < patterns->len; i++) {
    const struct spec_pattern *p = patterns->items[i];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: %s pattern=%s", what, p->glob);
  }
  return rc;
}

/* One declaration of PREFIX_region_name per type it takes. */
static void add_name_hook(struct tree *named, const char *type) {
  for (size_t i = 0; i < named->len; i++)
    if (strcmp(tree_get(named->items[i], "type")->string, type) == 0)
      return;
  tree_set_string(tree_push(named, tree_map()), "type", type);
}

int view_recording_root(const struct model *m, const struct spec *s, const char *prefix,
                        struct tree *root, struct diag *d) {
  const struct spec_trace *t = &s->trace;
  tree_set_string(root, "collector", t->load_through ? t->load_through : "");
  struct tree *launchers = tree_set(root, "launcher_variables", tree_list());
  for (size_t i = 0; i < s->trace.launcher_variables.len; i++)
    tree_set_string(tree_push(launchers, tree_map()), "name",
                    ((struct spec_string *)s->trace.launcher_variables.items[i])->value);
  struct tree *runtime_callers = tree_set(root, "runtime_callers", tree_list());
  for (size_t i = 0; i < t->runtime_callers.len; i++)
    tree_set_string(tree_push(runtime_callers, tree_map()), "pattern",
                    ((const struct spec_string *)t->runtime_callers.items[i])->value);
  struct tree *environment = tree_set(root, "environment", tree_list());
  for (size_t i = 0; i < t->environment.len; i++)
    tree_set_string(tree_push(environment, tree_map()), "entry",
                    ((const struct spec_string *)t->environment.items[i])->value);
  struct tree *exports = tree_set(root, "exports", tree_list());
  for (size_t i = 0; i < t->exports.len; i++)
    tree_set_string(tree_push(exports, tree_map()), "name",
                    ((const struct spec_string *)t->exports.items[i])->value);
  int rc = 0;
  rc |= check_matched(s, &t->pause, "trace.pause", d);
  rc |= check_matched(s, &t->resume, "trace.resume", d);
  rc |= check_matched(s, &t->region_open, "trace.regions.open", d);
  rc |= check_matched(s, &t->region_close, "trace.regions.close", d);
  rc |= check_matched(s, &t->region_mark, "trace.regions.mark", d);
  rc |= check_matched(s, &t->region_start, "trace.regions.start", d);
  rc |= check_matched(s, &t->region_end, "trace.regions.end", d);
  /* Every region that is opened, marked or started must have a name param; the hooks
   * name those given otherwise than as a string (PREFIX_region_name). */
  struct tree *named = tree_set(root, "region_name_hooks", tree_list());
  struct strbuf names; /* the name params, for messages */
  strbuf_init(&names);
  for (size_t k = 0; k < t->region_names.len; k++)
    strbuf_addf(&names, "%s%s", k ? " or " : "",
                ((const struct spec_string *)t->region_names.items[k])->value);
  for (size_t i = 0; i < m->functions.len; i++) {
    const struct model_function *f = m->functions.items[i];
    const struct ptrvec *lists[] = {&t->region_open, &t->region_mark, &t->region_start};
    for (size_t l = 0; l < 3; l++)
      for (size_t k = 0; k < lists[l]->len; k++) {
        const struct spec_pattern *p = lists[l]->items[k];
        if (fnmatch(p->glob, f->name, 0) != 0)
          continue;
        const struct model_param *param = name_param(t, f);
        char *name = name_of(t, prefix, f);
        char *hook = xasprintf("%s_region_name(", prefix);
        if (!param)
          rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                             "Cannot name regions: function=%s has no param=%s", f->name,
                             names.data ? names.data : "");
        else if (strncmp(name, hook, strlen(hook)) == 0)
          add_name_hook(named, param->type->spelling);
        free(hook);
        free(name);
      }
  }
  strbuf_free(&names);
  return rc;
}
