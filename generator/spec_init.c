/* spec_init: `apigen --init`, a starting spec from a library's headers. See spec_init.h. */
#include "spec_init.h"

#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apigen_exit.h"
#include "clang_type.h"
#include "diag.h"
#include "elf_exports.h"
#include "model_aliases.h"
#include "model.h"
#include "model_build.h"
#include "spec.h"
#include "spec_init_status.h"
#include "translation_unit.h"
#include "util.h"

#define DPKG_INFO "/var/lib/dpkg/info"

static const char *const library_dirs[] = {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
                                           "/usr/local/lib", "/usr/lib", "/lib", NULL};

struct init {
  const struct spec_init_options *o;
  struct diag d;
  char *backend;
  struct ptrvec defines;    /* char*: NAME=VALUE, each with its reason in define_why */
  struct ptrvec define_why; /* char* */
  char *package;            /* the Debian package of the first header; may be NULL */
  struct strset headers;    /* real paths of the package's headers (or the given ones) */
  struct ptrvec libraries;  /* char*: paths of the package's shared libraries */
  char *library, *library_why;
  struct strset exports;    /* the library's exported functions */
  struct ptrvec functions;  /* struct init_function* */
};

/* The backend's name from the first header's: lz4frame.h -> lz4frame, and with the
 * folder that #include names: webp/decode.h -> webp_decode. */
static char *backend_of(const char *header) {
  const char *base = strrchr(header, '/') ? strrchr(header, '/') + 1 : header;
  const char *folder = base;
  while (folder > header && folder[-1] == '/')
    folder--;
  while (folder > header && folder[-1] != '/')
    folder--;
  /* a folder of an #include name, not of a path (/usr/include/zstd.h -> zstd) */
  bool include_name = header[0] != '/' && header[0] != '.' && folder < base;
  char *name = include_name ? xstrdup(folder) : xstrdup(base);
  char *dot = strrchr(name, '.');
  if (dot)
    *dot = '\0';
  for (char *c = name; *c; c++)
    *c = isalnum((unsigned char)*c) ? (char)tolower((unsigned char)*c) : '_';
  return name;
}

/* The spec as YAML, with what is known so far; the caller frees it. */
static char *spec_text(const struct init *in, const char *select, const char *rest) {
  struct strbuf sb;
  strbuf_init(&sb);
  strbuf_addf(&sb, "backend: %s\nlibrary: %s\nheaders: [", in->backend,
              in->library ? in->library : "unknown.so");
  for (size_t i = 0; i < in->o->header_count; i++)
    strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", in->o->headers[i]);
  strbuf_add(&sb, "]\n");
  if (in->defines.len) {
    strbuf_add(&sb, "defines: [");
    for (size_t i = 0; i < in->defines.len; i++)
      strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", (char *)in->defines.items[i]);
    strbuf_add(&sb, "]\n");
  }
  strbuf_addf(&sb, "select:\n  functions: %s\n%s", select, rest ? rest : "");
  return strbuf_release(&sb);
}

/* `#error NAME must be defined ...`: NAME, and a value the header compares it with (the
 * least positive one: PCRE2_CODE_UNIT_WIDTH == 8), else 1. */
