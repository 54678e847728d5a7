/* model_aliases: the names callers write for functions a macro renames. See
 * model_aliases.h. */
#include "model_aliases.h"

#include <stdlib.h>
#include <string.h>

#include "clang_type.h"

struct alias {
  char *name;   /* the macro's name */
  char *target; /* the function it names; NULL until known */
  bool probe;   /* its replacement needs the compiler to expand it */
};

/* A replacement of one identifier names its target; one with a literal names no
 * function; anything else (a macro call that pastes tokens) is left to the probe. */
static void read_replacement(CXTranslationUnit tu, CXCursor macro, struct alias *a) {
  CXToken *tokens = NULL;
  unsigned n = 0;
  clang_tokenize(tu, clang_getCursorExtent(macro), &tokens, &n);
  bool literal = false, identifier = false;
  for (unsigned i = 1; i < n; i++) { /* token 0 is the macro's name */
    CXTokenKind k = clang_getTokenKind(tokens[i]);
    literal |= k == CXToken_Literal;
    identifier |= k == CXToken_Identifier;
  }
  if (n == 2 && clang_getTokenKind(tokens[1]) == CXToken_Identifier)
    a->target = clang_string_take_plain(clang_getTokenSpelling(tu, tokens[1]));
  else
    a->probe = n > 2 && identifier && !literal;
  clang_disposeTokens(tu, tokens, n);
}

static enum CXChildVisitResult find_function_ref(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  char **out = data;
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
    CXCursor ref = clang_getCursorReferenced(c);
    if (clang_getCursorKind(ref) == CXCursor_FunctionDecl) {
      *out = clang_string_take_plain(clang_getCursorSpelling(ref));
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Recurse;
}

struct probe_walk {
  struct alias *aliases;
  size_t n;
};

static enum CXChildVisitResult probe_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct probe_walk *w = data;
  if (clang_getCursorKind(c) != CXCursor_VarDecl)
    return CXChildVisit_Continue;
  char *name = clang_string_take_plain(clang_getCursorSpelling(c));
  size_t index;
  if (sscanf(name, "apigen_alias_%zu", &index) == 1 && index < w->n && !w->aliases[index].target)
    clang_visitChildren(c, find_function_ref, &w->aliases[index].target);
  free(name);
  return CXChildVisit_Continue;
}

static void probe(CXIndex index, const struct tu_config *cfg, struct alias *aliases, size_t n) {
  struct strbuf sb;
  strbuf_init(&sb);
  bool any = false;
  for (size_t i = 0; i < n; i++)
    if (aliases[i].probe) {
      strbuf_addf(&sb, "static void *apigen_alias_%zu = (void *)&(%s);\n", i, aliases[i].name);
      any = true;
    }
  CXTranslationUnit unit = NULL;
  struct diag ignored;
  diag_init(&ignored);
  /* Lines that are no function's address fail to compile: they are simply not read. */
  if (any && tu_parse(index, cfg, sb.data, false, &unit, &ignored) == 0 && unit) {
    struct probe_walk w = {aliases, n};
    clang_visitChildren(clang_getTranslationUnitCursor(unit), probe_visit, &w);
    clang_disposeTranslationUnit(unit);
  }
  diag_clear(&ignored);
  strbuf_free(&sb);
}

static struct model_function *function_named(struct model *m, const char *name) {
  for (size_t i = 0; i < m->functions.len; i++) {
    struct model_function *f = m->functions.items[i];
    if (strcmp(f->name, name) == 0)
      return f;
  }
  return NULL;
}

void model_aliases_find(struct model *m, CXIndex index, const struct tu_config *cfg,
                        CXTranslationUnit tu, const struct ptrvec *candidates) {
  size_t n = candidates->len;
  if (n == 0)
    return;
  struct alias *aliases = xcalloc(n, sizeof *aliases);
  for (size_t i = 0; i < n; i++) {
    CXCursor macro = *(CXCursor *)candidates->items[i];
    aliases[i].name = clang_string_take_plain(clang_getCursorSpelling(macro));
    if (!function_named(m, aliases[i].name))
      read_replacement(tu, macro, &aliases[i]);
  }
  probe(index, cfg, aliases, n);
  for (size_t i = 0; i < n; i++) {
    struct model_function *f = aliases[i].target ? function_named(m, aliases[i].target) : NULL;
    if (f && !f->written && strcmp(f->name, aliases[i].name) != 0)
      f->written = xstrdup(aliases[i].name);
    free(aliases[i].name);
    free(aliases[i].target);
  }
  free(aliases);
}
