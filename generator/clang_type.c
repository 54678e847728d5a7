/* clang_type: see clang_type.h. */
#include "clang_type.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

char *clang_spelling_normalize(const char *s) {
  struct strbuf sb;
  strbuf_init(&sb);
  while (*s) {
    /* "(unnamed struct at x.h:1:2)", "(anonymous at x.h:1:2)", "(unnamed at x.h:1:2)" */
    if (*s == '(' && (str_starts_with(s, "(unnamed") || str_starts_with(s, "(anonymous"))) {
      const char *close = strchr(s, ')');
      const char *at = strstr(s, " at ");
      if (close && at && at < close) {
        /* Drop a C++-style "outer::" qualifier written before it. */
        while (sb.len > 0 && sb.data[sb.len - 1] != ' ' && sb.data[sb.len - 1] != '(')
          sb.data[--sb.len] = '\0';
        strbuf_add(&sb, "(anonymous)");
        s = close + 1;
        continue;
      }
    }
    strbuf_addn(&sb, s++, 1);
  }
  return strbuf_release(&sb);
}

char *clang_string_take(CXString s) {
  const char *c = clang_getCString(s);
  char *r = clang_spelling_normalize(c ? c : "");
  clang_disposeString(s);
  return r;
}

char *clang_string_take_plain(CXString s) {
  const char *c = clang_getCString(s);
  char *r = xstrdup(c ? c : "");
  clang_disposeString(s);
  return r;
}

bool clang_type_is_integer_kind(enum CXTypeKind k) {
  return (k >= CXType_Bool && k <= CXType_Int128);
}

static bool is_signed_kind(enum CXTypeKind k) {
  return (k >= CXType_Char_S && k <= CXType_Int128);
}

static bool is_function_kind(enum CXTypeKind k) {
  return k == CXType_FunctionProto || k == CXType_FunctionNoProto;
}

static bool is_array_kind(enum CXTypeKind k) {
  return k == CXType_ConstantArray || k == CXType_IncompleteArray ||
         k == CXType_VariableArray;
}

/* Sugar libclang cannot take apart (parens, attributes) is seen through to its shape. */
static CXType structural(CXType t) {
  if (t.kind == CXType_Attributed || t.kind == CXType_BTFTagAttributed)
    return structural(clang_Type_getModifiedType(t));
  if (t.kind == CXType_Unexposed) {
    CXType c = clang_getCanonicalType(t);
    if (c.kind == CXType_Pointer || is_function_kind(c.kind) || is_array_kind(c.kind))
      return c;
  }
  return t;
}

/* Qualifiers an array hands down to its element. C puts an array's qualifiers on its
 * elements (C11 6.7.3p9), but clang keeps them on the array: the canonical type of
 * `const int[3]` is a const array of plain int, which must still be spelled const. */
enum { ELEM_CONST = 1, ELEM_VOLATILE = 2 };

