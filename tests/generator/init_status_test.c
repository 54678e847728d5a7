/* apigen --init's status inference (generator/spec_init_status.c, spec_init_comment.c) on
 * a header written here: each function's comment or result type says, in the words a
 * library's header would use, which of its values fail, and the rule inferred must be
 * what the words say, no more. The expected rule of each function is in its own comment's
 * words; values (errno's, the header's constants) are the C library's and the header's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec_init_status.h"

static const char header[] =
    "#include <stdbool.h>\n"
    "typedef unsigned char t_bool;\n"
    "#define T_AGAIN_ERROR 11\n"
    "typedef enum {\n"
    "  T_OK = 0,\n"
    "  T_CHECK_ERROR = 1,\n"
    "    /**< The check could not be made.\n"
    "     *\n"
    "     * Encoders return it only from t_init(): they cannot go on.\n"
    "     *\n"
    "     * Decoders return it only from t_step(). The decoding can still be\n"
    "     * continued normally, unchecked.\n"
    "     */\n"
    "  T_STOP_ERROR = 2,\n"
    "    /**< Fatal.\n"
    "     *\n"
    "     * After it, t_step() cannot be continued normally.\n"
    "     */\n"
    "  T_BUF_ERROR = 3,\n"
    "    /**< No progress. This error is not fatal: coding can be continued normally\n"
    "     * with more input. */\n"
    "  T_MEM_ERROR = 4, /**< Out of memory, which t_step() reports too. */\n"
    "  T_END = 5\n"
    "} t_ret;\n"
    "t_ret t_step(int x);\n"
    "t_ret t_init(int x);\n"
    /* sentences that say what a failure returns, or what success does */
    "/* Sets the mode. If the library was built without support for modes, then\n"
    "   t_set_mode will return 0 if a mode is requested; otherwise it returns 1. */\n"
    "int t_set_mode(int mode);\n"
    "/**\n"
    " * \\brief Sets a preset.\n"
    " *\n"
    " * \\return      On success, false is returned. If the preset is not\n"
    " *              supported, true is returned.\n"
    " */\n"
    "t_bool t_preset(int preset);\n"
    "/** Loads the table. Returns true on success. */\n"
    "bool t_load(void);\n"
    "/** Returns 0 if no error occurred. */\n"
    "int t_flush(void);\n"
    /* none: a question, sentences that disagree, success not said, a size */
    "/** Return true if the mode is supported. If the mode is not supported,\n"
    " * false is returned. */\n"
    "t_bool t_mode_is_supported(int mode);\n"
    "/** On success, 0 is returned. If the mode is invalid, 0 is returned. */\n"
    "int t_disagree(int mode);\n"
    "/** If no successful call was made since the start, returns zero. */\n"
    "int t_last(void);\n"
    "/** If the size cannot be determined, zero is returned on failure. */\n"
    "unsigned long t_size(void);\n"
    /* a negative rule's answers */
    "/** Looks the item up. Returns zero if the item exists, -ENOENT if it is not\n"
    " * present, -T_AGAIN_ERROR when the table is being rebuilt, and other negative\n"
    " * values on failure. */\n"
    "int t_item_lookup(int id);\n"
    "/** Returns zero on success, -EEXIST if the item is already present, other\n"
    " * negative values on failure. */\n"
    "int t_item_add(int id);\n"
    "/** Returns zero when done, -EINVAL if the id is invalid, and other negative\n"
    " * values on failure. */\n"
    "int t_item_drop(int id);\n";

static int failures;

static void expect_rule(const struct ptrvec *functions, const char *name,
                        enum init_rule_kind kind, const char *values, const char *success,
                        const char *why_words) {
  for (size_t i = 0; i < functions->len; i++) {
    const struct init_function *f = functions->items[i];
    if (strcmp(f->name, name) != 0)
      continue;
    const struct init_rule *r = &f->rule;
    bool same = r->kind == kind &&
                (values ? r->values && strcmp(r->values, values) == 0 : !r->values) &&
                (success ? r->success && strcmp(r->success, success) == 0 : !r->success) &&
                (why_words ? r->why && strstr(r->why, why_words) != NULL
                           : kind != INIT_NONE || !r->why); /* no rule: no comment */
    if (same) {
      printf("ok: %s: kind %d%s%s%s%s\n", name, (int)kind, values ? ", " : "",
             values ? values : "", success ? ", success " : "", success ? success : "");
    } else {
      fprintf(stderr,
              "FAIL: %s: rule kind %d, values %s, success %s, why \"%s\"; expected kind %d, "
              "values %s, success %s, why with \"%s\"\n",
              name, (int)r->kind, r->values ? r->values : "-", r->success ? r->success : "-",
              r->why ? r->why : "", (int)kind, values ? values : "-", success ? success : "-",
              why_words ? why_words : "");
      failures++;
    }
    return;
  }
  fprintf(stderr, "FAIL: %s: not among the header's functions\n", name);
  failures++;
}

struct collect {
  struct ptrvec *functions;
  const char *file;
};

