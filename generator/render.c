/* render: templates -> generated files. */
#include "render.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apigen_exit.h"
#include "format.h"
#include "template.h"
#include "tree.h"
#include "util.h"
#include "view.h"
#include "view_dispatch.h"
#include "view_null.h"
#include "view_sample.h"

/* A rendering of nothing but white space: the template has nothing for this backend. */
static bool is_blank(const char *text) {
  while (*text == ' ' || *text == '\n' || *text == '\t')
    text++;
  return !*text;
}

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
    return APIGEN_EXIT_SPEC;
  view_null(m, s, view);
  if (view_dispatch(m, s, view, d) || view_sample(m, s, view, d)) {
    tree_free(view);
    return APIGEN_EXIT_SPEC;
  }
  /* By default every template at the top of the folder (an LD_PRELOAD interposer); a
   * spec whose library is of another kind (a tool or collector the API loads) lists its
   * own, from subfolders too. */
  struct dirent **entries = NULL;
  int n = s->trace.templates.len ? named_templates(s, &entries)
                                 : scandir(template_dir, &entries, is_template, alphasort);
  if (n < 0) {
    tree_free(view);
    diag_error(d, "Cannot read templates: dir=%s: %s", template_dir, strerror(errno));
    return APIGEN_EXIT_SPEC;
  }
  struct format_file *outputs = xcalloc((size_t)n, sizeof *outputs);
  bool *empty = xcalloc((size_t)n, sizeof *empty);
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
      outputs[i].name = xasprintf("%s/%s_%.*s", outdir, m->backend, (int)len, base);
      outputs[i].text = strbuf_release(&out);
      empty[i] = is_blank(outputs[i].text);
      if (rc)
        diag_error(d, "Cannot render template for backend=%s: template=%s", m->backend, path);
    }
    template_free(t);
    free(text);
    free(path);
  }
  int status = rc ? APIGEN_EXIT_SPEC : APIGEN_EXIT_OK;
  char *style = format_style_of(template_dir);
  if (status == APIGEN_EXIT_OK && format_files(outputs, (size_t)n, style, d))
    status = APIGEN_EXIT_IO;
  free(style);
  if (status == APIGEN_EXIT_OK && make_folder(outdir) != 0) {
    diag_error(d, "Cannot create output folder: path=%s: %s", outdir, strerror(errno));
    status = APIGEN_EXIT_IO;
  }
  /* A template with nothing to say for this backend gives no file; one left by an earlier
   * run goes. */
  for (int i = 0; i < n && status == APIGEN_EXIT_OK; i++) {
    const char *path = outputs[i].name;
    if (empty[i] ? unlink(path) != 0 && errno != ENOENT
                 : write_file_atomic(path, outputs[i].text, strlen(outputs[i].text)) != 0) {
      diag_error(d, "Cannot write generated file: path=%s: %s", path, strerror(errno));
      status = APIGEN_EXIT_IO;
    }
  }
  for (int i = 0; i < n; i++) {
    free((char *)outputs[i].name);
    free(outputs[i].text);
    free(entries[i]);
  }
  free(empty);
  free(outputs);
  free(entries);
  tree_free(view);
  return status;
}