static bool demanded_define(struct init *in, const char *message, const char *file) {
  if (!strstr(message, "defined"))
    return false;
  const char *s = message;
  while (*s && !(isupper((unsigned char)*s) || *s == '_'))
    s++;
  const char *e = s;
  while (isupper((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '_')
    e++;
  if (e - s < 3)
    return false;
  char *name = xstrndup(s, (size_t)(e - s));
  for (size_t i = 0; i < in->defines.len; i++)
    if (strncmp(in->defines.items[i], name, strlen(name)) == 0) {
      free(name);
      return false; /* defined already, and still an error: a human must choose */
    }
  long best = 0;
  FILE *f = fopen(file, "r");
  char line[1024];
  while (f && fgets(line, sizeof line, f)) {
    for (char *at = line; (at = strstr(at, name)); at += strlen(name)) {
      char *op = at + strlen(name);
      while (*op == ' ')
        op++;
      if ((op[0] == '=' || op[0] == '!') && op[1] == '=') {
        long v = strtol(op + 2, NULL, 0);
        if (v > 0 && (best == 0 || v < best))
          best = v;
      }
    }
  }
  if (f)
    fclose(f);
  ptrvec_push(&in->defines, xasprintf("%s=%ld", name, best ? best : 1));
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  ptrvec_push(&in->define_why, xasprintf("%s: \"#error %s\"%s", base, message,
                                         best ? "; the least value it compares it with" : ""));
  free(name);
  return true;
}

/* Parses the headers, adding the defines their #errors demand. */
static int parse(struct init *in, CXIndex index, struct tu_config *cfg, CXTranslationUnit *tu) {
  for (int round = 0; round < 4; round++) {
    char *text = spec_text(in, "[\"*\"]", NULL);
    struct spec s;
    int rc = spec_load_buffer(&s, text, strlen(text), "apigen --init", &in->d);
    free(text);
    if (rc)
      return APIGEN_EXIT_SPEC;
    rc = tu_config_init(cfg, &s, &in->d);
    spec_free(&s);
    /* Plain comments too (libwebp's `// Returns false in case of ...`): the header's words
     * are what the rules come from. */
    if (rc == 0)
      ptrvec_push(&cfg->args, xstrdup("-fparse-all-comments"));
    if (rc) {
      /* Located in the spec apigen wrote for itself, which nobody sees: unlocated, as
       * the message names the header. */
      for (unsigned i = 0; i < in->d.count; i++)
        if (in->d.causes[i].file && strcmp(in->d.causes[i].file, "apigen --init") == 0) {
          free(in->d.causes[i].file);
          in->d.causes[i].file = NULL;
        }
      return APIGEN_EXIT_HEADER;
    }
    if (tu_parse(index, cfg, NULL, false, tu, &in->d) || !*tu)
      return APIGEN_EXIT_HEADER;
    bool added = false, errors = false;
    unsigned n = clang_getNumDiagnostics(*tu);
    for (unsigned i = 0; i < n; i++) {
      CXDiagnostic dg = clang_getDiagnostic(*tu, i);
      if (clang_getDiagnosticSeverity(dg) >= CXDiagnostic_Error) {
        errors = true;
        CXFile file;
        clang_getSpellingLocation(clang_getDiagnosticLocation(dg), &file, NULL, NULL, NULL);
        char *msg = clang_string_take_plain(clang_getDiagnosticSpelling(dg));
        char *name = file ? clang_string_take_plain(clang_getFileName(file)) : xstrdup("");
        added |= demanded_define(in, msg, name);
        free(msg);
        free(name);
      }
      clang_disposeDiagnostic(dg);
    }
    if (!errors)
      return APIGEN_EXIT_OK;
    clang_disposeTranslationUnit(*tu);
    *tu = NULL;
    if (!added) {
      /* Parse again reporting, for the located errors. */
      tu_parse(index, cfg, NULL, true, tu, &in->d);
      if (*tu)
        clang_disposeTranslationUnit(*tu);
      *tu = NULL;
      return APIGEN_EXIT_HEADER;
    }
    tu_config_free(cfg);
  }
  diag_error(&in->d, "Cannot parse the headers: they still fail with the defines their "
                     "#error lines asked for");
  return APIGEN_EXIT_HEADER;
}

/* The dpkg list that names path: the package that installed the header. */
static char *package_of(const char *path, char **list_text) {
  DIR *dir = opendir(DPKG_INFO);
  if (!dir)
    return NULL;
  struct dirent *e;
  char *found = NULL;
  size_t plen = strlen(path);
  while (!found && (e = readdir(dir))) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".list") != 0)
      continue;
    char *file = xasprintf("%s/%s", DPKG_INFO, e->d_name);
    size_t size = 0;
    char *text = read_file(file, &size);
    free(file);
    for (char *at = text; at && (at = strstr(at, path)); at += plen)
      if ((at == text || at[-1] == '\n') && (at[plen] == '\n' || at[plen] == '\0')) {
        found = xstrndup(e->d_name, n - 5);
        *list_text = text;
        text = NULL;
        break;
      }
    free(text);
  }
  closedir(dir);
  return found;
}

