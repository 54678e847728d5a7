/* view_fortran: see view_fortran.h. */
#include "view_fortran.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_expr.h"
#include "view_messages.h"

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

static bool absent(const struct spec_fortran *f, const struct model_function *fn,
                   const char *param) {
  for (size_t i = 0; i < f->absent_params.len; i++) {
    struct spec_pattern *glob = f->absent_functions.items[i];
    if (strcmp(((struct spec_string *)f->absent_params.items[i])->value, param) == 0 &&
        fnmatch(glob->glob, fn->name, 0) == 0) {
      glob->matches++;
      return true;
    }
  }
  return false;
}

static void add_line(struct tree *list, char *line) {
  tree_set_string(tree_push(list, tree_map()), "line", line);
  free(line);
}

/* Whether t points to (or is an array of) the spec's CHARACTER element type: a Fortran
 * string, or an array of them (argv of MPI_Comm_spawn), which passes one hidden length. */
static bool is_character(const struct spec_fortran *f, const struct model_type *t) {
  if (!f->character)
    return false;
  int depth = 0;
  for (; t && (t->kind == MODEL_KIND_POINTER || t->kind == MODEL_KIND_ARRAY) && !t->handle;
       t = t->target)
    depth++;
  if (!t || depth == 0)
    return false;
  const char *spelling = t->spelling;
  if (strncmp(spelling, "const ", 6) == 0)
    spelling += 6;
  return strcmp(spelling, f->character) == 0;
}

/* The param an expression of a message names: `*index` names index. */
static bool names_param(const char *expr, const char *param) {
  if (!expr)
    return false;
  while (*expr == '*' || *expr == ' ')
    expr++;
  return strcmp(expr, param) == 0;
}

/* What one wrapper is made of while it is built. */
struct wrapper {
  const struct spec_fortran *f;
  const char *backend, *integer;
  const struct spec_message *msg;
  struct tree *locals, *in, *out, *arrays_in, *arrays_out;
  unsigned scratch; /* the runtime's scratch slots used so far (tracer_fortran.h) */
};

/* A CHARACTER param: a C string for the record, copied (without its trailing blanks) from
 * the Fortran one before the call, or after it for one the call fills. An array of them
 * is not recorded. */
static void convert_character(struct wrapper *w, const struct model_param *p, const char *from) {
  const struct model_type *t = p->type;
  if (t->kind != MODEL_KIND_POINTER && t->kind != MODEL_KIND_ARRAY)
    return;
  if (t->target && (t->target->kind == MODEL_KIND_POINTER || t->target->kind == MODEL_KIND_ARRAY))
    return;
  add_line(w->locals, xasprintf("char tracer_s_%s[256] = \"\";", p->name));
  char *copy = xasprintf("tracer_fortran_string(tracer_s_%s, sizeof tracer_s_%s, %s, %s_len);",
                         p->name, p->name, from, from);
  add_line(w->in, xasprintf("tracer_args.%s = tracer_s_%s;", p->name, p->name));
  if (p->direction == MODEL_DIR_IN)
    add_line(w->in, copy);
  else
    add_line(w->out, copy);
}

/* An array of handles the message names as its requests (MPI_Waitall): C handles turned
 * from the Fortran ones before the call, which resets them; the message's count says how
 * many. Where the C handle is the Fortran integer, the array is the app's own. */
static bool convert_handles(struct wrapper *w, const struct model_function *fn,
                            const struct model_param *p, const char *from) {
  const struct model_type *t = p->type, *element = t->target;
  if (!w->msg || !names_param(w->msg->requests, p->name) || !w->msg->count || !element ||
      !element->handle || (t->kind != MODEL_KIND_POINTER && t->kind != MODEL_KIND_ARRAY))
    return false;
  const char *f2c = converter(w->f, element);
  if (!f2c) {
    add_line(w->arrays_in, xasprintf("tracer_args.%s = (__typeof__(tracer_args.%s))%s;",
                                     p->name, p->name, from));
    return true;
  }
  char *count = view_value_expr(fn, w->msg->count, "tracer_args.");
  if (!count)
    return false;
  unsigned slot = w->scratch++;
  add_line(w->locals, xasprintf("%s *tracer_h_%s = NULL;", element->spelling, p->name));
  add_line(w->arrays_in,
           xasprintf("tracer_h_%s = tracer_fortran_scratch(%u, (long long)(%s), sizeof "
                     "*tracer_h_%s);",
                     p->name, slot, count, p->name));
  add_line(w->arrays_in,
           xasprintf("for (long long tracer_i = 0; tracer_h_%s && tracer_i < (long long)(%s); "
                     "tracer_i++) tracer_h_%s[tracer_i] = %s_resolved_%s()(((const %s *)%s)"
                     "[tracer_i]);",
                     p->name, count, p->name, w->backend, f2c, w->integer, from));
  add_line(w->arrays_in, xasprintf("tracer_args.%s = tracer_h_%s;", p->name, p->name));
  free(count);
  return true;
}