static enum CXChildVisitResult collect_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct collect *w = data;
  if (clang_getCursorKind(c) != CXCursor_FunctionDecl)
    return CXChildVisit_Continue;
  CXFile file;
  clang_getSpellingLocation(clang_getCursorLocation(c), &file, NULL, NULL, NULL);
  CXString path = clang_getFileName(file);
  bool ours = file && strcmp(clang_getCString(path), w->file) == 0;
  clang_disposeString(path);
  if (!ours)
    return CXChildVisit_Continue;
  struct init_function *f = xcalloc(1, sizeof *f);
  CXString name = clang_getCursorSpelling(c);
  CXString result = clang_getTypeSpelling(clang_getCursorResultType(c));
  f->name = xstrdup(clang_getCString(name));
  f->result = xstrdup(clang_getCString(result));
  clang_disposeString(name);
  clang_disposeString(result);
  f->cursor = c;
  f->exported = true;
  ptrvec_push(w->functions, f);
  return CXChildVisit_Continue;
}

int main(void) {
  char dir[] = "/tmp/init_status_XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char *path = xasprintf("%s/t.h", dir);
  if (write_file_atomic(path, header, strlen(header)) != 0) {
    fprintf(stderr, "FAIL: cannot write %s\n", path);
    return 1;
  }
  char *real = realpath(path, NULL);
  CXIndex index = clang_createIndex(0, 0);
  const char *args[] = {"-xc", "-std=gnu11", "-fparse-all-comments"};
  CXTranslationUnit tu = NULL;
  enum CXErrorCode err = clang_parseTranslationUnit2(
      index, real, args, 3, NULL, 0,
      CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_SkipFunctionBodies, &tu);
  if (err != CXError_Success || !tu || clang_getNumDiagnostics(tu) != 0) {
    fprintf(stderr, "FAIL: the test's header does not parse (libclang error %d)\n", (int)err);
    return 1;
  }
  struct ptrvec functions = {0};
  struct collect w = {&functions, real};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), collect_visit, &w);
  struct strset headers = {0};
  strset_add(&headers, real);
  spec_init_infer(tu, &headers, &functions);

  /* An enum constant is none for the function its paragraph says goes on normally after
   * it: T_CHECK_ERROR for t_step, not for t_init; T_STOP_ERROR ("cannot be continued")
   * and T_BUF_ERROR (no function named) stay errors. */
  expect_rule(&functions, "t_step", INIT_ERRORS, "[T_STOP_ERROR, T_BUF_ERROR, T_MEM_ERROR]",
              NULL, "T_CHECK_ERROR is none for t_step");
  expect_rule(&functions, "t_init", INIT_ERRORS,
              "[T_CHECK_ERROR, T_STOP_ERROR, T_BUF_ERROR, T_MEM_ERROR]", NULL, NULL);
  /* Sentences that say what a failure, or success, returns. */
  expect_rule(&functions, "t_set_mode", INIT_ZERO, NULL, NULL, "without support");
  expect_rule(&functions, "t_preset", INIT_NONZERO, NULL, NULL, "On success, false is returned");
  expect_rule(&functions, "t_load", INIT_ZERO, NULL, NULL, "Returns true on success");
  expect_rule(&functions, "t_flush", INIT_NONZERO, NULL, NULL, "no error");
  expect_rule(&functions, "t_mode_is_supported", INIT_NONE, NULL, NULL, NULL);
  expect_rule(&functions, "t_disagree", INIT_NONE, NULL, NULL, NULL);
  expect_rule(&functions, "t_last", INIT_NONE, NULL, NULL, NULL);
  expect_rule(&functions, "t_size", INIT_NONE, NULL, NULL, NULL);
  /* A negative rule keeps the answers its comment lists when it names no success. */
  char *answers = xasprintf("[%d, %d]", -ENOENT, -11);
  expect_rule(&functions, "t_item_lookup", INIT_NEGATIVE, NULL, answers,
              "\"-ENOENT if it is not present\" is an answer");
  expect_rule(&functions, "t_item_add", INIT_NEGATIVE, NULL, NULL, NULL);
  expect_rule(&functions, "t_item_drop", INIT_NEGATIVE, NULL, NULL, NULL);

  /* Rules that differ only in their success values are not the same rule. */
  struct init_rule a = {INIT_NEGATIVE, NULL, NULL, NULL}, b = a;
  b.success = answers;
  if (spec_init_same_rule(&a, &b) || !spec_init_same_rule(&b, &b)) {
    fprintf(stderr, "FAIL: spec_init_same_rule ignores the success values\n");
    failures++;
  }

  for (size_t i = 0; i < functions.len; i++) {
    struct init_function *f = functions.items[i];
    free(f->name);
    free(f->result);
    free(f->rule.values);
    free(f->rule.success);
    free(f->rule.why);
    free(f);
  }
  ptrvec_free(&functions);
  strset_free(&headers);
  free(answers);
  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  unlink(real);
  rmdir(dir);
  free(real);
  free(path);
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("init status inference: all checks passed\n");
  return 0;
}
