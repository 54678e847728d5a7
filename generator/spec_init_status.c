/* spec_init_status: statuses inferred from the header's words. See spec_init_status.h. */
#include "spec_init_status.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "clang_type.h"
#include "spec_init_comment.h"
#include "translation_unit.h"

/* Words that make a constant's name an error's, and those that say it is none. */
static const char *const error_words[] = {"ERROR", "_ERR", "ERR_", "FAIL", "INVALID",
                                          "UNSUPPORTED", "BAD_", "_BAD", "ILLEGAL", "DENIED",
                                          "OUT_OF", "NOMEM", "NO_MEM", "ABORT", "NOT_ENOUGH",
                                          "CORRUPT", "OVERFLOW", NULL};
static const char *const none_words[] = {"NONE", "NO_ERROR", "NOERROR", "_OK", "SUCCESS", NULL};

static char *upper(const char *s) {
  char *u = xstrdup(s);
  for (char *c = u; *c; c++)
    *c = (char)toupper((unsigned char)*c);
  return u;
}

static bool has_word(const char *name, const char *const *words) {
  char *u = upper(name);
  bool found = false;
  for (size_t i = 0; words[i] && !found; i++)
    found = strstr(u, words[i]) != NULL;
  free(u);
  return found;
}

static bool names_error(const char *name) {
  return has_word(name, error_words) && !has_word(name, none_words);
}

/* The lower-case prefix of a name: up to its first `_` (pcre2 of PCRE2_ERROR_NOMATCH
 * and pcre2_match_8). */
static char *prefix_of(const char *name) {
  const char *u = strchr(name, '_');
  char *p = u && u > name ? xstrndup(name, (size_t)(u - name)) : xstrdup(name);
  for (char *c = p; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  return p;
}

struct scan {
  CXTranslationUnit tu;
  const struct strset *headers;
  struct ptrvec constants; /* struct init_error_constant*: error-named macros and enum constants */
};

static bool in_headers(const struct scan *s, CXCursor c) {
  char *file = tu_cursor_file(c, NULL, NULL);
  char *real = *file ? realpath(file, NULL) : NULL;
  bool in = real && strset_has(s->headers, real);
  free(real);
  free(file);
  return in;
}

static void add_constant(struct scan *s, const char *name, long long value) {
  if (!names_error(name))
    return;
  struct init_error_constant *e = xcalloc(1, sizeof *e);
  e->name = xstrdup(name);
  e->prefix = prefix_of(name);
  e->value = value;
  ptrvec_push(&s->constants, e);
}

/* A macro whose replacement is an integer, maybe negative and in parentheses. */
static void read_macro(struct scan *s, CXCursor c) {
  CXToken *tokens = NULL;
  unsigned n = 0;
  clang_tokenize(s->tu, clang_getCursorExtent(c), &tokens, &n);
  char text[64] = "";
  size_t used = 0;
  for (unsigned i = 1; i < n && used < sizeof text - 24; i++) {
    char *t = clang_string_take_plain(clang_getTokenSpelling(s->tu, tokens[i]));
    if (strcmp(t, "(") != 0 && strcmp(t, ")") != 0)
      used += (size_t)snprintf(text + used, sizeof text - used, "%s", t);
    free(t);
  }
  clang_disposeTokens(s->tu, tokens, n);
  char *end = NULL;
  long long v = strtoll(text, &end, 0);
  if (used && end && end != text && !*end) {
    char *name = clang_string_take_plain(clang_getCursorSpelling(c));
    add_constant(s, name, v);
    free(name);
  }
}

static enum CXChildVisitResult enum_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl) {
    char *name = clang_string_take_plain(clang_getCursorSpelling(c));
    add_constant(data, name, clang_getEnumConstantDeclValue(c));
    free(name);
  }
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult scan_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct scan *s = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if ((k != CXCursor_MacroDefinition && k != CXCursor_EnumDecl) || !in_headers(s, c))
    return CXChildVisit_Continue;
  if (k == CXCursor_EnumDecl)
    clang_visitChildren(c, enum_visit, s);
  else if (!clang_Cursor_isMacroFunctionLike(c) && !clang_Cursor_isMacroBuiltin(c))
    read_macro(s, c);
  return CXChildVisit_Continue;
}

static void set_rule(struct init_function *f, enum init_rule_kind kind, char *values,
                     char *why) {
  f->rule.kind = kind;
  f->rule.values = values;
  f->rule.why = why;
}

struct enum_constants {
  struct ptrvec names;   /* char* */
  struct ptrvec values;  /* long long* */
  struct ptrvec cursors; /* CXCursor* */
};

static enum CXChildVisitResult constants_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct enum_constants *e = data;
  if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl) {
    ptrvec_push(&e->names, clang_string_take_plain(clang_getCursorSpelling(c)));
    long long *v = xmalloc(sizeof *v);
    *v = clang_getEnumConstantDeclValue(c);
    ptrvec_push(&e->values, v);
    CXCursor *cursor = xmalloc(sizeof *cursor);
    *cursor = c;
    ptrvec_push(&e->cursors, cursor);
  }
  return CXChildVisit_Continue;
}