/* The array of indices the message names (MPI_Waitsome): C's indices, from 0, turned from
 * the Fortran ones after the call, as many as the message's indices_count says. */
static bool convert_indices(struct wrapper *w, const struct model_function *fn,
                            const struct model_param *p, const char *from) {
  const struct model_type *t = p->type, *element = t->target;
  if (!w->msg || !names_param(w->msg->indices, p->name) || !w->msg->indices_count ||
      !element || element->kind != MODEL_KIND_INT ||
      (t->kind != MODEL_KIND_POINTER && t->kind != MODEL_KIND_ARRAY))
    return false;
  char *count = view_value_expr(fn, w->msg->indices_count, "tracer_args.");
  if (!count)
    return false;
  unsigned slot = w->scratch++;
  add_line(w->locals, xasprintf("%s *tracer_h_%s = NULL;", element->spelling, p->name));
  add_line(w->arrays_out,
           xasprintf("tracer_h_%s = tracer_fortran_scratch(%u, (long long)(%s), sizeof "
                     "*tracer_h_%s);",
                     p->name, slot, count, p->name));
  add_line(w->arrays_out,
           xasprintf("for (long long tracer_i = 0; tracer_h_%s && tracer_i < (long long)(%s); "
                     "tracer_i++) tracer_h_%s[tracer_i] = (%s)tracer_fortran_index(((const "
                     "%s *)%s)[tracer_i], %d);",
                     p->name, count, p->name, element->spelling, w->integer, from,
                     w->f->index_base));
  add_line(w->arrays_out, xasprintf("tracer_args.%s = tracer_h_%s;", p->name, p->name));
  free(count);
  return true;
}