static void decl_into(CXType t, const char *inner, unsigned elem_quals, struct strbuf *out) {
  t = structural(t);
  bool is_const = clang_isConstQualifiedType(t), is_volatile = clang_isVolatileQualifiedType(t);
  switch (t.kind) {
  case CXType_Pointer: {
    struct strbuf s;
    strbuf_init(&s);
    strbuf_add(&s, "*");
    if (is_const || (elem_quals & ELEM_CONST))
      strbuf_add(&s, "const");
    if (is_volatile || (elem_quals & ELEM_VOLATILE))
      strbuf_add(&s, s.len > 1 ? " volatile" : "volatile");
    if (clang_isRestrictQualifiedType(t))
      strbuf_add(&s, s.len > 1 ? " restrict" : "restrict");
    if (*inner)
      strbuf_addf(&s, "%s%s", s.len > 1 ? " " : "", inner);
    CXType pointee = structural(clang_getPointeeType(t));
    if (is_function_kind(pointee.kind) || is_array_kind(pointee.kind)) {
      char *wrapped = xasprintf("(%s)", s.data);
      decl_into(pointee, wrapped, 0, out);
      free(wrapped);
    } else {
      decl_into(pointee, s.data, 0, out);
    }
    strbuf_free(&s);
    return;
  }
  case CXType_ConstantArray:
  case CXType_IncompleteArray:
  case CXType_VariableArray: {
    char *s = t.kind == CXType_ConstantArray
                  ? xasprintf("%s[%lld]", inner, clang_getArraySize(t))
                  : xasprintf("%s[]", inner);
    elem_quals |= (is_const ? ELEM_CONST : 0) | (is_volatile ? ELEM_VOLATILE : 0);
    decl_into(clang_getArrayElementType(t), s, elem_quals, out);
    free(s);
    return;
  }
  case CXType_FunctionProto:
  case CXType_FunctionNoProto: {
    struct strbuf s;
    strbuf_init(&s);
    strbuf_addf(&s, "%s(", inner);
    if (t.kind == CXType_FunctionProto) {
      int n = clang_getNumArgTypes(t);
      for (int i = 0; i < n; i++) {
        char *p = clang_type_decl(clang_getArgType(t, (unsigned)i), "");
        strbuf_addf(&s, "%s%s", i ? ", " : "", p);
        free(p);
      }
      if (clang_isFunctionTypeVariadic(t))
        strbuf_add(&s, n ? ", ..." : "...");
      else if (n == 0)
        strbuf_add(&s, "void");
    }
    strbuf_add(&s, ")");
    decl_into(clang_getResultType(t), s.data, 0, out);
    strbuf_free(&s);
    return;
  }
  default: {
    char *leaf = clang_string_take(clang_getTypeSpelling(t));
    /* `typedef struct {...} img, *imgp;`: clang spells imgp's pointee "struct img", a
     * tag C does not have. An untagged record or enum is spelled by its typedef name. */
    CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(t));
    enum CXCursorKind dk = clang_getCursorKind(decl);
    if (dk == CXCursor_StructDecl || dk == CXCursor_UnionDecl || dk == CXCursor_EnumDecl) {
      char *named = clang_decl_type_name(decl);
      const char *bare = leaf;
      while (str_starts_with(bare, "const ") || str_starts_with(bare, "volatile "))
        bare = strchr(bare, ' ') + 1;
      const char *space = strchr(bare, ' ');
      if (!strchr(named, ' ') && space && strcmp(space + 1, named) == 0 &&
          (str_starts_with(bare, "struct ") || str_starts_with(bare, "union ") ||
           str_starts_with(bare, "enum "))) {
        char *fixed = xasprintf("%.*s%s", (int)(bare - leaf), leaf, named);
        free(leaf);
        leaf = fixed;
      }
      free(named);
    }
    if ((elem_quals & ELEM_CONST) && !is_const)
      strbuf_add(out, "const ");
    if ((elem_quals & ELEM_VOLATILE) && !is_volatile)
      strbuf_add(out, "volatile ");
    strbuf_add(out, leaf);
    if (*inner)
      strbuf_addf(out, "%s%s", inner[0] == '[' ? "" : " ", inner);
    free(leaf);
    return;
  }
  }
}

char *clang_type_decl(CXType t, const char *name) {
  struct strbuf sb;
  strbuf_init(&sb);
  decl_into(t, name ? name : "", 0, &sb);
  return strbuf_release(&sb);
}

CXCursor clang_type_named_decl(CXType t) {
  if (t.kind == CXType_Elaborated)
    t = clang_Type_getNamedType(t);
  if (t.kind == CXType_Typedef || t.kind == CXType_Record || t.kind == CXType_Enum)
    return clang_getTypeDeclaration(t);
  return clang_getNullCursor();
}

char *clang_decl_type_name(CXCursor decl) {
  if (clang_getCursorKind(decl) == CXCursor_TypedefDecl)
    return clang_string_take(clang_getCursorSpelling(decl));
  /* A record or enum type spells "struct tag" when it has a tag, else its typedef name. */
  return clang_string_take(clang_getTypeSpelling(clang_getCursorType(decl)));
}

static bool typedef_chain_is_handle(CXType t, const struct clang_type_ctx *ctx) {
  for (int guard = 0; guard < 32; guard++) {
    if (t.kind == CXType_Elaborated)
      t = clang_Type_getNamedType(t);
    if (t.kind != CXType_Typedef)
      return false;
    char *name = clang_string_take(clang_getTypedefName(t));
    bool match = ctx && ctx->is_handle_name && ctx->is_handle_name(ctx->user, name);
    free(name);
    if (match)
      return true;
    t = clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(t));
  }
  return false;
}

static bool is_opaque_pointer(CXType canonical) {
  if (canonical.kind != CXType_Pointer)
    return false;
  CXType pointee = clang_getCanonicalType(clang_getPointeeType(canonical));
  return pointee.kind == CXType_Record &&
         clang_Type_getSizeOf(pointee) == CXTypeLayoutError_Incomplete;
}

