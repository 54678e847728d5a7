/* model_constants: macro values, evaluated by libclang. */
#include "model_constants.h"

#include <stdlib.h>
#include <string.h>

#include "clang_type.h"

struct candidate {
  char *name;
  char *definition; /* replacement text, whitespace collapsed */
  bool is_string;   /* every token is a string literal (or a paren) */
  bool rejected;    /* does not compile as a value */
  bool runtime;     /* compiles, but its value is known only at run time */
  char *file;       /* where the macro is defined */
  unsigned line;
};

/* The replacement text and whether it is made of string literals only. */
static void read_definition(CXTranslationUnit tu, CXCursor macro, struct candidate *c) {
  CXToken *tokens = NULL;
  unsigned n = 0;
  clang_tokenize(tu, clang_getCursorExtent(macro), &tokens, &n);
  struct strbuf sb;
  strbuf_init(&sb);
  bool strings_only = n > 1;
  bool any_string = false;
  unsigned prev_end = 0;
  for (unsigned i = 1; i < n; i++) { /* token 0 is the macro's name */
    char *text = clang_string_take_plain(clang_getTokenSpelling(tu, tokens[i]));
    unsigned start, end;
    CXSourceRange r = clang_getTokenExtent(tu, tokens[i]);
    clang_getSpellingLocation(clang_getRangeStart(r), NULL, NULL, NULL, &start);
    clang_getSpellingLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &end);
    if (i > 1 && start > prev_end)
      strbuf_add(&sb, " ");
    prev_end = end;
    strbuf_add(&sb, text);
    bool is_str = clang_getTokenKind(tokens[i]) == CXToken_Literal && text[0] == '"';
    bool is_paren = strcmp(text, "(") == 0 || strcmp(text, ")") == 0;
    any_string |= is_str;
    if (!is_str && !is_paren)
      strings_only = false;
    free(text);
  }
  clang_disposeTokens(tu, tokens, n);
  c->definition = strbuf_release(&sb);
  c->is_string = strings_only && any_string;
}

static char *probe_source(struct candidate *cands, size_t n) {
  struct strbuf sb;
  strbuf_init(&sb);
  strbuf_add(&sb, "\n");
  for (size_t i = 0; i < n; i++) {
    if (cands[i].rejected)
      strbuf_add(&sb, "\n");
    else if (cands[i].is_string)
      strbuf_addf(&sb, "static const char apigen_constant_%zu[] = %s;\n", i, cands[i].name);
    else
      strbuf_addf(&sb, "static const __auto_type apigen_constant_%zu = (%s);\n", i,
                  cands[i].name);
  }
  return strbuf_release(&sb);
}

/* Lines of the synthetic source are: the #include lines, a blank line, one per candidate. */
static unsigned first_probe_line(const struct tu_config *cfg) {
  unsigned lines = 1;
  for (const char *p = cfg->includes; *p; p++)
    lines += *p == '\n';
  return lines + 1;
}

/* Drops every candidate whose probe line has an error, noting those whose value exists
 * only at run time. Errors on no candidate's line (inside a header, say) are reported,
 * located at the header line clang names, when `report` is set. */
static int reject_failing(CXTranslationUnit tu, struct candidate *cands, size_t n,
                          unsigned first_line, bool report, struct diag *d) {
  int rejected = 0;
  unsigned count = clang_getNumDiagnostics(tu);
  for (unsigned i = 0; i < count; i++) {
    CXDiagnostic diag = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error) {
      CXFile file;
      unsigned line, column;
      /* Errors inside macro expansions are reported where the macro was used. */
      clang_getExpansionLocation(clang_getDiagnosticLocation(diag), &file, &line, &column, NULL);
      char *name = file ? clang_string_take_plain(clang_getFileName(file)) : xstrdup("");
      char *msg = clang_string_take_plain(clang_getDiagnosticSpelling(diag));
      bool mine = strcmp(name, TU_MAIN_NAME) == 0 && line >= first_line && line - first_line < n;
      if (mine && !cands[line - first_line].rejected) {
        struct candidate *c = &cands[line - first_line];
        c->rejected = true;
        c->runtime = strstr(msg, "not a compile-time constant") != NULL;
        rejected++;
      } else if (!mine && report) {
        diag_error_at(d, name, line, column, "Cannot evaluate constants: %s", msg);
      }
      free(msg);
      free(name);
    }
    clang_disposeDiagnostic(diag);
  }
  return rejected;
}

struct eval_walk {
  struct model *m;
  struct candidate *cands;
  size_t n;
};

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  *(CXCursor *)data = c;
  return CXChildVisit_Break;
}