/* The package's headers and shared libraries, from its dpkg list. */
static void read_package(struct init *in, const char *header) {
  char *list = NULL;
  in->package = package_of(header, &list);
  if (!in->package)
    return;
  for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
    size_t n = strlen(line);
    if (n > 2 && strcmp(line + n - 2, ".h") == 0) {
      char *real = realpath(line, NULL);
      strset_add(&in->headers, real ? real : line);
      free(real);
    } else if (n > 3 && strcmp(line + n - 3, ".so") == 0 && strstr(line, "/lib")) {
      ptrvec_push(&in->libraries, xstrdup(line));
    }
  }
  free(list);
}

struct collect {
  struct init *in;
  struct strset seen;
  struct ptrvec macros; /* CXCursor*: object-like macros of the package's headers */
};

static enum CXChildVisitResult collect_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct collect *w = data;
  if (clang_getCursorKind(c) == CXCursor_MacroDefinition && !clang_Cursor_isMacroFunctionLike(c) &&
      !clang_Cursor_isMacroBuiltin(c)) {
    CXCursor *copy = xmalloc(sizeof *copy);
    *copy = c;
    ptrvec_push(&w->macros, copy);
  }
  if (clang_getCursorKind(c) != CXCursor_FunctionDecl)
    return CXChildVisit_Continue;
  char *file = tu_cursor_file(c, NULL, NULL);
  char *real = *file ? realpath(file, NULL) : NULL;
  bool ours = real && strset_has(&w->in->headers, real);
  free(real);
  free(file);
  char *name = clang_string_take_plain(clang_getCursorSpelling(c));
  if (!ours || !strset_add(&w->seen, name)) {
    free(name);
    return CXChildVisit_Continue;
  }
  struct init_function *f = xcalloc(1, sizeof *f);
  f->name = name;
  f->cursor = c;
  f->result = clang_string_take_plain(clang_getTypeSpelling(clang_getCursorResultType(c)));
  f->defined = clang_Cursor_getStorageClass(c) == CX_SC_Static ||
               clang_Cursor_isFunctionInlined(c) || clang_isCursorDefinition(c);
  ptrvec_push(&w->in->functions, f);
  return CXChildVisit_Continue;
}

/* The functions a library exports; those that callers reach through a macro's name
 * (pcre2_match -> pcre2_match_8, of the width the defines chose) count first: pcre2.h
 * declares every width's functions, and each width's library exports as many. */
static size_t exported_count(const struct init *in, const struct strset *exports) {
  size_t n = 0;
  for (size_t i = 0; i < in->functions.len; i++) {
    const struct init_function *f = in->functions.items[i];
    if (strset_has(exports, f->name))
      n += f->renamed ? 1000000 : 1;
  }
  return n;
}

/* Which functions a macro renames (model_aliases.h), on a model of their names alone. */
static void mark_renamed(struct init *in, CXIndex index, const struct tu_config *cfg,
                         CXTranslationUnit tu, const struct ptrvec *macros) {
  struct model m;
  memset(&m, 0, sizeof m);
  for (size_t i = 0; i < in->functions.len; i++) {
    struct model_function *f = xcalloc(1, sizeof *f);
    f->name = ((struct init_function *)in->functions.items[i])->name;
    ptrvec_push(&m.functions, f);
  }
  model_aliases_find(&m, index, cfg, tu, macros);
  for (size_t i = 0; i < m.functions.len; i++) {
    struct model_function *f = m.functions.items[i];
    ((struct init_function *)in->functions.items[i])->renamed = f->written != NULL;
    free(f->written);
    free(f);
  }
  ptrvec_free(&m.functions);
}