void clang_type_visit_refs(CXType t, const struct clang_type_ctx *ctx) {
  if (!ctx || !ctx->on_ref)
    return;
  for (int guard = 0; guard < 64; guard++) {
    CXCursor named = clang_type_named_decl(t);
    if (!clang_Cursor_isNull(named)) {
      ctx->on_ref(ctx->user, named);
      return; /* the named declaration reports its own dependencies */
    }
    t = structural(t);
    if (t.kind == CXType_Pointer) {
      t = clang_getPointeeType(t);
    } else if (is_array_kind(t.kind)) {
      t = clang_getArrayElementType(t);
    } else if (is_function_kind(t.kind)) {
      clang_type_visit_refs(clang_getResultType(t), ctx);
      int n = t.kind == CXType_FunctionProto ? clang_getNumArgTypes(t) : 0;
      for (int i = 0; i < n; i++)
        clang_type_visit_refs(clang_getArgType(t, (unsigned)i), ctx);
      return;
    } else {
      return;
    }
  }
}

static enum model_kind kind_of(CXType canonical) {
  enum CXTypeKind k = canonical.kind;
  if (k == CXType_Void)
    return MODEL_KIND_VOID;
  if (k == CXType_Bool)
    return MODEL_KIND_BOOL;
  if (clang_type_is_integer_kind(k))
    return MODEL_KIND_INT;
  if ((k >= CXType_Float && k <= CXType_LongDouble) || k == CXType_Float128 ||
      k == CXType_Half || k == CXType_Float16 || k == CXType_BFloat16)
    return MODEL_KIND_FLOAT;
  if (k == CXType_Enum)
    return MODEL_KIND_ENUM;
  if (k == CXType_Pointer || k == CXType_BlockPointer)
    return MODEL_KIND_POINTER;
  if (is_array_kind(k))
    return MODEL_KIND_ARRAY;
  if (k == CXType_Record)
    return clang_getCursorKind(clang_getTypeDeclaration(canonical)) == CXCursor_UnionDecl
               ? MODEL_KIND_UNION
               : MODEL_KIND_STRUCT;
  if (is_function_kind(k))
    return MODEL_KIND_FUNCTION;
  return MODEL_KIND_OTHER;
}

struct model_type *clang_type_describe(CXType t, const struct clang_type_ctx *ctx) {
  struct model_type *mt = xcalloc(1, sizeof *mt);
  CXType canonical = clang_getCanonicalType(t);
  mt->spelling = clang_type_decl(t, "");
  mt->canonical = clang_type_decl(canonical, "");
  mt->kind = kind_of(canonical);
  long long size = clang_Type_getSizeOf(t);
  /* GNU C gives void and functions a size of 1; the model says they have none. */
  bool sized = mt->kind != MODEL_KIND_VOID && mt->kind != MODEL_KIND_FUNCTION;
  mt->size = sized && size >= 0 ? size : -1;
  mt->is_const = clang_isConstQualifiedType(t);
  if (mt->kind == MODEL_KIND_INT)
    mt->is_signed = is_signed_kind(canonical.kind);
  if (mt->kind == MODEL_KIND_ENUM) {
    CXType it = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(canonical)));
    mt->is_signed = is_signed_kind(it.kind);
  }
  /* The spec's `handles` are asked even for opaque pointers, so that a pattern naming
   * one counts as matched; the fact comes from C when C already says so. */
  bool named_handle = typedef_chain_is_handle(t, ctx);
  mt->handle = is_opaque_pointer(canonical) || named_handle;
  mt->handle_from_spec = named_handle && !is_opaque_pointer(canonical);
  CXCursor named = clang_type_named_decl(t);
  if (!clang_Cursor_isNull(named) && !clang_Cursor_isAnonymous(named)) {
    mt->ref = clang_decl_type_name(named);
    if (str_starts_with(mt->ref, "struct (") || str_starts_with(mt->ref, "union (") ||
        str_starts_with(mt->ref, "enum (")) {
      free(mt->ref);
      mt->ref = NULL;
    }
  }
  CXType shape = structural(t);
  if (shape.kind == CXType_Elaborated || shape.kind == CXType_Typedef)
    shape = structural(canonical);
  mt->count = -1;
  if (mt->kind == MODEL_KIND_POINTER) {
    mt->target = clang_type_describe(clang_getPointeeType(shape), ctx);
  } else if (mt->kind == MODEL_KIND_ARRAY) {
    mt->target = clang_type_describe(clang_getArrayElementType(shape), ctx);
    if (shape.kind == CXType_ConstantArray)
      mt->count = clang_getArraySize(shape);
  }
  clang_type_visit_refs(t, ctx);
  return mt;
}