static enum CXChildVisitResult eval_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct eval_walk *w = data;
  if (clang_getCursorKind(c) != CXCursor_VarDecl)
    return CXChildVisit_Continue;
  char *var = clang_string_take_plain(clang_getCursorSpelling(c));
  size_t index;
  int consumed = 0;
  if (sscanf(var, "apigen_constant_%zu%n", &index, &consumed) != 1 || var[consumed] ||
      index >= w->n) {
    free(var);
    return CXChildVisit_Continue;
  }
  free(var);
  struct candidate *cand = &w->cands[index];
  CXCursor init = clang_getNullCursor();
  clang_visitChildren(c, first_child, &init);
  CXEvalResult ev = clang_Cursor_Evaluate(c);
  if (!ev)
    return CXChildVisit_Continue;
  CXEvalResultKind kind = clang_EvalResult_getKind(ev);
  struct model_constant *k = NULL;
  if (cand->is_string && kind == CXEval_StrLiteral) {
    k = xcalloc(1, sizeof *k);
    k->kind = MODEL_CONST_STRING;
    k->type = xstrdup("const char *");
    k->string = xstrdup(clang_EvalResult_getAsStr(ev));
  } else if (!cand->is_string && kind == CXEval_Int && !clang_Cursor_isNull(init)) {
    CXType t = clang_getCursorType(init);
    CXType canonical = clang_getCanonicalType(t);
    if (clang_type_is_integer_kind(canonical.kind) || canonical.kind == CXType_Enum) {
      k = xcalloc(1, sizeof *k);
      k->kind = MODEL_CONST_INT;
      k->type = clang_type_decl(t, "");
      k->is_signed = !clang_EvalResult_isUnsignedInt(ev);
      if (k->is_signed)
        k->value = clang_EvalResult_getAsLongLong(ev);
      else
        k->uvalue = clang_EvalResult_getAsUnsigned(ev);
    }
  }
  clang_EvalResult_dispose(ev);
  if (k) {
    k->name = xstrdup(cand->name);
    k->definition = xstrdup(cand->definition);
    ptrvec_push(&w->m->constants, k);
  }
  return CXChildVisit_Continue;
}

int model_constants_build(struct model *m, CXIndex index, const struct tu_config *cfg,
                          CXTranslationUnit tu, const struct ptrvec *macros, struct diag *d) {
  size_t n = macros->len;
  if (n == 0)
    return 0;
  struct candidate *cands = xcalloc(n, sizeof *cands);
  struct strset seen = {0};
  for (size_t i = 0; i < n; i++) {
    CXCursor mc = *(CXCursor *)macros->items[i];
    cands[i].name = clang_string_take_plain(clang_getCursorSpelling(mc));
    cands[i].file = tu_cursor_file(mc, &cands[i].line, NULL);
    read_definition(tu, mc, &cands[i]);
    /* Empty macros (guards, attributes) and redefinitions are not values. */
    if (!*cands[i].definition || !strset_add(&seen, cands[i].name))
      cands[i].rejected = true;
  }
  strset_free(&seen);
  unsigned first_line = first_probe_line(cfg);
  CXTranslationUnit probe = NULL;
  int rc = 0;
  /* Each pass drops at least one failing candidate, so n + 1 passes always suffice. */
  for (size_t attempt = 0; attempt <= n; attempt++) {
    char *source = probe_source(cands, n);
    rc = tu_parse(index, cfg, source, false, &probe, d);
    free(source);
    if (rc)
      break;
    int dropped = reject_failing(probe, cands, n, first_line, false, d);
    if (dropped == 0 && clang_getNumDiagnostics(probe) > 0) {
      /* Errors that no candidate's line explains: name each where clang found it. */
      size_t before = d->count;
      reject_failing(probe, cands, n, first_line, true, d);
      if (d->count > before)
        rc = diag_error(d, "Cannot evaluate constants: backend=%s", m->backend);
    }
    if (dropped == 0)
      break;
    clang_disposeTranslationUnit(probe);
    probe = NULL;
  }
  if (rc && probe) {
    clang_disposeTranslationUnit(probe);
    probe = NULL;
  }
  if (rc == 0 && !probe)
    rc = diag_error(d, "Cannot evaluate constants: backend=%s", m->backend);
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (!cands[i].runtime)
      continue;
    struct model_runtime_macro *r = xcalloc(1, sizeof *r);
    r->name = xstrdup(cands[i].name);
    r->definition = xstrdup(cands[i].definition);
    r->header = tu_include_name(cfg, cands[i].file);
    r->line = cands[i].line;
    ptrvec_push(&m->runtime_macros, r);
  }
  if (probe) {
    struct eval_walk w = {m, cands, n};
    clang_visitChildren(clang_getTranslationUnitCursor(probe), eval_visit, &w);
    clang_disposeTranslationUnit(probe);
  }
  for (size_t i = 0; i < n; i++) {
    free(cands[i].name);
    free(cands[i].definition);
    free(cands[i].file);
  }
  free(cands);
  return rc;
}