/* --library's file, or the package's library that exports the most of the functions. */
static int find_library(struct init *in) {
  struct ptrvec candidates = {0};
  if (in->o->library) {
    for (size_t i = 0; library_dirs[i]; i++)
      ptrvec_push(&candidates, xasprintf("%s/%s", library_dirs[i], in->o->library));
  } else {
    for (size_t i = 0; i < in->libraries.len; i++)
      ptrvec_push(&candidates, xstrdup(in->libraries.items[i]));
    /* No package: lib<backend>.so, then shorter stems (lz4frame -> liblz4.so). */
    for (size_t n = strlen(in->backend); n >= 2 && !in->libraries.len; n--)
      for (size_t i = 0; library_dirs[i]; i++)
        ptrvec_push(&candidates, xasprintf("%s/lib%.*s.so", library_dirs[i], (int)n, in->backend));
  }
  size_t best = 0;
  for (size_t i = 0; i < candidates.len; i++) {
    struct strset exports = {0};
    char *soname = NULL;
    if (elf_exports_read(candidates.items[i], &exports, &soname) == 0) {
      size_t n = exported_count(in, &exports), plain = n / 1000000 + n % 1000000;
      if (n > best || (in->o->library && !in->library)) {
        best = n;
        free(in->library);
        free(in->library_why);
        in->library = in->o->library ? xstrdup(in->o->library)
                                     : xstrdup(soname ? soname : candidates.items[i]);
        in->library_why = in->o->library
                              ? xasprintf("--library; it exports %zu of the header's functions", plain)
                              : xasprintf("the soname of %s%s%s, which exports %zu of the "
                                          "header's functions",
                                          (char *)candidates.items[i], in->package ? ", of " : "",
                                          in->package ? in->package : "", plain);
        strset_free(&in->exports);
        in->exports = exports;
        exports = (struct strset){0};
      }
    }
    strset_free(&exports);
    free(soname);
    free(candidates.items[i]);
  }
  ptrvec_free(&candidates);
  if (!in->library || best == 0)
    return diag_error(&in->d, "Cannot find the library of header=%s%s%s: give --library SONAME",
                      in->o->headers[0], in->package ? ", package=" : "",
                      in->package ? in->package : "");
  return 0;
}

/* The select.functions globs: one per prefix (`json_*`) of the exported functions and
 * of those the header defines; a name without `_` is listed as it is. */
static char *select_globs(const struct init *in, size_t *selected) {
  struct strset seen = {0};
  struct strbuf sb;
  strbuf_init(&sb);
  strbuf_add(&sb, "[");
  *selected = 0;
  for (size_t i = 0; i < in->functions.len; i++) {
    const struct init_function *f = in->functions.items[i];
    if (!f->exported && !f->defined)
      continue;
    (*selected)++;
    const char *u = strchr(f->name + 1, '_');
    char *glob = u ? xasprintf("%.*s*", (int)(u - f->name + 1), f->name) : xstrdup(f->name);
    if (strset_add(&seen, glob))
      strbuf_addf(&sb, "%s\"%s\"", seen.len > 1 ? ", " : "", glob);
    free(glob);
  }
  strbuf_add(&sb, "]");
  strset_free(&seen);
  return strbuf_release(&sb);
}

/* exclude.functions: what the headers declare that the library neither exports nor
 * defines (pcre2.h's other widths: `*_16`, `*_32`), by a shared suffix when one covers
 * no exported function, else by name (at most 40). */
