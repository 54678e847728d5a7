/* spec_init_comment: what a header's comments say of a result. See spec_init_comment.h. */
#include "spec_init_comment.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clang_type.h"

static char *lower_dup(const char *s) {
  char *l = xstrdup(s);
  for (char *c = l; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  return l;
}

static bool is_word_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

/* The first `word` in [text, end) that starts a word of the text (so "error" is not found
 * in "xml_error_none"), NULL if none. */
static const char *find_word(const char *text, const char *end, const char *word) {
  size_t n = strlen(word);
  for (const char *at = text; at + n <= end; at++)
    if (strncmp(at, word, n) == 0 && (at == text || !is_word_char(at[-1])))
      return at;
  return NULL;
}

static const char *find_any(const char *text, const char *end, const char *const *words) {
  for (size_t i = 0; words[i]; i++) {
    const char *at = find_word(text, end, words[i]);
    if (at)
      return at;
  }
  return NULL;
}

static void set_rule(struct init_function *f, enum init_rule_kind kind, char *values,
                     char *why) {
  f->rule.kind = kind;
  f->rule.values = values;
  f->rule.why = why;
}

/* The text of [start, end) of a comment, its lines joined without the comment's stars
 * and doxygen commands. */
static char *joined(const char *start, const char *end) {
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

/* A phrase of the doc comment that says what an error returns, quoted in the comment:
 * the clause around `at` (up to 80 chars each way, between `.` or `;`), joined. */
static char *quote(const char *raw, const char *at) {
  const char *start = at, *end = at;
  while (start > raw && start[-1] != '.' && start[-1] != ';' && at - start < 80)
    start--;
  while (*end && *end != '.' && *end != ';' && end - at < 80)
    end++;
  /* cut at the limit: whole words only */
  if (start > raw && start[-1] != '.' && start[-1] != ';')
    while (start < at && !isspace((unsigned char)start[-1]))
      start++;
  if (*end && *end != '.' && *end != ';')
    while (end > at && !isspace((unsigned char)*end))
      end--;
  return joined(start, end);
}

/* "returns NAME on failure", NAME one of the header's error constants (seccomp's
 * "returns __NR_SCMP_ERROR on failure", where negative pseudo syscall numbers succeed):
 * that constant, NULL when the comment says no such thing. */
static const struct init_error_constant *named_failure(const struct ptrvec *constants,
                                                       const char *raw, const char *lower) {
  static const char *const phrases[] = {" on failure", " on error", " upon failure",
                                        " if an error", " in case of error", NULL};
  for (size_t i = 0; phrases[i]; i++)
    for (const char *at = strstr(lower, phrases[i]); at; at = strstr(at + 1, phrases[i])) {
      const char *end = raw + (at - lower), *start = end;
      while (start > raw && is_word_char(start[-1]))
        start--;
      for (size_t k = 0; k < constants->len && end > start; k++) {
        const struct init_error_constant *e = constants->items[k];
        if (strlen(e->name) == (size_t)(end - start) &&
            strncmp(e->name, start, (size_t)(end - start)) == 0)
          return e;
      }
    }
  return NULL;
}

/* A phrase saying what an error returns: its kind, and where it is in `lower`. */
static enum init_rule_kind error_phrase(const char *lower, const char **at) {
  static const char *const zero[] = {"0 on error", "0 on failure", "zero on error",
                                     "zero on failure", "0 if an error", "0 in case of error",
                                     "0 if the function failed", "false on error",
                                     "false on failure", "false in case of", NULL};
  static const char *const nonzero[] = {"non-zero on error", "nonzero on error",
                                        "non-zero on failure", "nonzero on failure",
                                        "non-zero if an error", "nonzero if an error", NULL};
  for (size_t i = 0; nonzero[i]; i++)
    if ((*at = strstr(lower, nonzero[i])))
      return INIT_NONZERO;
  for (size_t i = 0; zero[i]; i++) {
    const char *z = strstr(lower, zero[i]);
    /* "-1 on error" and "non-zero on error" hold these too */
    if (z && (z == lower || (z[-1] != '-' && z[-1] != '1'))) {
      *at = z;
      return INIT_ZERO;
    }
  }
  *at = NULL;
  return INIT_NONE;
}

static const char *const failure_words[] = {"fail", "error", "not supported", "unsupported",
                                            "without support", "no effect", "do nothing",
                                            "does nothing", "invalid", NULL};
/* Words that deny a failure: a sentence holding one speaks of success. */
static const char *const no_failure_words[] = {"no error", "without error", "never fail",
                                               "not fail", "no failure", NULL};
/* "successfully unregistered" or "no successful inserts" say no value of success. */
static const char *const success_words[] = {"on success", "upon success", "if successful",
                                            "when successful", "succeeds", "succeeded", NULL};

/* What a sentence says (in lower case, [start, end)): a failure, a success or neither. */
enum saying { SAYS_NOTHING, SAYS_FAILURE, SAYS_SUCCESS };

static enum saying sentence_says(const char *start, const char *end) {
  bool success = find_any(start, end, success_words) || find_any(start, end, no_failure_words);
  bool failure = !find_any(start, end, no_failure_words) && find_any(start, end, failure_words);
  return success == failure ? SAYS_NOTHING : failure ? SAYS_FAILURE : SAYS_SUCCESS;
}

/* A value a sentence says is returned, as a kind: zero (0, zero, false), nonzero (true,
 * non-zero) or negative (-1, a negative value); INIT_NONE for another or none. */
static enum init_rule_kind value_kind(const char *word, size_t n) {
  static const char *const zero[] = {"0", "zero", "false", NULL};
  static const char *const nonzero[] = {"true", "non-zero", "nonzero", NULL};
  static const char *const negative[] = {"-1", "negative", NULL};
  const char *const *lists[] = {zero, nonzero, negative};
  enum init_rule_kind kinds[] = {INIT_ZERO, INIT_NONZERO, INIT_NEGATIVE};
  for (size_t l = 0; l < 3; l++)
    for (size_t i = 0; lists[l][i]; i++)
      if (strlen(lists[l][i]) == n && strncmp(lists[l][i], word, n) == 0)
        return kinds[l];
  return INIT_NONE;
}

static bool value_char(char c) {
  return isalnum((unsigned char)c) || c == '-';
}

/* The value a sentence returns: "returns V", "will (always) return V", "V is returned". */
static enum init_rule_kind returned_value(const char *start, const char *end) {
  for (const char *r = find_word(start, end, "return"); r; r = find_word(r + 1, end, "return")) {
    const char *w = r + strlen("return");
    w += *w == 's';
    /* after: skip "a", "an" and doxygen commands ("@c 0") */
    for (;;) {
      while (w < end && (isspace((unsigned char)*w) || *w == '*'))
        w++;
      const char *e = w;
      while (e < end && (value_char(*e) || ((*e == '@' || *e == '\\') && e == w)))
        e++;
      if ((e - w == 1 && *w == 'a') || (e - w == 2 && strncmp(w, "an", 2) == 0) ||
          (e > w && (*w == '@' || *w == '\\'))) {
        w = e;
        continue;
      }
      enum init_rule_kind k = value_kind(w, (size_t)(e - w));
      if (k != INIT_NONE)
        return k;
      break;
    }
    /* before: "V is returned", "V will be returned" */
    static const char *const joins[] = {"is ", "are ", "will be ", "be ", NULL};
    for (size_t i = 0; joins[i]; i++) {
      size_t n = strlen(joins[i]);
      if (r - start < (ptrdiff_t)n + 2 || strncmp(r - n, joins[i], n) != 0 ||
          *(r - n - 1) != ' ')
        continue;
      const char *e = r - n - 1, *b = e;
      while (b > start && value_char(b[-1]))
        b--;
      enum init_rule_kind k = value_kind(b, (size_t)(e - b));
      if (k != INIT_NONE)
        return k;
    }
  }
  return INIT_NONE;
}

/* A sentence ends at `;`, at `.` before a space or the end, or at a blank line. */
static const char *sentence_end(const char *s) {
  for (; *s; s++) {
    if (*s == ';' || (*s == '.' && (!s[1] || isspace((unsigned char)s[1]))))
      return s;
    if (*s == '\n') {
      const char *n = s + 1;
      while (*n == ' ' || *n == '\t' || *n == '*' || *n == '/')
        n++;
      if (*n == '\n' || !*n)
        return s;
    }
  }
  return s;
}

/* A function whose name asks a question (`lzma_check_is_supported`,
 * `seccomp_arch_exist`, `png_sig_cmp`): its "not supported" is an answer, not a failure. */
static bool asks_question(const char *name) {
  static const char *const words[] = {"is", "has", "have", "can", "exist", "exists",
                                      "supported", "equal", "equals", "cmp", "compare", NULL};
  for (const char *w = name; *w;) {
    const char *e = w + 1;
    while (*e && *e != '_' && !(isupper((unsigned char)*e) && islower((unsigned char)e[-1])))
      e++;
    for (size_t i = 0; words[i]; i++)
      if (strlen(words[i]) == (size_t)(e - w) && strncasecmp(words[i], w, (size_t)(e - w)) == 0)
        return true;
    w = *e == '_' ? e + 1 : e;
  }
  return false;
}

/* The rule of the sentences that say what is returned on failure or on success (their
 * kinds must agree), and where the first of them is in `lower`: [*first, *first_end). */
static enum init_rule_kind sentence_rule(const char *lower, const char **first,
                                         const char **first_end) {
  enum init_rule_kind rule = INIT_NONE;
  *first = *first_end = NULL;
  for (const char *s = lower; *s;) {
    const char *e = sentence_end(s);
    enum saying says = sentence_says(s, e);
    enum init_rule_kind v = says == SAYS_NOTHING ? INIT_NONE : returned_value(s, e);
    enum init_rule_kind k = says == SAYS_FAILURE ? v
                            : v == INIT_ZERO     ? INIT_NONZERO
                            : v == INIT_NONZERO  ? INIT_ZERO
                                                 : INIT_NONE; /* "negative on success" */
    if (k != INIT_NONE) {
      if (rule != INIT_NONE && rule != k) {
        *first = *first_end = NULL;
        return INIT_NONE; /* the sentences disagree: no rule */
      }
      if (rule == INIT_NONE) {
        while (isspace((unsigned char)*s) || *s == '*' || *s == '/')
          s++;
        *first = s;
        *first_end = e;
      }
      rule = k;
    }
    s = *e ? e + 1 : e;
  }
  return rule;
}

/* The value of NAME: an error constant of the header, else the C library's errno so
 * named (EEXIST of "-EEXIST"); false when neither knows it. */
static bool value_of(const struct ptrvec *constants, const char *name, size_t n,
                     long long *value) {
  for (size_t k = 0; k < constants->len; k++) {
    const struct init_error_constant *e = constants->items[k];
    if (strlen(e->name) == n && strncmp(e->name, name, n) == 0) {
      *value = e->value;
      return true;
    }
  }
  for (int errnum = 1; errnum < 4096; errnum++) {
    const char *errname = strerrorname_np(errnum);
    if (errname && strlen(errname) == n && strncmp(errname, name, n) == 0) {
      *value = errnum;
      return true;
    }
  }
  return false;
}

/* A negative rule's answers: in a comment that names no success, the negative values a
 * sentence that says what is returned lists under a condition that is no failure
 * ("-EEXIST if it is not present"). Sets f's success ("[-17]") and appends to its why. */
static void answers(const struct ptrvec *constants, struct init_function *f, const char *raw,
                    const char *lower) {
  if (find_any(lower, lower + strlen(lower), success_words))
    return;
  struct strbuf values, why;
  strbuf_init(&values);
  strbuf_init(&why);
  for (const char *s = lower; *s;) {
    const char *e = sentence_end(s);
    for (const char *m = find_word(s, e, "return") ? s : e; m < e; m++) {
      if (*m != '-' || (m > s && is_word_char(m[-1])) || !is_word_char(m[1]))
        continue;
      const char *name = m + 1, *after = name;
      while (after < e && is_word_char(*after))
        after++;
      const char *clause = after;
      while (clause < e && *clause != ',')
        clause++;
      long long v = 0;
      const char *raw_name = raw + (name - lower);
      bool number = isdigit((unsigned char)*name);
      if (!find_word(after, clause, "if") && !find_word(after, clause, "when"))
        continue;
      if (find_any(after, clause, failure_words))
        continue;
      if (number)
        v = strtoll(name, NULL, 10);
      else if (!value_of(constants, raw_name, (size_t)(after - name), &v))
        continue;
      strbuf_addf(&values, "%s%lld", values.len ? ", " : "[", -v);
      char *q = joined(raw + (m - lower), raw + (clause - lower));
      strbuf_addf(&why, "; \"%s\" is an answer", q);
      if (!number)
        strbuf_addf(&why, " (%.*s = %lld)", (int)(after - name), raw_name, v);
      free(q);
      m = clause;
    }
    s = *e ? e + 1 : e;
  }
  if (values.len) {
    strbuf_add(&values, "]");
    f->rule.success = strbuf_release(&values);
    char *why2 = xasprintf("%s%s", f->rule.why, why.data);
    free(f->rule.why);
    f->rule.why = why2;
  }
  strbuf_free(&values);
  strbuf_free(&why);
}

/* A rule from the words of a comment (raw, owned), which `whose` names (owned). */
static bool comment_rule(const struct ptrvec *constants, struct init_function *f, char *raw,
                         char *whose) {
  char *lower = lower_dup(raw);
  const char *at = NULL;
  enum init_rule_kind kind = error_phrase(lower, &at);
  const struct init_error_constant *named = at ? NULL : named_failure(constants, raw, lower);
  if (named) {
    char *q = quote(raw, raw + (strstr(raw, named->name) - raw));
    set_rule(f, INIT_ERRORS, xasprintf("[%lld]", named->value),
             xasprintf("%s: \"%s\" (%s = %lld)", whose, q, named->name, named->value));
    free(q);
  } else {
    if (!at && (strstr(lower, "error") || strstr(lower, "fail"))) {
      if ((at = strstr(lower, "negative")))
        kind = INIT_NEGATIVE;
      else if ((at = strstr(lower, "-1 on")) || (at = strstr(lower, "-1 if")))
        kind = INIT_NEGATIVE;
    }
    const char *sentence_end = NULL;
    if (!at && !asks_question(f->name))
      kind = sentence_rule(lower, &at, &sentence_end);
    if (at) {
      /* the whole sentence, or the clause of the phrase */
      char *q = sentence_end ? joined(raw + (at - lower), raw + (sentence_end - lower))
                             : quote(raw, raw + (at - lower));
      set_rule(f, kind, NULL, xasprintf("%s: \"%s\"", whose, q));
      free(q);
      if (kind == INIT_NEGATIVE)
        answers(constants, f, raw, lower);
    }
  }
  free(whose);
  free(lower);
  free(raw);
  return named || at;
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

bool init_comment_rule(const struct ptrvec *constants, const struct ptrvec *functions,
                       struct init_function *f) {
  char *raw = clang_string_take_plain(clang_Cursor_getRawCommentText(f->cursor));
  if (comment_rule(constants, f, raw, xstrdup("its doc comment")))
    return true;
  const char *wrapper = NULL;
  raw = wrapper_comment(functions, f, &wrapper);
  return raw && comment_rule(constants, f, raw,
                             xasprintf("the doc comment of %s, which returns it", wrapper));
}

bool init_comment_describes_size(const struct init_function *f) {
  static const char *const size_words[] = {"size", "bound", "maximum", "minimum", "capacity",
                                           "number of", "length", NULL};
  char *plain = clang_string_take_plain(clang_Cursor_getRawCommentText(f->cursor));
  char *raw = lower_dup(plain);
  free(plain);
  bool size = false;
  for (size_t i = 0; size_words[i] && !size; i++)
    size = strstr(raw, size_words[i]) != NULL;
  bool none = size && !strstr(raw, "error") && !strstr(raw, "fail");
  free(raw);
  return none;
}

static bool blank_line(const char *s, const char *end) {
  for (; s < end; s++)
    if (!isspace((unsigned char)*s) && !strchr("*/<!", *s))
      return false;
  return true;
}

/* Where the paragraph that starts at p ends: at the first blank line after its text. */
static const char *paragraph_end(const char *p) {
  bool text = false;
  for (const char *l = p; *l;) {
    const char *nl = strchr(l, '\n');
    const char *le = nl ? nl : l + strlen(l);
    bool blank = blank_line(l, le);
    if (blank && text)
      return l;
    text |= !blank;
    l = nl ? nl + 1 : le;
  }
  return p + strlen(p);
}

char *init_comment_of_constant(CXCursor constant, CXSourceLocation until) {
  char *raw = clang_string_take_plain(clang_Cursor_getRawCommentText(constant));
  if (*raw)
    return raw;
  CXFile file, until_file;
  unsigned from, to;
  clang_getSpellingLocation(clang_getRangeEnd(clang_getCursorExtent(constant)), &file, NULL,
                            NULL, &from);
  clang_getSpellingLocation(until, &until_file, NULL, NULL, &to);
  size_t size = 0;
  const char *text = file ? clang_getFileContents(clang_Cursor_getTranslationUnit(constant), file,
                                                  &size)
                          : NULL;
  if (!text || !clang_File_isEqual(file, until_file) || to <= from || to > size)
    return raw;
  const char *c = text + from, *end = text + to;
  while (c < end && (isspace((unsigned char)*c) || *c == ','))
    c++;
  static const char *const openers[] = {"/**<", "/*!<", "///<", "//!<", NULL};
  for (size_t i = 0; openers[i]; i++)
    if ((size_t)(end - c) > 4 && strncmp(c, openers[i], 4) == 0) {
      bool block = c[1] == '*';
      const char *close = block ? strstr(c, "*/") : strchr(c, '\n');
      const char *stop = close && close < end ? close + (block ? 2 : 0) : end;
      free(raw);
      return xstrndup(c, (size_t)(stop - c));
    }
  return raw;
}

char *init_comment_no_error_for(const char *raw, const char *function) {
  static const char *const goes_on[] = {"continued normally", "continue normally",
                                        "just a warning", "only a warning", "not an error",
                                        NULL};
  char *lower = lower_dup(raw);
  char *said = NULL;
  size_t n = strlen(function);
  for (const char *p = raw, *e; *p && !said; p = e) {
    e = paragraph_end(p);
    bool names = false;
    for (const char *at = strstr(p, function); at && at < e && !names;
         at = strstr(at + 1, function))
      names = (at == p || !is_word_char(at[-1])) && !is_word_char(at[n]);
    const char *lp = lower + (p - raw), *le = lower + (e - raw);
    const char *at = names ? find_any(lp, le, goes_on) : NULL;
    /* "cannot be continued normally" says the opposite */
    if (at && !(at - lp >= 7 && strncmp(at - 7, "not be ", 7) == 0))
      said = quote(raw, raw + (at - lower));
  }
  free(lower);
  return said;
}