static void build(const struct spec *s, const struct spec_fortran *f, const char *backend,
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
  struct wrapper w = {f, backend, f->integer ? f->integer : "int", view_message_of(s, fn),
                      tree_set(fo, "locals", tree_list()), tree_set(fo, "convert_in", tree_list()),
                      tree_set(fo, "convert_out", tree_list()), tree_list(), tree_list(), 0};
  for (size_t i = 0; i < fn->params.len; i++) {
    const struct model_param *p = fn->params.items[i];
    if (absent(f, fn, p->name))
      continue;
    char *from = xasprintf("f_%s", p->name);
    strbuf_addf(&params, "%svoid *%s", params.len ? ", " : "", from);
    strbuf_addf(&args, "%s%s", args.len ? ", " : "", from);
    strbuf_addf(&types, "%svoid *", types.len ? ", " : "");
    const struct model_type *t = p->type, *target = t->target;
    char *value = NULL;
    if (is_character(f, t)) {
      /* A Fortran string: its length comes by value after the last argument. */
      strbuf_addf(&lengths, ", size_t %s_len", from);
      strbuf_addf(&length_args, ", %s_len", from);
      strbuf_addf(&length_types, ", size_t");
      convert_character(&w, p, from);
    } else if (convert_handles(&w, fn, p, from) || convert_indices(&w, fn, p, from)) {
      /* an array, converted after the scalars it depends on */
    } else if ((value = value_of(f, backend, t, from))) {
      add_line(w.in, xasprintf("tracer_args.%s = %s;", p->name, value));
    } else if (t->kind == MODEL_KIND_POINTER && target && target->kind == MODEL_KIND_VOID) {
      add_line(w.in, xasprintf("tracer_args.%s = %s;", p->name, from));
    } else if (t->kind == MODEL_KIND_POINTER && target && !p->length && !p->string &&
               (value = value_of(f, backend, target, from))) {
      /* One value behind a pointer: the record reads it through a local C twin; an index
       * into an array of the call is C's, from 0. */
      bool index = w.msg && f->index_base && names_param(w.msg->index, p->name);
      add_line(w.locals, xasprintf("__typeof__(*tracer_args.%s) tracer_f_%s = 0;", p->name,
                                   p->name));
      if (p->direction != MODEL_DIR_OUT)
        add_line(w.in, xasprintf("tracer_f_%s = %s;", p->name, value));
      add_line(w.in, xasprintf("tracer_args.%s = &tracer_f_%s;", p->name, p->name));
      if (p->direction != MODEL_DIR_IN && index)
        add_line(w.out, xasprintf("tracer_f_%s = (__typeof__(tracer_f_%s))tracer_fortran_index("
                                  "(int)(%s), %d);",
                                  p->name, p->name, value, f->index_base));
      else if (p->direction != MODEL_DIR_IN)
        add_line(w.out, xasprintf("tracer_f_%s = %s;", p->name, value));
    }
    free(value);
    free(from);
  }
  /* Arrays last: their counts are params converted above. */
  for (size_t i = 0; i < w.arrays_in->len; i++)
    add_line(w.in, xstrdup(tree_get(w.arrays_in->items[i], "line")->string));
  for (size_t i = 0; i < w.arrays_out->len; i++)
    add_line(w.out, xstrdup(tree_get(w.arrays_out->items[i], "line")->string));
  tree_free(w.arrays_in);
  tree_free(w.arrays_out);
  /* A call with a status gives it in a last INTEGER; one without (MPI_Wtime) returns
   * its value, as C's. */
  const char *integer = w.integer;
  bool returns = !fn->status && fn->result && fn->result->kind != MODEL_KIND_VOID;
  struct tree *result = tree_set(fo, "set_result", tree_list());
  char *text;
  if (fn->status) {
    strbuf_addf(&params, "%s%s *f_ierr", params.len ? ", " : "", integer);
    strbuf_addf(&args, "%sf_ierr", args.len ? ", " : "");
    strbuf_addf(&types, "%s%s *", types.len ? ", " : "", integer);
    add_line(result, xstrdup("tracer_args.tracer_result = *f_ierr;"));
  }
  strbuf_addf(&params, "%s", lengths.data ? lengths.data : "");
  strbuf_addf(&args, "%s", length_args.data ? length_args.data : "");
  strbuf_addf(&types, "%s", length_types.data ? length_types.data : "");
  const char *ret = returns ? fn->result->spelling : "void";
  const char *symbol_name = tree_get(fo, "symbol")->string;
  text = xasprintf("%s %s(%s)", ret, symbol_name, params.len ? params.data : "void");
  tree_set_string(fo, "prototype", text);
  free(text);
  text = xasprintf("typedef %s %s_%sfn(%s);", ret, backend, symbol_name,
                   types.len ? types.data : "void");
  tree_set_string(fo, "typedef", text);
  free(text);
  const char *call_args = args.len ? args.data : "";
  text = returns ? xasprintf("return tracer_real(%s);", call_args)
                 : xasprintf("tracer_real(%s);\n    return;", call_args);
  tree_set_string(fo, "passthrough", text);
  free(text);
  text = returns ? xasprintf("tracer_args.tracer_result = tracer_real(%s);", call_args)
                 : xasprintf("tracer_real(%s);", call_args);
  tree_set_string(fo, "real_call", text);
  free(text);
  tree_set_bool(fo, "returns_value", returns);
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
      build(s, f, m->backend, traced[i], (struct tree *)functions->items[i]);
  int rc = 0;
  for (size_t i = 0; i < f->absent_functions.len; i++) {
    const struct spec_pattern *p = f->absent_functions.items[i];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: trace.fortran.absent_params function=%s, "
                         "param=%s",
                         p->glob, ((struct spec_string *)f->absent_params.items[i])->value);
  }
  for (size_t i = 0; i < f->exclude.len; i++) {
    const struct spec_pattern *p = f->exclude.items[i];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: trace.fortran.exclude pattern=%s", p->glob);
  }
  return rc;
}