static char *exclude_globs(const struct init *in, const char *select) {
  struct strset globs = {0};
  struct strbuf sb;
  strbuf_init(&sb);
  size_t listed = 0;
  for (size_t i = 0; i < in->functions.len; i++) {
    const struct init_function *f = in->functions.items[i];
    if (f->exported || f->defined)
      continue;
    /* Only what select brings in: a name matching one of its globs. */
    bool selected = false;
    for (const char *g = select; (g = strchr(g, '"')) && !selected; ) {
      const char *e = strchr(g + 1, '"');
      char *glob = xstrndup(g + 1, (size_t)(e - g - 1));
      selected = fnmatch(glob, f->name, 0) == 0;
      free(glob);
      g = e + 1;
    }
    if (!selected)
      continue;
    const char *u = strrchr(f->name, '_');
    char *glob = u && u > f->name ? xasprintf("*%s", u) : xstrdup(f->name);
    for (size_t k = 0; k < in->functions.len && strchr(glob, '*'); k++) {
      const struct init_function *g = in->functions.items[k];
      if ((g->exported || g->defined) && fnmatch(glob, g->name, 0) == 0) {
        free(glob);
        glob = xstrdup(f->name);
      }
    }
    if (strset_add(&globs, glob) && listed++ < 40)
      strbuf_addf(&sb, "%s\"%s\"", listed > 1 ? ", " : "", glob);
    free(glob);
  }
  strset_free(&globs);
  if (listed == 0 || listed > 40) {
    strbuf_free(&sb);
    return NULL;
  }
  return strbuf_release(&sb);
}

/* The rule's keys, separated by `between` (", " in a flow mapping, a new line and the
 * indent in a block one). */
static void rule_keys(struct strbuf *sb, const struct init_rule *r, const char *between) {
  switch (r->kind) {
  case INIT_NEGATIVE: strbuf_add(sb, "error: negative"); break;
  case INIT_ZERO: strbuf_add(sb, "error: zero"); break;
  case INIT_NONZERO: strbuf_add(sb, "error: nonzero"); break;
  case INIT_ERRORS: strbuf_addf(sb, "error: %s", r->values); break;
  case INIT_IS_ERROR: strbuf_addf(sb, "is_error: %s", r->values); break;
  case INIT_NONE: break;
  }
  if (r->success)
    strbuf_addf(sb, "%ssuccess: %s", between, r->success);
}

/* The most common rule among the exported functions of result type `type`, NULL when
 * none of them has one. */
static const struct init_rule *type_rule(const struct init *in, const char *type,
                                         size_t *count) {
  const struct init_rule *best = NULL;
  size_t best_n = 0, total = 0;
  for (size_t i = 0; i < in->functions.len; i++) {
    const struct init_function *f = in->functions.items[i];
    if (!f->exported || strcmp(f->result, type) != 0)
      continue;
    total++;
    if (f->rule.kind == INIT_NONE)
      continue;
    size_t n = 0;
    for (size_t k = 0; k < in->functions.len; k++) {
      const struct init_function *g = in->functions.items[k];
      n += g->exported && strcmp(g->result, type) == 0 && spec_init_same_rule(&f->rule, &g->rule);
    }
    if (n > best_n) {
      best = &f->rule;
      best_n = n;
    }
  }
  *count = total;
  return best;
}

/* trace.status: the rule of the type with the most functions at the top, for every type
 * whose most common rule it is (their functions without a status in `exclude`), and a
 * rule per function of the others; each with its comment. */
