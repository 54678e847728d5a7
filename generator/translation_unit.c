/* translation_unit: header resolution and libclang parsing with located errors. */
#include "translation_unit.h"

#include "clang_type.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef APIGEN_CLANG_RESOURCE_DIR
#define APIGEN_CLANG_RESOURCE_DIR "/usr/lib/llvm-19/lib/clang/19"
#endif

/* The compiler's default search path, after the spec's own folders. */
static const char *const system_dirs[] = {
    APIGEN_CLANG_RESOURCE_DIR "/include", "/usr/local/include",
    "/usr/include/x86_64-linux-gnu", "/usr/include", NULL};

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *canonical_path(const char *path) {
  char buf[PATH_MAX];
  return realpath(path, buf) ? xstrdup(buf) : xstrdup(path);
}

static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
}

int tu_config_init(struct tu_config *cfg, const struct spec *s, struct diag *d) {
  memset(cfg, 0, sizeof *cfg);
  int rc = 0;
  for (size_t i = 0; i < s->include_dirs.len; i++) {
    struct spec_string *inc = s->include_dirs.items[i];
    ptrvec_push(&cfg->search_dirs, canonical_path(inc->value));
  }
  for (const char *const *sd = system_dirs; *sd; sd++)
    ptrvec_push(&cfg->search_dirs, xstrdup(*sd));

  struct strbuf includes;
  strbuf_init(&includes);
  for (size_t i = 0; i < s->headers.len; i++) {
    struct spec_string *h = s->headers.items[i];
    char *found = NULL;
    if (h->value[0] == '/') {
      if (is_file(h->value))
        found = canonical_path(h->value);
    } else {
      for (size_t k = 0; k < cfg->search_dirs.len && !found; k++) {
        char *candidate = xasprintf("%s/%s", (char *)cfg->search_dirs.items[k], h->value);
        if (is_file(candidate))
          found = canonical_path(candidate);
        free(candidate);
      }
    }
    if (!found) {
      struct strbuf searched;
      strbuf_init(&searched);
      for (size_t k = 0; k < cfg->search_dirs.len; k++)
        strbuf_addf(&searched, "%s%s", k ? ", " : "", (char *)cfg->search_dirs.items[k]);
      rc = diag_error_at(d, s->path, h->loc.line, h->loc.column,
                         "Cannot find header: header=%s (searched: %s)%s%s", h->value,
                         searched.data, s->missing_hint ? "; " : "",
                         s->missing_hint ? s->missing_hint : "");
      strbuf_free(&searched);
      continue;
    }
    strbuf_addf(&includes, "#include \"%s\"\n", found);
    ptrvec_push(&cfg->headers, found);
    char *dir = dir_of(found);
    bool seen = false;
    for (size_t k = 0; k < cfg->api_dirs.len; k++)
      if (strcmp(cfg->api_dirs.items[k], dir) == 0)
        seen = true;
    if (seen)
      free(dir);
    else
      ptrvec_push(&cfg->api_dirs, dir);
  }
  cfg->includes = strbuf_release(&includes);

  ptrvec_push(&cfg->args, xasprintf("-std=%s", s->std));
  ptrvec_push(&cfg->args, xstrdup("-xc"));
  for (size_t i = 0; i < s->include_dirs.len; i++)
    ptrvec_push(&cfg->args, xasprintf("-I%s", (char *)cfg->search_dirs.items[i]));
  for (size_t i = 0; i < s->include_dirs_after.len; i++)
    ptrvec_push(&cfg->args, xasprintf("-idirafter%s",
                                      ((struct spec_string *)s->include_dirs_after.items[i])->value));
  /* Generated code is built with NDEBUG (CMake's release flags): the model must see the
   * declarations that code sees, so every parse and every --print-cflags has it too. */
  bool ndebug = false;
  for (size_t i = 0; i < s->defines.len; i++) {
    struct spec_string *def = s->defines.items[i];
    ndebug |= strcmp(def->value, "NDEBUG") == 0 || str_starts_with(def->value, "NDEBUG=");
  }
  if (!ndebug)
    ptrvec_push(&cfg->args, xstrdup("-DNDEBUG"));
  for (size_t i = 0; i < s->defines.len; i++) {
    struct spec_string *def = s->defines.items[i];
    ptrvec_push(&cfg->args, xasprintf("-D%s", def->value));
  }
  return rc;
}

static void free_strings(struct ptrvec *v) {
  for (size_t i = 0; i < v->len; i++)
    free(v->items[i]);
  ptrvec_free(v);
}

