/* model_roles: param roles from C, doc comments and the spec. */
#include "model_roles.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "clang_type.h"

/* Plain char only: `unsigned char *` and `uint8_t *` are byte buffers, not text. */
static bool is_char_type(const struct model_type *t) {
  if (!t || t->kind != MODEL_KIND_INT || t->size != 1)
    return false;
  const char *c = str_starts_with(t->canonical, "const ") ? t->canonical + 6 : t->canonical;
  return strcmp(c, "char") == 0;
}

static void infer_from_c(struct model_param *p) {
  const struct model_type *t = p->type;
  p->direction = MODEL_DIR_IN;
  p->direction_from = MODEL_FROM_C;
  if (t->kind == MODEL_KIND_ARRAY) {
    if (t->count >= 0) {
      p->length = xasprintf("%lld", (long long)t->count);
      p->length_from = MODEL_FROM_C;
    }
    if (t->target && !t->target->is_const) {
      p->direction = MODEL_DIR_OUT;
      p->direction_from = MODEL_FROM_DEFAULT;
    }
    return;
  }
  if (t->kind != MODEL_KIND_POINTER || t->handle || !t->target)
    return;
  const struct model_type *pointee = t->target;
  if (is_char_type(pointee) && pointee->is_const) {
    p->string = true;
    p->string_from = MODEL_FROM_C;
    return;
  }
  if (pointee->is_const || pointee->kind == MODEL_KIND_VOID ||
      pointee->kind == MODEL_KIND_FUNCTION)
    return;
  /* A pointer to writable data is most often where the call puts a result. */
  p->direction = MODEL_DIR_OUT;
  p->direction_from = MODEL_FROM_DEFAULT;
}

/* Reads "[in]", "[out]", "[in,out]", "[optional]", "[range(0, X)]" tags at the start of
 * a Level Zero param comment (or after \param). Returns the number of tags read. */
static int read_bracket_tags(const char *s, struct model_param *p) {
  int tags = 0;
  while (*s == ' ' || *s == '\t')
    s++;
  while (*s == '[') {
    const char *end = strchr(s, ']');
    if (!end)
      break;
    /* range(0, *pCount) contains no ']' but may contain ')' */
    char *tag = xstrndup(s + 1, (size_t)(end - s - 1));
    char *compact = xstrdup(tag);
    char *w = compact;
    for (char *r = compact; *r; r++)
      if (*r != ' ')
        *w++ = *r;
    *w = '\0';
    if (strcmp(compact, "in") == 0) {
      p->direction = MODEL_DIR_IN;
      p->direction_from = MODEL_FROM_DOC;
    } else if (strcmp(compact, "out") == 0) {
      p->direction = MODEL_DIR_OUT;
      p->direction_from = MODEL_FROM_DOC;
    } else if (strcmp(compact, "in,out") == 0 || strcmp(compact, "inout") == 0) {
      p->direction = MODEL_DIR_INOUT;
      p->direction_from = MODEL_FROM_DOC;
    } else if (strcmp(compact, "optional") == 0) {
      p->optional = true;
      p->optional_from = MODEL_FROM_DOC;
    } else if (str_starts_with(compact, "range(")) {
      /* range(lower, upper): Level Zero always writes 0 as lower; upper is the length. */
      char *comma = strchr(tag, ',');
      char *close = strrchr(tag, ')');
      if (comma && close && close > comma) {
        char *len = str_trim(xstrndup(comma + 1, (size_t)(close - comma - 1)));
        free(p->length);
        p->length = len;
        p->length_from = MODEL_FROM_DOC;
      }
    }
    free(tag);
    free(compact);
    tags++;
    s = end + 1;
    while (*s == ' ' || *s == '\t')
      s++;
  }
  return tags;
}

/* Collects the text of every `///<` comment in [start, end) of the file contents. */
static char *trailing_comments(const char *text, size_t start, size_t end) {
  struct strbuf sb;
  strbuf_init(&sb);
  for (size_t i = start; i + 4 <= end; i++) {
    if (strncmp(text + i, "///<", 4) != 0)
      continue;
    size_t j = i + 4;
    while (j < end && text[j] != '\n')
      j++;
    strbuf_addn(&sb, text + i + 4, j - i - 4);
    strbuf_add(&sb, " ");
    i = j;
  }
  return strbuf_release(&sb);
}

static void offsets_of(CXCursor c, unsigned *start, unsigned *end) {
  CXSourceRange r = clang_getCursorExtent(c);
  clang_getSpellingLocation(clang_getRangeStart(r), NULL, NULL, NULL, start);
  clang_getSpellingLocation(clang_getRangeEnd(r), NULL, NULL, NULL, end);
}