static char *trace_section(const struct init *in) {
  const struct init_rule *top = NULL;
  size_t top_count = 0;
  for (size_t i = 0; i < in->functions.len; i++) {
    const struct init_function *f = in->functions.items[i];
    size_t count;
    const struct init_rule *r = f->exported ? type_rule(in, f->result, &count) : NULL;
    if (r && count > top_count) {
      top = r;
      top_count = count;
    }
  }
  struct strset types = {0};
  struct strbuf type_list, exclude, rules;
  strbuf_init(&type_list);
  strbuf_init(&exclude);
  strbuf_init(&rules);
  for (size_t i = 0; top && i < in->functions.len; i++) {
    const struct init_function *f = in->functions.items[i];
    size_t count;
    const struct init_rule *r = f->exported ? type_rule(in, f->result, &count) : NULL;
    if (r && spec_init_same_rule(r, top) && strset_add(&types, f->result))
      strbuf_addf(&type_list, "%s\"%s\"", types.len > 1 ? ", " : "", f->result);
  }
  size_t excluded = 0;
  for (size_t i = 0; i < in->functions.len; i++) {
    const struct init_function *f = in->functions.items[i];
    if (!f->exported)
      continue;
    bool top_type = strset_has(&types, f->result);
    if (top_type && f->rule.kind == INIT_NONE) {
      strbuf_addf(&exclude, "%s%s", excluded++ ? ", " : "", f->name);
    } else if (f->rule.kind != INIT_NONE && !(top_type && spec_init_same_rule(&f->rule, top))) {
      strbuf_addf(&rules, "      # %s\n      %s: {type: \"%s\", ", f->rule.why, f->name,
                  f->result);
      rule_keys(&rules, &f->rule, ", ");
      strbuf_add(&rules, "}\n");
    }
  }
  struct strbuf sb;
  strbuf_init(&sb);
  if (!top) {
    strbuf_add(&sb, "# No result's type says it is a status: calls are counted, none is an "
                    "error.\ntrace: {}\n");
  } else {
    strbuf_addf(&sb, "trace:\n  status:\n    # %s\n    type: [%s]\n    ", top->why,
                type_list.data);
    rule_keys(&sb, top, "\n    ");
    strbuf_add(&sb, "\n");
    if (excluded)
      strbuf_addf(&sb, "    # of these types, but sizes, counts, flags or queries: no status\n"
                       "    exclude: [%s]\n",
                  exclude.data);
    if (rules.len)
      strbuf_addf(&sb, "    rules:\n%s", rules.data);
  }
  strset_free(&types);
  strbuf_free(&type_list);
  strbuf_free(&exclude);
  strbuf_free(&rules);
  return strbuf_release(&sb);
}

/* The spec, commented. */
static char *write_spec(const struct init *in, const char *select, size_t selected,
                        const char *trace) {
  struct strbuf sb;
  strbuf_init(&sb);
  strbuf_add(&sb, "# Written by apigen --init from");
  for (size_t i = 0; i < in->o->header_count; i++)
    strbuf_addf(&sb, " %s", in->o->headers[i]);
  strbuf_add(&sb, ". Every inferred line says why; check them, then trace\n"
                  "# a program with scripts/try-backend.sh SPEC PROGRAM... (docs/adding-a-backend.md).\n");
  strbuf_addf(&sb, "backend: %s\n", in->backend);
  strbuf_addf(&sb, "# %s\nlibrary: %s\nheaders: [", in->library_why, in->library);
  for (size_t i = 0; i < in->o->header_count; i++)
    strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", in->o->headers[i]);
  strbuf_add(&sb, "]\n");
  if (in->defines.len) {
    for (size_t i = 0; i < in->defines.len; i++)
      strbuf_addf(&sb, "# %s\n", (char *)in->define_why.items[i]);
    strbuf_add(&sb, "defines: [");
    for (size_t i = 0; i < in->defines.len; i++)
      strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", (char *)in->defines.items[i]);
    strbuf_add(&sb, "]\n");
  }
  strbuf_addf(&sb, "select:\n  # %zu functions%s%s declare that %s exports or that they "
                   "define (static inline: never wrapped)\n  functions: %s\n",
              selected, in->package ? " the headers of " : " the headers ",
              in->package ? in->package : "", in->library, select);
  char *exclude = exclude_globs(in, select);
  if (exclude)
    strbuf_addf(&sb, "exclude:\n  # declared, but %s does not export them\n  functions: [%s]\n",
                in->library, exclude);
  free(exclude);
  strbuf_add(&sb, trace);
  return strbuf_release(&sb);
}

