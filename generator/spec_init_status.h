/* spec_init_status: which results of a library's functions are statuses, and which of
 * their values are errors, from the header's own words (for `apigen --init`).
 *
 * A result is a status only where its type says so:
 * - an enum some of whose constants name errors (`LZMA_DATA_ERROR`, `VP8_STATUS_
 *   INVALID_PARAM`, `XML_STATUS_ERROR`): those constants are the errors;
 * - a type named like a status (`*_status`, `*_result`, `*_ret`, `*_error_t`,
 *   `*_errorCode_t`, `*Status`, `*Result`): an unsigned one is an error when nonzero, a
 *   signed one when negative;
 * - a size_t (or a typedef of it) that the header's own test of results takes
 *   (`ZSTD_isError(size_t)`, `LZ4F_isError(LZ4F_errorCode_t)`): that function says;
 * - a signed integer whose function's comments say what an error returns, or what success
 *   does (spec_init_comment.h), or, without such words, whose prefix's error constants are
 *   negative (`PCRE2_ERROR_NOMATCH (-1)`): negative;
 * - a boolean (`bool`, or a type named so: `lzma_bool`) whose comments say which value fails.
 * An enum constant is none for a function its doc comment says goes on normally after it.
 * Pointers, floats, sizes and counts without such a test, booleans no comment speaks of,
 * and the functions that report errors or versions themselves (`*_get_error_message`,
 * `*Version*`), have none.
 */
#ifndef APIGEN_SPEC_INIT_STATUS_H
#define APIGEN_SPEC_INIT_STATUS_H

#include <clang-c/Index.h>
#include <stdbool.h>

#include "util.h"

enum init_rule_kind {
  INIT_NONE,
  INIT_NEGATIVE, /* error: negative */
  INIT_ZERO,     /* error: zero */
  INIT_NONZERO,  /* error: nonzero */
  INIT_ERRORS,   /* error: [the constants in `values`] */
  INIT_IS_ERROR, /* is_error: `values` */
};

struct init_rule {
  enum init_rule_kind kind;
  char *values;  /* INIT_ERRORS: "[A, B]"; INIT_IS_ERROR: the test; else NULL */
  char *success; /* values that succeed though the error rule takes them: "[-17]", or NULL */
  char *why;    /* the comment written beside the rule */
};

struct init_function {
  char *name;
  CXCursor cursor;
  char *result;   /* the result type as spelled */
  bool defined;   /* the header defines it (static inline) */
  bool exported;  /* the library exports it */
  bool renamed;   /* a macro of the header renames it (pcre2_match -> pcre2_match_8) */
  struct init_rule rule;
};

/* Sets each function's rule. functions: struct init_function*, the package's functions;
 * constants are read from the macros and enums of the files in headers (char*, real
 * paths) of tu. */
void spec_init_infer(CXTranslationUnit tu, const struct strset *headers,
                     struct ptrvec *functions);

/* The same rule (kind, values and success values) for two functions. */
bool spec_init_same_rule(const struct init_rule *a, const struct init_rule *b);

#endif
