/* render: templates -> generated files. */
#include "render.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "template.h"
#include "tree.h"
#include "util.h"
#include "view.h"
#include "view_dispatch.h"
#include "view_null.h"

struct output {
  char *path;
  char *text;
};

static int is_template(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return n > 5 && strcmp(e->d_name + n - 5, ".tmpl") == 0;
}

/* mkdir -p: the output folder and any parent it lacks (--output a/b/cuda). */
static int make_folder(const char *path) {
  char *p = xstrdup(path);
  int rc = 0;
  for (char *s = p + 1; *s && rc == 0; s++)
    if (*s == '/') {
      *s = '\0';
      rc = mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
      *s = '/';
    }
  if (rc == 0)
    rc = mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
  free(p);
  return rc;
}

/* The templates a spec names (trace.templates, e.g. "tools/collector.c"), as directory
 * entries of their own so the loop below treats both cases alike. */
static int named_templates(const struct spec *s, struct dirent ***entries) {
  size_t n = s->trace.templates.len;
  *entries = xcalloc(n + 1, sizeof **entries);
  for (size_t i = 0; i < n; i++) {
    const struct spec_string *t = s->trace.templates.items[i];
    struct dirent *e = xcalloc(1, sizeof *e);
    snprintf(e->d_name, sizeof e->d_name, "%s.tmpl", t->value);
    (*entries)[i] = e;
  }
  return (int)n;
}

int render_backend(const struct model *m, const struct spec *s, const char *template_dir,
                   const char *outdir, const char *model_path, struct diag *d) {
  struct tree *view = view_build(m, s, model_path, d);
  if (!view)
    return -1;
  view_null(m, s, view);
  if (view_dispatch(m, s, view, d)) {
    tree_free(view);
    return -1;
  }
  /* By default every template at the top of the folder (an LD_PRELOAD interposer); a
   * spec whose library is of another kind (a tool or collector the API loads) lists its
   * own, from subfolders too. */
  struct dirent **entries = NULL;
  int n = s->trace.templates.len ? named_templates(s, &entries)
                                 : scandir(template_dir, &entries, is_template, alphasort);
  if (n < 0) {
    tree_free(view);
    return diag_error(d, "Cannot read templates: dir=%s: %s", template_dir, strerror(errno));
  }
  struct output *outputs = xcalloc((size_t)n, sizeof *outputs);
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    char *path = xasprintf("%s/%s", template_dir, entries[i]->d_name);
    char *text = read_file(path, NULL);
    struct template *t = NULL;
    if (!text) {
      rc = diag_error(d, "Cannot read template: path=%s: %s", path, strerror(errno));
    } else if ((rc = template_parse(path, text, &t, d)) == 0) {
      struct strbuf out;
      strbuf_init(&out);
      rc = template_render(t, view, &out, d);
      const char *base = strrchr(entries[i]->d_name, '/');
      base = base ? base + 1 : entries[i]->d_name;
      size_t len = strlen(base) - 5;
      outputs[i].path = xasprintf("%s/%s_%.*s", outdir, m->backend, (int)len, base);
      outputs[i].text = strbuf_release(&out);
      if (rc)
        diag_error(d, "Cannot render template for backend=%s: template=%s", m->backend, path);
    }
    template_free(t);
    free(text);
    free(path);
  }
  if (rc == 0 && make_folder(outdir) != 0)
    rc = diag_error(d, "Cannot create output folder: path=%s: %s", outdir, strerror(errno));
  for (int i = 0; i < n && rc == 0; i++)
    if (write_file_atomic(outputs[i].path, outputs[i].text, strlen(outputs[i].text)))
      rc = diag_error(d, "Cannot write generated file: path=%s: %s", outputs[i].path,
                      strerror(errno));
  for (int i = 0; i < n; i++) {
    free(outputs[i].path);
    free(outputs[i].text);
    free(entries[i]);
  }
  free(outputs);
  free(entries);
  tree_free(view);
  return rc;
}