static void init_free(struct init *in) {
  free(in->backend);
  for (size_t i = 0; i < in->defines.len; i++) {
    free(in->defines.items[i]);
    free(in->define_why.items[i]);
  }
  ptrvec_free(&in->defines);
  ptrvec_free(&in->define_why);
  free(in->package);
  strset_free(&in->headers);
  for (size_t i = 0; i < in->libraries.len; i++)
    free(in->libraries.items[i]);
  ptrvec_free(&in->libraries);
  free(in->library);
  free(in->library_why);
  strset_free(&in->exports);
  for (size_t i = 0; i < in->functions.len; i++) {
    struct init_function *f = in->functions.items[i];
    free(f->name);
    free(f->result);
    free(f->rule.values);
    free(f->rule.success);
    free(f->rule.why);
    free(f);
  }
  ptrvec_free(&in->functions);
  diag_clear(&in->d);
}

int spec_init_write(const struct spec_init_options *o) {
  struct init in;
  memset(&in, 0, sizeof in);
  in.o = o;
  diag_init(&in.d);
  in.backend = o->backend ? xstrdup(o->backend) : backend_of(o->headers[0]);
  CXIndex index = clang_createIndex(0, 0);
  struct tu_config cfg;
  memset(&cfg, 0, sizeof cfg);
  CXTranslationUnit tu = NULL;
  char *spec = NULL;
  int status = parse(&in, index, &cfg, &tu);
  if (status == APIGEN_EXIT_OK) {
    read_package(&in, cfg.headers.items[0]);
    for (size_t i = 0; i < cfg.headers.len; i++) /* the given ones count in any case */
      strset_add(&in.headers, cfg.headers.items[i]);
    struct collect w = {&in, {0}, {0}};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), collect_visit, &w);
    strset_free(&w.seen);
    mark_renamed(&in, index, &cfg, tu, &w.macros);
    for (size_t i = 0; i < w.macros.len; i++)
      free(w.macros.items[i]);
    ptrvec_free(&w.macros);
    if (find_library(&in))
      status = APIGEN_EXIT_SPEC;
  }
  if (status == APIGEN_EXIT_OK) {
    for (size_t i = 0; i < in.functions.len; i++) {
      struct init_function *f = in.functions.items[i];
      f->exported = strset_has(&in.exports, f->name);
    }
    spec_init_infer(tu, &in.headers, &in.functions);
    size_t selected = 0;
    char *select = select_globs(&in, &selected);
    char *trace = trace_section(&in);
    spec = write_spec(&in, select, selected, trace);
    free(select);
    free(trace);
    /* Proved before it is written: the model builds from it. */
    struct spec s;
    const char *name = o->output ? o->output : "apigen --init";
    if (spec_load_buffer(&s, spec, strlen(spec), name, &in.d)) {
      status = APIGEN_EXIT_SPEC;
    } else {
      struct model m;
      memset(&m, 0, sizeof m);
      status = model_build(&s, &m, &in.d);
      model_free(&m);
      spec_free(&s);
    }
  }
  if (status == APIGEN_EXIT_OK) {
    if (o->output) {
      if (write_file_atomic(o->output, spec, strlen(spec))) {
        diag_error(&in.d, "Cannot write spec: path=%s", o->output);
        status = APIGEN_EXIT_IO;
      }
    } else {
      fputs(spec, stdout);
    }
  } else if (spec) {
    fputs(spec, stderr); /* what failed to build, for the messages above it */
  }
  if (status != APIGEN_EXIT_OK)
    diag_print(&in.d, stderr, "apigen");
  free(spec);
  if (tu)
    clang_disposeTranslationUnit(tu);
  tu_config_free(&cfg);
  clang_disposeIndex(index);
  init_free(&in);
  return status;
}
