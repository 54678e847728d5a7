/* spec_init_status: statuses inferred from the header's words. See spec_init_status.h. */
#include "spec_init_status.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "clang_type.h"
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

struct error_constant {
  char *name, *prefix;
  long long value;
};

struct scan {
  CXTranslationUnit tu;
  const struct strset *headers;
  struct ptrvec constants; /* struct error_constant*: error-named macros and enum constants */
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
  struct error_constant *e = xcalloc(1, sizeof *e);
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
  struct ptrvec names;  /* char* */
  struct ptrvec values; /* long long* */
};

static enum CXChildVisitResult constants_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct enum_constants *e = data;
  if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl) {
    ptrvec_push(&e->names, clang_string_take_plain(clang_getCursorSpelling(c)));
    long long *v = xmalloc(sizeof *v);
    *v = clang_getEnumConstantDeclValue(c);
    ptrvec_push(&e->values, v);
  }
  return CXChildVisit_Continue;
}

/* An enum result some of whose constants name errors: those are the errors, said as
 * briefly as their values allow (nonzero, negative, FIRST.., or their list). */
static bool enum_rule(struct init_function *f, CXType canonical) {
  struct enum_constants e = {{0}, {0}};
  clang_visitChildren(clang_getTypeDeclaration(canonical), constants_visit, &e);
  size_t errors = 0;
  bool negative = true, others_zero = true;
  long long min_error = 0, max_other = 0;
  const char *first = NULL, *min_name = NULL;
  struct strbuf list;
  strbuf_init(&list);
  for (size_t i = 0; i < e.names.len; i++) {
    const char *name = e.names.items[i];
    long long v = *(long long *)e.values.items[i];
    if (names_error(name)) {
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
             xasprintf("%s: an enum whose one constant that names no error is 0", type));
  } else if (negative) {
    set_rule(f, INIT_NEGATIVE, NULL,
             xasprintf("%s: an enum whose error constants (%s, ...) are negative", type, first));
  } else if (min_error > max_other && errors > 3) {
    set_rule(f, INIT_ERRORS, xasprintf("\"%s..\"", min_name),
             xasprintf("%s: an enum whose constants from %s up name errors", type, min_name));
  } else {
    set_rule(f, INIT_ERRORS, strbuf_release(&list),
             xasprintf("%s: an enum of results; its constants that name errors are errors", type));
  }
  free(type);
  strbuf_free(&list);
  for (size_t i = 0; i < e.names.len; i++) {
    free(e.names.items[i]);
    free(e.values.items[i]);
  }
  ptrvec_free(&e.names);
  ptrvec_free(&e.values);
  return errors > 0;
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

/* A phrase of the doc comment that says what an error returns, quoted in the comment:
 * the clause around `at` (up to 80 chars each way, between `.` or `;`), its lines joined
 * without the comment's stars and doxygen commands. */
static char *quote(const char *raw, const char *at) {
  const char *start = at, *end = at;
  while (start > raw && start[-1] != '.' && start[-1] != ';' && at - start < 80)
    start--;
  while (*end && *end != '.' && *end != ';' && end - at < 80)
    end++;
  struct strbuf b;
  strbuf_init(&b);
  for (const char *c = start; c < end; c++) {
    bool blank = isspace((unsigned char)*c) || strchr("\"#*@\\/", *c);
    if (*c == '\n')
      while (c + 1 < end && (isspace((unsigned char)c[1]) || c[1] == '*' || c[1] == '/'))
        c++;
    if (*c == '@' || *c == '\\') /* a doxygen command: "@c 0 on error" */
      while (c + 1 < end && isalpha((unsigned char)c[1]))
        c++;
    if (!blank)
      strbuf_addn(&b, c, 1);
    else if (b.len && b.data[b.len - 1] != ' ')
      strbuf_add(&b, " ");
  }
  return str_trim(strbuf_release(&b));
}

/* "returns NAME on failure", NAME one of the header's error constants (seccomp's
 * "returns __NR_SCMP_ERROR on failure", where negative pseudo syscall numbers succeed):
 * that constant, NULL when the comment says no such thing. */
static const struct error_constant *named_failure(const struct scan *s, const char *raw,
                                                  const char *lower) {
  static const char *const phrases[] = {" on failure", " on error", " upon failure",
                                        " if an error", " in case of error", NULL};
  for (size_t i = 0; phrases[i]; i++)
    for (const char *at = strstr(lower, phrases[i]); at; at = strstr(at + 1, phrases[i])) {
      const char *end = raw + (at - lower), *start = end;
      while (start > raw && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
        start--;
      for (size_t k = 0; k < s->constants.len && end > start; k++) {
        const struct error_constant *e = s->constants.items[k];
        if (strlen(e->name) == (size_t)(end - start) &&
            strncmp(e->name, start, (size_t)(end - start)) == 0)
          return e;
      }
    }
  return NULL;
}

/* Whether g's whole body returns a call of f (libwebp's static inline
 * WebPInitDecoderConfig: `{ return WebPInitDecoderConfigInternal(config, ABI); }`): read
 * from its tokens, as the parse skips function bodies. */
static bool token_is(CXTranslationUnit tu, CXToken t, const char *text) {
  char *spelling = clang_string_take_plain(clang_getTokenSpelling(tu, t));
  bool same = strcmp(spelling, text) == 0;
  free(spelling);
  return same;
}

static bool returns_call_of(const struct init_function *g, const struct init_function *f) {
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(g->cursor);
  CXSourceRange extent = clang_getCursorExtent(g->cursor);
  CXFile file;
  unsigned from, to;
  clang_getSpellingLocation(clang_getRangeStart(extent), &file, NULL, NULL, &from);
  clang_getSpellingLocation(clang_getRangeEnd(extent), NULL, NULL, NULL, &to);
  size_t size = 0;
  if (!file || !clang_getFileContents(tu, file, &size))
    return false;
  /* The extent ends before the skipped body: the body is in the next few hundred bytes. */
  unsigned end = to + 512 < size ? to + 512 : (unsigned)size;
  CXToken *tokens = NULL;
  unsigned n = 0;
  clang_tokenize(tu,
                 clang_getRange(clang_getLocationForOffset(tu, file, from),
                                clang_getLocationForOffset(tu, file, end)),
                 &tokens, &n);
  unsigned open = 0;
  while (open < n && !token_is(tu, tokens[open], "{") && !token_is(tu, tokens[open], ";"))
    open++;
  bool found = open + 3 < n && token_is(tu, tokens[open], "{") &&
               token_is(tu, tokens[open + 1], "return") &&
               token_is(tu, tokens[open + 2], f->name) && token_is(tu, tokens[open + 3], "(");
  /* One statement up to the brace that closes the body. */
  unsigned depth = 0, semicolons = 0;
  for (unsigned i = open; found && i < n; i++) {
    depth += token_is(tu, tokens[i], "{");
    semicolons += token_is(tu, tokens[i], ";");
    if (token_is(tu, tokens[i], "}") && --depth == 0)
      break;
  }
  clang_disposeTokens(tu, tokens, n);
  return found && semicolons == 1;
}

/* The doc comment of the function a header defines to return a call of f, and its name;
 * NULL when there is none. */
static char *wrapper_comment(const struct ptrvec *functions, const struct init_function *f,
                             const char **wrapper) {
  for (size_t i = 0; i < functions->len; i++) {
    const struct init_function *g = functions->items[i];
    if (!g->defined || g == f)
      continue;
    char *raw = returns_call_of(g, f)
                    ? clang_string_take_plain(clang_Cursor_getRawCommentText(g->cursor))
                    : NULL;
    if (raw && *raw) {
      *wrapper = g->name;
      return raw;
    }
    free(raw);
  }
  return NULL;
}

/* A rule from the words of a comment (raw, owned), which `whose` names (owned). */
static bool comment_rule(const struct scan *s, struct init_function *f, char *raw, char *whose) {
  char *lower = xstrdup(raw);
  for (char *c = lower; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  static const char *const zero[] = {"0 on error", "0 on failure", "zero on error",
                                     "zero on failure", "0 if an error", "0 in case of error",
                                     "0 if the function failed", "false on error",
                                     "false on failure", "false in case of", NULL};
  static const char *const nonzero[] = {"non-zero on error", "nonzero on error",
                                        "non-zero on failure", "nonzero on failure",
                                        "non-zero if an error", "nonzero if an error", NULL};
  const char *at = NULL;
  enum init_rule_kind kind = INIT_NONE;
  for (size_t i = 0; nonzero[i] && !at; i++)
    if ((at = strstr(lower, nonzero[i])))
      kind = INIT_NONZERO;
  for (size_t i = 0; zero[i] && !at; i++) {
    const char *z = strstr(lower, zero[i]);
    /* "-1 on error" and "non-zero on error" hold these too */
    if (z && (z == lower || (z[-1] != '-' && z[-1] != '1')))
      at = z, kind = INIT_ZERO;
  }
  const struct error_constant *named = at ? NULL : named_failure(s, raw, lower);
  if (named) {
    char *q = quote(raw, raw + (strstr(raw, named->name) - raw));
    set_rule(f, INIT_ERRORS, xasprintf("[%lld]", named->value),
             xasprintf("%s: \"%s\" (%s = %lld)", whose, q, named->name, named->value));
    free(q);
    free(whose);
    free(lower);
    free(raw);
    return true;
  }
  if (!at && (strstr(lower, "error") || strstr(lower, "fail"))) {
    if ((at = strstr(lower, "negative")))
      kind = INIT_NEGATIVE;
    else if ((at = strstr(lower, "-1 on")) || (at = strstr(lower, "-1 if")))
      kind = INIT_NEGATIVE;
  }
  if (at) {
    char *q = quote(raw, raw + (at - lower));
    set_rule(f, kind, NULL, xasprintf("%s: \"%s\"", whose, q));
    free(q);
  }
  free(whose);
  free(lower);
  free(raw);
  return at != NULL;
}

/* A rule from the function's doc comment, else from that of a function the header defines
 * to return a call of it. */
static bool doc_rule(const struct scan *s, const struct ptrvec *functions,
                     struct init_function *f) {
  char *raw = clang_string_take_plain(clang_Cursor_getRawCommentText(f->cursor));
  if (comment_rule(s, f, raw, xstrdup("its doc comment")))
    return true;
  const char *wrapper = NULL;
  raw = wrapper_comment(functions, f, &wrapper);
  return raw && comment_rule(s, f, raw, xasprintf("the doc comment of %s, which returns it",
                                                  wrapper));
}

/* Whether the function's doc comment describes a size (LZ4F_compressBound: "Provides
 * minimum dstCapacity required ...") and says nothing of errors or failures. */
static bool documents_no_error(const struct init_function *f) {
  static const char *const size_words[] = {"size", "bound", "maximum", "minimum", "capacity",
                                           "number of", "length", NULL};
  char *raw = clang_string_take_plain(clang_Cursor_getRawCommentText(f->cursor));
  for (char *c = raw; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  bool size = false;
  for (size_t i = 0; size_words[i] && !size; i++)
    size = strstr(raw, size_words[i]) != NULL;
  bool none = size && !strstr(raw, "error") && !strstr(raw, "fail");
  free(raw);
  return none;
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
static const struct error_constant *negative_errors(const struct scan *s, const char *name,
                                                    size_t *count) {
  char *prefix = prefix_of(name);
  const struct error_constant *first = NULL;
  size_t negative = 0, other = 0;
  for (size_t i = 0; i < s->constants.len; i++) {
    const struct error_constant *e = s->constants.items[i];
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
  if (query || canonical.kind == CXType_Pointer || canonical.kind == CXType_Void ||
      canonical.kind == CXType_Bool)
    return;
  if (canonical.kind == CXType_Enum && enum_rule(f, canonical))
    return;
  if (is_unsigned_integer(canonical)) {
    const struct init_function *test = result_test(functions, f, canonical);
    if (test && documents_no_error(f))
      return; /* a size or a count its doc comment describes: LZ4F_compressBound */
    if (test) {
      set_rule(f, INIT_IS_ERROR, xstrdup(test->name),
               xasprintf("%s: %s(), the header's own test of such a result, says which are errors",
                         f->result, test->name));
      return;
    }
    if (is_status_name(f->result) && clang_Type_getSizeOf(canonical) <= 4)
      set_rule(f, INIT_NONZERO, NULL,
               xasprintf("%s: a status type (0 is success), unsigned", f->result));
    return;
  }
  if (!is_signed_integer(canonical))
    return;
  if (doc_rule(s, functions, f))
    return;
  size_t count = 0;
  const struct error_constant *e = negative_errors(s, f->name, &count);
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
    struct error_constant *e = s.constants.items[i];
    free(e->name);
    free(e->prefix);
    free(e);
  }
  ptrvec_free(&s.constants);
}

bool spec_init_same_rule(const struct init_rule *a, const struct init_rule *b) {
  return a->kind == b->kind &&
         (a->values == b->values || (a->values && b->values && strcmp(a->values, b->values) == 0));
}
