/* view_fortran: see view_fortran.h. */
#include "view_fortran.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The spec's f2c function for a handle type, or NULL. */
static const char *converter(const struct spec_fortran *f, const struct model_type *t) {
  for (size_t i = 0; t && i < f->handle_types.len; i++)
    if (strcmp(((struct spec_string *)f->handle_types.items[i])->value, t->spelling) == 0)
      return ((struct spec_string *)f->handle_f2c.items[i])->value;
  return NULL;
}

static bool is_scalar(const struct model_type *t) {
  return t->kind == MODEL_KIND_INT || t->kind == MODEL_KIND_ENUM ||
         t->kind == MODEL_KIND_BOOL || t->kind == MODEL_KIND_FLOAT;
}

/* The C value of a Fortran argument at address `from` whose C type is t, or NULL when
 * it has none the record can use. A handle needs its f2c function, unless C's handle is
 * the Fortran integer itself; the function is called through the pointer the template's
 * converter resolves on first use (the interposer refers to nothing of the library at
 * load time). */
static char *value_of(const struct spec_fortran *f, const char *backend,
                      const struct model_type *t, const char *from) {
  const char *f2c = t->handle ? converter(f, t) : NULL;
  if (f2c)
    return xasprintf("%s_resolved_%s()(*(const %s *)%s)", backend, f2c,
                     f->integer ? f->integer : "int", from);
  if (is_scalar(t))
    return xasprintf("*(const %s *)%s", t->spelling, from);
  return NULL;
}

static bool absent(const struct spec_fortran *f, const char *param) {
  for (size_t i = 0; i < f->absent_params.len; i++)
    if (strcmp(((struct spec_string *)f->absent_params.items[i])->value, param) == 0)
      return true;
  return false;
}

static void add_line(struct tree *list, char *line) {
  tree_set_string(tree_push(list, tree_map()), "line", line);
  free(line);
}

static void build(const struct spec_fortran *f, const char *backend,
                  const struct model_function *fn, struct tree *item) {
  struct tree *fo = tree_set(item, "fortran", tree_map());
  char *symbol = xasprintf("%s_", fn->name);
  for (char *c = symbol; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  tree_set_string(fo, "symbol", symbol);
  free(symbol);
  struct strbuf params, args, types, lengths, length_args, length_types;
  strbuf_init(&params);
  strbuf_init(&args);
  strbuf_init(&types);
  strbuf_init(&lengths);
  strbuf_init(&length_args);
  strbuf_init(&length_types);
  struct tree *locals = tree_set(fo, "locals", tree_list());
  struct tree *in = tree_set(fo, "convert_in", tree_list());
  struct tree *out = tree_set(fo, "convert_out", tree_list());
  for (size_t i = 0; i < fn->params.len; i++) {
    const struct model_param *p = fn->params.items[i];
    if (absent(f, p->name))
      continue;
    char *from = xasprintf("f_%s", p->name);
    strbuf_addf(&params, "void *%s, ", from);
    strbuf_addf(&args, "%s, ", from);
    strbuf_addf(&types, "void *, ");
    const struct model_type *t = p->type, *target = t->target;
    char *value = value_of(f, backend, t, from);
    if (value) {
      add_line(in, xasprintf("tracer_args.%s = %s;", p->name, value));
    } else if (t->kind == MODEL_KIND_POINTER && target && target->kind == MODEL_KIND_VOID) {
      add_line(in, xasprintf("tracer_args.%s = %s;", p->name, from));
    } else if (t->kind == MODEL_KIND_POINTER && target && !p->length && !p->string &&
               (value = value_of(f, backend, target, from))) {
      /* One value behind a pointer: the record reads it through a local C twin. */
      add_line(locals, xasprintf("__typeof__(*tracer_args.%s) tracer_f_%s = 0;", p->name,
                                 p->name));
      if (p->direction != MODEL_DIR_OUT)
        add_line(in, xasprintf("tracer_f_%s = %s;", p->name, value));
      add_line(in, xasprintf("tracer_args.%s = &tracer_f_%s;", p->name, p->name));
      if (p->direction != MODEL_DIR_IN)
        add_line(out, xasprintf("tracer_f_%s = %s;", p->name, value));
    }
    free(value);
    if (p->string) {
      strbuf_addf(&lengths, ", size_t %s_len", from);
      strbuf_addf(&length_args, ", %s_len", from);
      strbuf_addf(&length_types, ", size_t");
    }
    free(from);
  }
  const char *integer = f->integer ? f->integer : "int";
  strbuf_addf(&params, "%s *f_ierr%s", integer, lengths.data);
  strbuf_addf(&args, "f_ierr%s", length_args.data);
  strbuf_addf(&types, "%s *%s", integer, length_types.data);
  const char *symbol_name = tree_get(fo, "symbol")->string;
  char *text = xasprintf("void %s(%s)", symbol_name, params.data);
  tree_set_string(fo, "prototype", text);
  free(text);
  text = xasprintf("typedef void %s_%sfn(%s);", backend, symbol_name, types.data);
  tree_set_string(fo, "typedef", text);
  free(text);
  tree_set_string(fo, "call_args", args.data);
  strbuf_free(&params);
  strbuf_free(&args);
  strbuf_free(&types);
  strbuf_free(&lengths);
  strbuf_free(&length_args);
  strbuf_free(&length_types);
}

int view_fortran(const struct model *m, const struct spec *s, struct tree *root,
                 const struct model_function *const *traced, size_t count, struct diag *d) {
  const struct spec_fortran *f = &s->trace.fortran;
  if (!f->present)
    return 0;
  struct tree *top = tree_set(root, "fortran_bindings", tree_map());
  tree_set_string(top, "library", f->library);
  tree_set_string(top, "c_library", m->library ? m->library : "");
  struct tree *converters = tree_set(top, "converters", tree_list());
  for (size_t i = 0; i < f->handle_f2c.len; i++)
    tree_set_string(tree_push(converters, tree_map()), "name",
                    ((struct spec_string *)f->handle_f2c.items[i])->value);
  const struct tree *functions = tree_get(root, "functions");
  for (size_t i = 0; i < count; i++)
    if (!spec_patterns_match((struct ptrvec *)&f->exclude, traced[i]->name))
      build(f, m->backend, traced[i], (struct tree *)functions->items[i]);
  int rc = 0;
  for (size_t i = 0; i < f->exclude.len; i++) {
    const struct spec_pattern *p = f->exclude.items[i];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: trace.fortran.exclude pattern=%s", p->glob);
  }
  return rc;
}