/* An enum result some of whose constants name errors: those are the errors, said as
 * briefly as their values allow (nonzero, negative, FIRST.., or their list), but for
 * those whose doc comment says f goes on normally after them. */
static bool enum_rule(struct init_function *f, CXType canonical) {
  struct enum_constants e = {{0}, {0}, {0}};
  clang_visitChildren(clang_getTypeDeclaration(canonical), constants_visit, &e);
  size_t errors = 0;
  bool negative = true, others_zero = true;
  long long min_error = 0, max_other = 0;
  const char *first = NULL, *min_name = NULL;
  struct strbuf list, none;
  strbuf_init(&list);
  strbuf_init(&none);
  bool named = false;
  for (size_t i = 0; i < e.names.len; i++) {
    const char *name = e.names.items[i];
    long long v = *(long long *)e.values.items[i];
    char *goes_on = NULL;
    if (names_error(name)) {
      named = true;
      CXCursor c = *(CXCursor *)e.cursors.items[i];
      CXSourceLocation until =
          i + 1 < e.cursors.len
              ? clang_getRangeStart(clang_getCursorExtent(*(CXCursor *)e.cursors.items[i + 1]))
              : clang_getRangeEnd(clang_getCursorExtent(clang_getCursorSemanticParent(c)));
      char *comment = init_comment_of_constant(c, until);
      goes_on = init_comment_no_error_for(comment, f->name);
      free(comment);
      if (goes_on)
        strbuf_addf(&none, "; %s is none for %s, its doc comment: \"%s\"", name, f->name,
                    goes_on);
    }
    free(goes_on);
    if (names_error(name) && !goes_on) {
      strbuf_addf(&list, "%s%s", errors++ ? ", " : "[", name);
      negative &= v < 0;
      first = first ? first : name;
      if (!min_name || v < min_error)
        min_error = v, min_name = name;
    } else {
      others_zero &= v == 0;
      max_other = i == 0 || v > max_other ? v : max_other;
    }
  }
  strbuf_add(&list, "]");
  char *type = clang_string_take_plain(clang_getTypeSpelling(canonical));
  if (errors == 0) {
    /* no error named: no status */
  } else if (others_zero) {
    set_rule(f, INIT_NONZERO, NULL,
             xasprintf("%s: an enum whose one constant that names no error is 0%s", type,
                       none.data));
  } else if (negative) {
    set_rule(f, INIT_NEGATIVE, NULL,
             xasprintf("%s: an enum whose error constants (%s, ...) are negative%s", type, first,
                       none.data));
  } else if (min_error > max_other && errors > 3) {
    set_rule(f, INIT_ERRORS, xasprintf("\"%s..\"", min_name),
             xasprintf("%s: an enum whose constants from %s up name errors%s", type, min_name,
                       none.data));
  } else {
    set_rule(f, INIT_ERRORS, strbuf_release(&list),
             xasprintf("%s: an enum of results; its constants that name errors are errors%s",
                       type, none.data));
  }
  free(type);
  strbuf_free(&list);
  strbuf_free(&none);
  for (size_t i = 0; i < e.names.len; i++) {
    free(e.names.items[i]);
    free(e.values.items[i]);
    free(e.cursors.items[i]);
  }
  ptrvec_free(&e.names);
  ptrvec_free(&e.values);
  ptrvec_free(&e.cursors);
  return named;
}

/* The header's own test of results of this type: a function named *isError, *is_error
 * taking one value of it, the one sharing the longest prefix with f. */
static const struct init_function *result_test(const struct ptrvec *functions,
                                               const struct init_function *f, CXType canonical) {
  const struct init_function *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < functions->len; i++) {
    const struct init_function *t = functions->items[i];
    char *u = upper(t->name);
    size_t n = strlen(u);
    bool named = (n > 7 && strcmp(u + n - 7, "ISERROR") == 0) ||
                 (n > 8 && strcmp(u + n - 8, "IS_ERROR") == 0);
    free(u);
    if (!named || (!t->exported && !t->defined) ||
        clang_Cursor_getNumArguments(t->cursor) != 1)
      continue;
    CXType arg = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(t->cursor, 0)));
    if (!clang_equalTypes(arg, canonical))
      continue;
    size_t common = 0;
    while (t->name[common] && t->name[common] == f->name[common])
      common++;
    if (common > best_len) {
      best = t;
      best_len = common;
    }
  }
  return best;
}