void tu_config_free(struct tu_config *cfg) {
  free_strings(&cfg->args);
  free_strings(&cfg->headers);
  free_strings(&cfg->api_dirs);
  free_strings(&cfg->search_dirs);
  free(cfg->includes);
  memset(cfg, 0, sizeof *cfg);
}

int tu_parse(CXIndex index, const struct tu_config *cfg, const char *extra, bool report_errors,
             CXTranslationUnit *out, struct diag *d) {
  char *source = xasprintf("%s%s", cfg->includes, extra ? extra : "");
  struct CXUnsavedFile unsaved = {TU_MAIN_NAME, source, (unsigned long)strlen(source)};
  unsigned options = CXTranslationUnit_DetailedPreprocessingRecord |
                     CXTranslationUnit_SkipFunctionBodies |
                     CXTranslationUnit_KeepGoing;
  /* Every error counts (the constants probe drops each failing line): no error limit. */
  struct ptrvec args = {0};
  for (size_t i = 0; i < cfg->args.len; i++)
    ptrvec_push(&args, cfg->args.items[i]);
  ptrvec_push(&args, (void *)"-ferror-limit=0");
  CXTranslationUnit tu = NULL;
  enum CXErrorCode err = clang_parseTranslationUnit2(
      index, TU_MAIN_NAME, (const char *const *)args.items, (int)args.len, &unsaved, 1, options,
      &tu);
  ptrvec_free(&args);
  free(source);
  if (err != CXError_Success || !tu)
    return diag_error(d, "Failed to parse headers: libclang error %d", (int)err);
  int rc = 0;
  if (report_errors) {
    unsigned n = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < n; i++) {
      CXDiagnostic diag = clang_getDiagnostic(tu, i);
      if (clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error) {
        CXFile file;
        unsigned line, column;
        clang_getSpellingLocation(clang_getDiagnosticLocation(diag), &file, &line, &column, NULL);
        char *path = file ? clang_string_take_plain(clang_getFileName(file)) : NULL;
        char *msg = clang_string_take_plain(clang_getDiagnosticSpelling(diag));
        rc = diag_error_at(d, path ? path : TU_MAIN_NAME, line, column,
                           "Cannot parse header: %s", msg);
        free(path);
        free(msg);
      }
      clang_disposeDiagnostic(diag);
    }
  }
  if (rc) {
    clang_disposeTranslationUnit(tu);
    return rc;
  }
  *out = tu;
  return 0;
}

bool tu_in_api(const struct tu_config *cfg, const char *file) {
  for (size_t i = 0; i < cfg->api_dirs.len; i++) {
    const char *dir = cfg->api_dirs.items[i];
    size_t n = strlen(dir);
    if (strncmp(file, dir, n) == 0 && file[n] == '/')
      return true;
  }
  return false;
}

char *tu_include_name(const struct tu_config *cfg, const char *file) {
  const char *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < cfg->search_dirs.len; i++) {
    const char *dir = cfg->search_dirs.items[i];
    size_t n = strlen(dir);
    if (strncmp(file, dir, n) == 0 && file[n] == '/' && n > best_len) {
      best = dir;
      best_len = n;
    }
  }
  return xstrdup(best ? file + best_len + 1 : file);
}

char *tu_cursor_file(CXCursor c, unsigned *line, unsigned *column) {
  CXFile file;
  unsigned l = 0, col = 0;
  clang_getSpellingLocation(clang_getCursorLocation(c), &file, &l, &col, NULL);
  if (line)
    *line = l;
  if (column)
    *column = col;
  char *name = file ? clang_string_take_plain(clang_getFileName(file)) : xstrdup("");
  char buf[PATH_MAX];
  if (*name && realpath(name, buf)) {
    free(name);
    return xstrdup(buf);
  }
  /* A name pasted by a macro (fftw3.h's X(execute) -> fftw_execute) is spelled in clang's
   * scratch space: the declaration is where the macro was expanded. */
  CXFile at;
  clang_getExpansionLocation(clang_getCursorLocation(c), &at, &l, &col, NULL);
  char *expanded = at ? clang_string_take_plain(clang_getFileName(at)) : NULL;
  if (expanded && realpath(expanded, buf)) {
    if (line)
      *line = l;
    if (column)
      *column = col;
    free(name);
    free(expanded);
    return xstrdup(buf);
  }
  free(expanded);
  return name;
}
