/* view_recording: see view_recording.h. */
#include "view_recording.h"

#include <string.h>

#include "util.h"

static bool has_param(const struct model_function *f, const char *name) {
  for (size_t i = 0; name && i < f->params.len; i++)
    if (strcmp(((const struct model_param *)f->params.items[i])->name, name) == 0)
      return true;
  return false;
}

void view_recording_function(const struct spec *s, const struct model_function *f,
                             struct tree *fn) {
  struct spec_trace *t = (struct spec_trace *)&s->trace;
  tree_set_bool(fn, "pause", spec_patterns_match(&t->pause, f->name));
  tree_set_bool(fn, "resume", spec_patterns_match(&t->resume, f->name));
  tree_set_bool(fn, "region_close", spec_patterns_match(&t->region_close, f->name));
  if (!spec_patterns_match(&t->region_open, f->name))
    return;
  struct tree *open = tree_set(fn, "region_open", tree_map());
  const char *param = t->region_name;
  if (!has_param(f, param))
    tree_set_string(open, "name", "NULL"); /* an unnamed region; the check reports it */
  else if (t->region_name_member)
    tree_set(open, "name", tree_stringf("%s ? %s->%s : NULL", param, param,
                                        t->region_name_member));
  else
    tree_set_string(open, "name", param);
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

int view_recording_root(const struct model *m, const struct spec *s, struct tree *root,
                        struct diag *d) {
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
  for (size_t i = 0; i < m->functions.len; i++) {
    const struct model_function *f = m->functions.items[i];
    for (size_t k = 0; k < t->region_open.len; k++) {
      const struct spec_pattern *p = t->region_open.items[k];
      if (strcmp(p->glob, f->name) == 0 && !has_param(f, t->region_name))
        rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                           "Cannot name regions: function=%s has no param=%s", f->name,
                           t->region_name);
    }
  }
  return rc;
}