static void read_trailing_param_comments(struct model_function *f, CXCursor fn,
                                         CXTranslationUnit tu) {
  CXFile file;
  clang_getSpellingLocation(clang_getCursorLocation(fn), &file, NULL, NULL, NULL);
  if (!file)
    return;
  size_t size = 0;
  const char *text = clang_getFileContents(tu, file, &size);
  if (!text)
    return;
  unsigned fn_start, fn_end;
  offsets_of(fn, &fn_start, &fn_end);
  size_t n = f->params.len;
  for (size_t i = 0; i < n; i++) {
    CXCursor pc = clang_Cursor_getArgument(fn, (unsigned)i);
    unsigned start, end, next_start;
    offsets_of(pc, &start, &end);
    if (i + 1 < n) {
      unsigned ignored;
      offsets_of(clang_Cursor_getArgument(fn, (unsigned)i + 1), &next_start, &ignored);
    } else {
      next_start = fn_end;
    }
    if (end >= next_start || next_start > size)
      continue;
    char *comment = trailing_comments(text, end, next_start);
    read_bracket_tags(comment, f->params.items[i]);
    free(comment);
  }
}

static struct model_param *param_named(struct model_function *f, const char *name, size_t len) {
  for (size_t i = 0; i < f->params.len; i++) {
    struct model_param *p = f->params.items[i];
    if (strlen(p->name) == len && strncmp(p->name, name, len) == 0)
      return p;
  }
  return NULL;
}

/* Doxygen `\param[dir] name text` and `@param [dir] name text` lines of the function's
 * doc comment; CUDA writes `\param name - Returned ...` for outputs. */
static void read_doxygen_params(struct model_function *f, CXCursor fn) {
  char *raw = clang_string_take_plain(clang_Cursor_getRawCommentText(fn));
  for (char *s = raw; (s = strstr(s, "param")) != NULL;) {
    if (s == raw || (s[-1] != '\\' && s[-1] != '@')) {
      s += 5;
      continue;
    }
    s += 5;
    struct model_param probe = {0};
    probe.direction_from = MODEL_FROM_DEFAULT;
    while (*s == ' ' || *s == '\t')
      s++;
    if (*s == '[') {
      read_bracket_tags(s, &probe);
      while (s && *s == '[') {
        s = strchr(s, ']');
        if (s) {
          s++;
          while (*s == ' ' || *s == '\t')
            s++;
        }
      }
      if (!s)
        break;
    }
    const char *name = s;
    while (isalnum((unsigned char)*s) || *s == '_')
      s++;
    struct model_param *p = param_named(f, name, (size_t)(s - name));
    free(probe.length);
    if (!p)
      continue;
    if (probe.optional) {
      p->optional = true;
      p->optional_from = MODEL_FROM_DOC;
    }
    if (probe.direction_from == MODEL_FROM_DOC) {
      p->direction = probe.direction;
      p->direction_from = MODEL_FROM_DOC;
    } else {
      while (*s == ' ' || *s == '\t' || *s == '-')
        s++;
      if (str_starts_with(s, "Returned") || str_starts_with(s, "Pointer to returned") ||
          str_starts_with(s, "Returns ")) {
        p->direction = MODEL_DIR_OUT;
        p->direction_from = MODEL_FROM_DOC;
      }
    }
  }
  free(raw);
}

/* The length suffixes of a param that counts the bytes of another, lower case. */
static const char *const length_suffixes[] = {"length", "len", "size", "bytes", "sz", NULL};

/* A buffer's length: an integer param named after it (`src`, `srcSize`; `dict`,
 * `dict_len`) anywhere, or a plain length (`len`, `size`, `length`, `n`) right after it.
 * MPI_Info_get's `key` is no buffer of `valuelen`: that names another param. */
