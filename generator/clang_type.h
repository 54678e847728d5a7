/* clang_type: libclang types turned into model types and C declarations.
 *
 * clang_type_decl() writes a declaration the way a person would: "int (*cb)(void *)",
 * "const size_t origin[3]". clang_type_describe() returns an owned struct model_type and
 * reports every typedef, struct, union and enum the type names through the optional
 * on_ref callback, so the model can pull in what its functions depend on.
 */
#ifndef APIGEN_CLANG_TYPE_H
#define APIGEN_CLANG_TYPE_H

#include <clang-c/Index.h>
#include <stdbool.h>

#include "model.h"

struct clang_type_ctx {
  /* Called with the declaration of each named type met; may be NULL. */
  void (*on_ref)(void *user, CXCursor decl);
  void *user;
  /* True when a typedef name must be treated as a handle (spec `handles`); may be NULL. */
  bool (*is_handle_name)(void *user, const char *typedef_name);
};

/* A declaration of `name` with type t; with name "" it is a type name for casts. Owned. */
char *clang_type_decl(CXType t, const char *name);
struct model_type *clang_type_describe(CXType t, const struct clang_type_ctx *ctx);
/* Reports the named types inside t (through pointers, arrays and function types). */
void clang_type_visit_refs(CXType t, const struct clang_type_ctx *ctx);

/* Owned copy of a libclang string, with "(unnamed struct at FILE:L:C)" made "(anonymous)"
 * so models never depend on where headers live. */
char *clang_string_take(CXString s);
char *clang_spelling_normalize(const char *s);
/* Owned copy of a libclang string, unchanged. */
char *clang_string_take_plain(CXString s);

/* The declaration that names t: its typedef, or its record/enum; null cursor if none. */
CXCursor clang_type_named_decl(CXType t);
/* "struct tag", "union tag", "enum tag", or the typedef name of an untagged one. */
char *clang_decl_type_name(CXCursor decl);
bool clang_type_is_integer_kind(enum CXTypeKind k);

#endif