static bool names_boolean(const char *spelling) {
  char *lower = xstrdup(spelling);
  for (char *c = lower; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  size_t n = strlen(lower);
  bool boolean = (n >= 4 && strcmp(lower + n - 4, "bool") == 0) ||
                 (n >= 7 && strcmp(lower + n - 7, "boolean") == 0);
  free(lower);
  return boolean;
}

static bool is_status_name(const char *spelling) {
  const char *s = str_starts_with(spelling, "const ") ? spelling + 6 : spelling;
  static const char *const suffixes[] = {"_status", "_status_t", "_result", "_result_t", "_ret",
                                         "_error_t", "_err_t", "_errorcode_t", "_errorcode",
                                         "status", "result", NULL};
  char *lower = xstrdup(s);
  for (char *c = lower; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  size_t n = strlen(lower);
  bool found = false;
  for (size_t i = 0; suffixes[i] && !found; i++) {
    size_t k = strlen(suffixes[i]);
    found = n > k && strcmp(lower + n - k, suffixes[i]) == 0;
  }
  free(lower);
  return found;
}

static bool is_signed_integer(CXType t) {
  switch (t.kind) {
  case CXType_SChar: case CXType_Char_S: case CXType_Short: case CXType_Int:
  case CXType_Long: case CXType_LongLong:
    return true;
  default:
    return false;
  }
}

static bool is_unsigned_integer(CXType t) {
  switch (t.kind) {
  case CXType_UChar: case CXType_Char_U: case CXType_UShort: case CXType_UInt:
  case CXType_ULong: case CXType_ULongLong:
    return true;
  default:
    return false;
  }
}

/* Error constants of the function's prefix that are all negative: the first of them. */
static const struct init_error_constant *negative_errors(const struct scan *s, const char *name,
                                                    size_t *count) {
  char *prefix = prefix_of(name);
  const struct init_error_constant *first = NULL;
  size_t negative = 0, other = 0;
  for (size_t i = 0; i < s->constants.len; i++) {
    const struct init_error_constant *e = s->constants.items[i];
    if (strcmp(e->prefix, prefix) != 0)
      continue;
    if (e->value < 0) {
      negative++;
      first = first ? first : e;
    } else if (e->value > 0) {
      other++;
    }
  }
  free(prefix);
  *count = negative;
  /* A few negative ones are a sign enough: pcre2.h has 60 negative match errors besides
   * its 100 positive compile errors, which an out-param gives. */
  return negative >= 3 || (negative && !other) ? first : NULL;
}

static void infer(const struct scan *s, const struct ptrvec *functions, struct init_function *f) {
  CXType result = clang_getCursorResultType(f->cursor);
  CXType canonical = clang_getCanonicalType(result);
  /* Functions that report errors or versions are queries, not calls that fail. */
  char *u = upper(f->name);
  bool query = strstr(u, "ERROR") || strstr(u, "ERRNO") || strstr(u, "_ERR") ||
               strstr(u, "VERSION");
  free(u);
  if (query || canonical.kind == CXType_Pointer || canonical.kind == CXType_Void)
    return;
  /* A boolean is a status only where its comment says which value fails. */
  if (canonical.kind == CXType_Bool) {
    init_comment_rule(&s->constants, functions, f);
    return;
  }
  if (canonical.kind == CXType_Enum && enum_rule(f, canonical))
    return;
  if (is_unsigned_integer(canonical)) {
    const struct init_function *test = result_test(functions, f, canonical);
    if (test && init_comment_describes_size(f))
      return; /* a size or a count its doc comment describes: LZ4F_compressBound */
    if (test) {
      set_rule(f, INIT_IS_ERROR, xstrdup(test->name),
               xasprintf("%s: %s(), the header's own test of such a result, says which are errors",
                         f->result, test->name));
      return;
    }
    /* A boolean by its name, as lzma_bool (an unsigned char), is one where its comment says
     * which value fails ("On success, false is returned"); sizes and counts are none. */
    if (names_boolean(f->result)) {
      init_comment_rule(&s->constants, functions, f);
      return;
    }
    if (is_status_name(f->result) && clang_Type_getSizeOf(canonical) <= 4)
      set_rule(f, INIT_NONZERO, NULL,
               xasprintf("%s: a status type (0 is success), unsigned", f->result));
    return;
  }
  if (!is_signed_integer(canonical))
    return;
  if (init_comment_rule(&s->constants, functions, f))
    return;
  size_t count = 0;
  const struct init_error_constant *e = negative_errors(s, f->name, &count);
  if (e)
    set_rule(f, INIT_NEGATIVE, NULL,
             xasprintf("%s: the header's %zu error constants of this prefix (%s = %lld, ...) "
                       "are negative",
                       f->result, count, e->name, e->value));
  else if (is_status_name(f->result))
    set_rule(f, INIT_NEGATIVE, NULL, xasprintf("%s: a status type, signed", f->result));
}

void spec_init_infer(CXTranslationUnit tu, const struct strset *headers,
                     struct ptrvec *functions) {
  struct scan s = {tu, headers, {0}};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), scan_visit, &s);
  for (size_t i = 0; i < functions->len; i++)
    infer(&s, functions, functions->items[i]);
  for (size_t i = 0; i < s.constants.len; i++) {
    struct init_error_constant *e = s.constants.items[i];
    free(e->name);
    free(e->prefix);
    free(e);
  }
  ptrvec_free(&s.constants);
}

bool spec_init_same_rule(const struct init_rule *a, const struct init_rule *b) {
  return a->kind == b->kind &&
         (a->values == b->values || (a->values && b->values && strcmp(a->values, b->values) == 0)) &&
         (a->success == b->success ||
          (a->success && b->success && strcmp(a->success, b->success) == 0));
}