static bool is_length_of(const struct model_param *buffer, const struct model_param *length,
                         bool next) {
  const struct model_type *t = length->type;
  if (t->kind != MODEL_KIND_INT || t->size < 2)
    return false;
  char *lower = xstrdup(length->name), *name = xstrdup(buffer->name);
  for (char *c = lower; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  for (char *c = name; *c; c++)
    *c = (char)tolower((unsigned char)*c);
  bool found = false;
  size_t len = strlen(lower);
  for (size_t i = 0; length_suffixes[i] && !found; i++) {
    size_t n = strlen(length_suffixes[i]);
    if (len < n || strcmp(lower + len - n, length_suffixes[i]) != 0)
      continue;
    size_t stem = len - n;
    while (stem > 0 && lower[stem - 1] == '_')
      stem--;
    found = stem == 0 ? next : stem == strlen(name) && strncmp(lower, name, stem) == 0;
  }
  if (!found && next)
    found = strcmp(lower, "n") == 0;
  free(lower);
  free(name);
  return found;
}

/* A `const char *` with a length beside it holds bytes, not a NUL-terminated string
 * (compressed data, a dictionary, a buffer of text that need not end in NUL). */
static void infer_buffers(struct model_function *f) {
  for (size_t i = 0; i < f->params.len; i++) {
    struct model_param *p = f->params.items[i];
    if (!p->string || p->string_from != MODEL_FROM_C)
      continue;
    for (size_t k = 0; k < f->params.len; k++) {
      struct model_param *q = f->params.items[k];
      if (k != i && is_length_of(p, q, k == i + 1)) {
        p->string = false;
        free(p->length);
        p->length = xstrdup(q->name);
        p->length_from = MODEL_FROM_C;
        break;
      }
    }
  }
}

void model_roles_infer(struct model_function *f, CXCursor fn, CXTranslationUnit tu) {
  for (size_t i = 0; i < f->params.len; i++)
    infer_from_c(f->params.items[i]);
  infer_buffers(f);
  read_doxygen_params(f, fn);
  read_trailing_param_comments(f, fn, tu);
}

struct parm_names {
  struct model_function_pointer *fp;
  size_t next;
};

static enum CXChildVisitResult parm_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct parm_names *pn = data;
  if (clang_getCursorKind(c) != CXCursor_ParmDecl)
    return CXChildVisit_Continue;
  if (pn->next < pn->fp->params.len) {
    struct model_param *p = pn->fp->params.items[pn->next];
    char *name = clang_string_take(clang_getCursorSpelling(c));
    if (*name) {
      free(p->name);
      p->name = name;
      free(p->decl);
      p->decl = clang_type_decl(clang_getCursorType(c), name);
    } else {
      free(name);
    }
  }
  pn->next++;
  return CXChildVisit_Continue;
}

void model_roles_name_callback_params(struct model_function_pointer *fp, CXCursor typedef_decl) {
  struct parm_names pn = {fp, 0};
  clang_visitChildren(typedef_decl, parm_visit, &pn);
  for (size_t i = 0; i < fp->params.len; i++)
    infer_from_c(fp->params.items[i]);
}

/* The first identifier of a length expression ("*pCount" -> pCount, "desc->count" ->
 * desc) must be a param; a plain number is fine. */
static bool length_is_valid(struct model_function *f, const char *expr) {
  const char *s = expr;
  while (*s && !(isalnum((unsigned char)*s) || *s == '_'))
    s++;
  if (isdigit((unsigned char)*s))
    return true;
  const char *start = s;
  while (isalnum((unsigned char)*s) || *s == '_')
    s++;
  return s > start && param_named(f, start, (size_t)(s - start)) != NULL;
}

int model_roles_apply_spec(struct model *m, const struct spec *s, struct diag *d) {
  int rc = 0;
  for (size_t r = 0; r < s->param_rules.len; r++) {
    struct spec_param_rule *rule = s->param_rules.items[r];
    for (size_t i = 0; i < m->functions.len; i++) {
      struct model_function *f = m->functions.items[i];
      if (fnmatch(rule->function, f->name, 0) != 0 &&
          !(f->written && fnmatch(rule->function, f->written, 0) == 0))
        continue;
      for (size_t k = 0; k < f->params.len; k++) {
        struct model_param *p = f->params.items[k];
        if (fnmatch(rule->param, p->name, 0) != 0)
          continue;
        rule->matches++;
        if (rule->direction != SPEC_DIR_UNSET) {
          p->direction = rule->direction == SPEC_DIR_IN    ? MODEL_DIR_IN
                         : rule->direction == SPEC_DIR_OUT ? MODEL_DIR_OUT
                                                           : MODEL_DIR_INOUT;
          p->direction_from = MODEL_FROM_SPEC;
        }
        if (rule->length) {
          if (!length_is_valid(f, rule->length)) {
            rc = diag_error_at(d, s->path, rule->loc.line, rule->loc.column,
                               "Cannot resolve length: function=%s, param=%s, length=%s "
                               "(it names no param of the function)",
                               f->name, p->name, rule->length);
            continue;
          }
          free(p->length);
          p->length = xstrdup(rule->length);
          p->length_from = MODEL_FROM_SPEC;
        }
        if (rule->string >= 0) {
          p->string = rule->string;
          p->string_from = MODEL_FROM_SPEC;
          /* A string after all, with any length apigen saw beside it as its bound: a
           * string of at most that many chars (docs/spec-format.md). */
        }
        if (rule->optional >= 0) {
          p->optional = rule->optional;
          p->optional_from = MODEL_FROM_SPEC;
        }
      }
    }
    if (rule->matches == 0)
      rc = diag_error_at(d, s->path, rule->loc.line, rule->loc.column,
                         "Filter matches nothing: params function=%s, param=%s",
                         rule->function, rule->param);
  }
  return rc;
}
