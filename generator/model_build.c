/* model_build: the libclang walk that selects and models the backend's declarations. */
#include "model_build.h"

#include <stdlib.h>
#include <string.h>

#include <fnmatch.h>

#include "apigen_exit.h"
#include "clang_type.h"
#include "model_aliases.h"
#include "model_constants.h"
#include "model_status.h"
#include "model_roles.h"
#include "translation_unit.h"

struct builder {
  const struct spec *spec;
  struct tu_config cfg;
  CXTranslationUnit tu;
  struct model *model;
  struct diag *d;
  struct clang_type_ctx type_ctx;
  struct strset selected;   /* USRs of types the model includes */
  struct strset emitted;    /* USRs already written to the model */
  struct strset functions;  /* function names already modelled */
  struct ptrvec worklist;   /* CXCursor*: selected types whose dependencies are pending */
  struct ptrvec macros;     /* CXCursor*: candidate constants, in header order */
  struct strset function_macros; /* names of the API's function-like macros */
  struct ptrvec alias_macros; /* CXCursor*: object-like macros named like functions */
  int status;
};

static char *usr_of(CXCursor c) { return clang_string_take_plain(clang_getCursorUSR(c)); }

static bool cursor_in_api(struct builder *b, CXCursor c) {
  char *file = tu_cursor_file(c, NULL, NULL);
  bool in = *file && tu_in_api(&b->cfg, file);
  free(file);
  return in;
}

static bool is_type_decl(enum CXCursorKind k) {
  return k == CXCursor_TypedefDecl || k == CXCursor_StructDecl || k == CXCursor_UnionDecl ||
         k == CXCursor_EnumDecl;
}

/* Name matched against `types` patterns: the typedef name or the bare tag. */
static char *pattern_name(CXCursor c) {
  if (clang_Cursor_isAnonymous(c))
    return NULL;
  char *name = clang_string_take(clang_getCursorSpelling(c));
  if (!*name || strchr(name, '(')) {
    free(name);
    return NULL;
  }
  return name;
}

static void select_type(struct builder *b, CXCursor c) {
  char *usr = usr_of(c);
  if (*usr && strset_add(&b->selected, usr)) {
    CXCursor *copy = xmalloc(sizeof *copy);
    *copy = c;
    ptrvec_push(&b->worklist, copy);
  }
  free(usr);
}

static bool is_record_kind(enum CXCursorKind k) {
  return k == CXCursor_StructDecl || k == CXCursor_UnionDecl;
}

/* An unnamed struct or union written inside a record is modelled as the `members` of
 * the field that uses it, with offsets from the outer record; it is no entry of its own
 * (its field types are reached through the outer record). */
static bool is_nested_unnamed_record(CXCursor decl) {
  return is_record_kind(clang_getCursorKind(decl)) && clang_Cursor_isAnonymous(decl) &&
         is_record_kind(clang_getCursorKind(clang_getCursorLexicalParent(decl)));
}

/* clang_type_ctx callback: a type named by something in the model joins the model. */
static void on_ref(void *user, CXCursor decl) {
  struct builder *b = user;
  if (clang_Cursor_isNull(decl) || !cursor_in_api(b, decl) || is_nested_unnamed_record(decl))
    return;
  char *name = pattern_name(decl);
  bool excluded = name && spec_patterns_match((struct ptrvec *)&b->spec->exclude_types, name);
  free(name);
  if (!excluded)
    select_type(b, decl);
}

static bool is_handle_name(void *user, const char *name) {
  struct builder *b = user;
  return spec_patterns_match((struct ptrvec *)&b->spec->handles, name);
}

static struct model_param *build_param(struct builder *b, CXCursor p, int index) {
  struct model_param *mp = xcalloc(1, sizeof *mp);
  char *name = clang_string_take(clang_getCursorSpelling(p));
  if (!*name) {
    free(name);
    name = xasprintf("arg%d", index);
  }
  mp->name = name;
  CXType t = clang_getCursorType(p);
  mp->decl = clang_type_decl(t, name);
  mp->type = clang_type_describe(t, &b->type_ctx);
  return mp;
}

static void build_function(struct builder *b, CXCursor c) {
  char *name = clang_string_take(clang_getCursorSpelling(c));
  if (!strset_add(&b->functions, name)) {
    free(name);
    return;
  }
  struct model_function *f = xcalloc(1, sizeof *f);
  f->name = name;
  char *file = tu_cursor_file(c, NULL, NULL);
  f->header = tu_include_name(&b->cfg, file);
  free(file);
  CXType ft = clang_getCursorType(c);
  f->has_prototype = ft.kind == CXType_FunctionProto;
  f->variadic = f->has_prototype && clang_isFunctionTypeVariadic(ft);
  f->result = clang_type_describe(clang_getCursorResultType(c), &b->type_ctx);
  int n = clang_Cursor_getNumArguments(c);
  struct strbuf inner;
  strbuf_init(&inner);
  strbuf_addf(&inner, "%s(", name);
  for (int i = 0; i < n; i++) {
    struct model_param *p = build_param(b, clang_Cursor_getArgument(c, (unsigned)i), i);
    strbuf_addf(&inner, "%s%s", i ? ", " : "", p->decl);
    ptrvec_push(&f->params, p);
  }
  if (f->variadic)
    strbuf_add(&inner, n ? ", ..." : "...");
  else if (n == 0 && f->has_prototype)
    strbuf_add(&inner, "void");
  strbuf_add(&inner, ")");
  f->prototype = clang_type_decl(clang_getCursorResultType(c), inner.data);
  strbuf_free(&inner);
  /* A function the header defines (static inline) has no symbol in the library; the
   * parse skips function bodies, so a static or inline one counts as defined. */
  f->defined = clang_Cursor_getStorageClass(c) == CX_SC_Static ||
               clang_Cursor_isFunctionInlined(c) || clang_isCursorDefinition(c);
  model_roles_infer(f, c, b->tu);
  ptrvec_push(&b->model->functions, f);
}

/* Pass 1: select functions, pattern-matched types and candidate constants. */
static enum CXChildVisitResult select_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct builder *b = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_FunctionDecl) {
    if (!cursor_in_api(b, c))
      return CXChildVisit_Continue;
    char *name = clang_string_take(clang_getCursorSpelling(c));
    if (spec_patterns_match((struct ptrvec *)&b->spec->functions, name) &&
        !spec_patterns_match((struct ptrvec *)&b->spec->exclude_functions, name))
      build_function(b, c);
    free(name);
  } else if (is_type_decl(k)) {
    if (!cursor_in_api(b, c))
      return CXChildVisit_Continue;
    char *name = pattern_name(c);
    if (name && spec_patterns_match((struct ptrvec *)&b->spec->types, name) &&
        !spec_patterns_match((struct ptrvec *)&b->spec->exclude_types, name))
      select_type(b, c);
    free(name);
    if (k == CXCursor_StructDecl || k == CXCursor_UnionDecl)
      clang_visitChildren(c, select_visit, b); /* named records nested in records */
  } else if (k == CXCursor_MacroDefinition) {
    if (clang_Cursor_isMacroBuiltin(c) || !cursor_in_api(b, c))
      return CXChildVisit_Continue;
    if (clang_Cursor_isMacroFunctionLike(c)) {
      char *name = clang_string_take(clang_getCursorSpelling(c));
      strset_add(&b->function_macros, name);
      free(name);
      return CXChildVisit_Continue;
    }
    char *name = clang_string_take(clang_getCursorSpelling(c));
    /* A macro named like the API's functions may rename one (model_aliases.h). */
    for (size_t i = 0; i < b->spec->functions.len; i++)
      if (fnmatch(((const struct spec_pattern *)b->spec->functions.items[i])->glob, name, 0) == 0) {
        CXCursor *copy = xmalloc(sizeof *copy);
        *copy = c;
        ptrvec_push(&b->alias_macros, copy);
        break;
      }
    if (spec_patterns_match((struct ptrvec *)&b->spec->constants, name) &&
        !spec_patterns_match((struct ptrvec *)&b->spec->exclude_constants, name)) {
      CXCursor *copy = xmalloc(sizeof *copy);
      *copy = c;
      ptrvec_push(&b->macros, copy);
    }
    free(name);
  }
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult field_refs_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct builder *b = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_FieldDecl)
    clang_type_visit_refs(clang_getCursorType(c), &b->type_ctx);
  else if ((k == CXCursor_StructDecl || k == CXCursor_UnionDecl) && clang_Cursor_isAnonymous(c))
    clang_visitChildren(c, field_refs_visit, b);
  return CXChildVisit_Continue;
}

/* Pulls in every type the selected types name, until nothing new appears. */
static void close_over_dependencies(struct builder *b) {
  for (size_t i = 0; i < b->worklist.len; i++) {
    CXCursor c = *(CXCursor *)b->worklist.items[i];
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_TypedefDecl) {
      clang_type_visit_refs(clang_getTypedefDeclUnderlyingType(c), &b->type_ctx);
    } else if (k == CXCursor_StructDecl || k == CXCursor_UnionDecl) {
      CXCursor def = clang_getCursorDefinition(c);
      if (!clang_Cursor_isNull(def))
        clang_visitChildren(def, field_refs_visit, b);
    }
  }
}

/* ---- pass 2: emit selected types in header order ---- */

struct record_walk {
  struct builder *b;
  struct model_record *record;
  CXType outer;     /* the outermost named record, for offsets of anonymous members */
  long long base_bits;
};

static struct model_record *build_record_fields(struct builder *b, CXCursor decl, CXType outer,
                                                long long base_bits);

/* Where an anonymous member starts inside its parent, found through one of its fields. */
static long long anonymous_member_bits(CXCursor anon, CXType parent_type);

static enum CXChildVisitResult field_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct record_walk *w = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_FieldDecl) {
    struct model_field *f = xcalloc(1, sizeof *f);
    char *name = clang_string_take(clang_getCursorSpelling(c));
    CXType t = clang_getCursorType(c);
    long long bits = clang_Cursor_getOffsetOfField(c);
    if (bits < 0)
      bits = 0;
    bits += w->base_bits;
    f->type = clang_type_describe(t, &w->b->type_ctx);
    f->bit_width = clang_getFieldDeclBitWidth(c);
    f->offset = bits / 8;
    f->bit_offset = bits;
    long long size = clang_Type_getSizeOf(t);
    f->size = size >= 0 ? size : -1;
    if (*name) {
      f->name = name;
      f->decl = clang_type_decl(t, name);
    } else {
      free(name); /* an unnamed bit-field used as padding */
    }
    CXCursor td = clang_type_named_decl(t);
    if (!clang_Cursor_isNull(td) && clang_Cursor_isAnonymous(td) &&
        clang_getCursorKind(td) != CXCursor_EnumDecl)
      f->members = build_record_fields(w->b, td, w->outer, bits);
    ptrvec_push(&w->record->fields, f);
  } else if ((k == CXCursor_StructDecl || k == CXCursor_UnionDecl) &&
             clang_Cursor_isAnonymousRecordDecl(c)) {
    struct model_field *f = xcalloc(1, sizeof *f);
    long long bits = w->base_bits + anonymous_member_bits(c, clang_getCursorType(parent));
    f->type = clang_type_describe(clang_getCursorType(c), &w->b->type_ctx);
    f->bit_width = -1;
    f->offset = bits / 8;
    f->bit_offset = bits;
    f->size = f->type->size;
    f->members = build_record_fields(w->b, c, w->outer, bits);
    ptrvec_push(&w->record->fields, f);
  }
  return CXChildVisit_Continue;
}

struct first_field {
  char *name;
};

static enum CXChildVisitResult first_field_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct first_field *ff = data;
  if (clang_getCursorKind(c) == CXCursor_FieldDecl) {
    char *name = clang_string_take(clang_getCursorSpelling(c));
    if (*name) {
      ff->name = name;
      return CXChildVisit_Break;
    }
    free(name);
  }
  return CXChildVisit_Continue;
}

static long long anonymous_member_bits(CXCursor anon, CXType parent_type) {
  struct first_field ff = {NULL};
  clang_visitChildren(anon, first_field_visit, &ff);
  if (!ff.name)
    return 0;
  long long in_parent = clang_Type_getOffsetOf(parent_type, ff.name);
  long long in_anon = clang_Type_getOffsetOf(clang_getCursorType(anon), ff.name);
  free(ff.name);
  return in_parent >= 0 && in_anon >= 0 ? in_parent - in_anon : 0;
}

static struct model_record *build_record_fields(struct builder *b, CXCursor decl, CXType outer,
                                                long long base_bits) {
  struct model_record *r = xcalloc(1, sizeof *r);
  r->is_union = clang_getCursorKind(decl) == CXCursor_UnionDecl;
  CXType t = clang_getCursorType(decl);
  long long size = clang_Type_getSizeOf(t);
  long long align = clang_Type_getAlignOf(t);
  r->complete = size >= 0;
  r->size = size >= 0 ? size : -1;
  r->align = align >= 0 ? align : -1;
  struct record_walk w = {b, r, outer, base_bits};
  clang_visitChildren(decl, field_visit, &w);
  return r;
}

static void emit_record(struct builder *b, CXCursor c) {
  CXType t = clang_getCursorType(c);
  struct model_record *r = build_record_fields(b, c, t, 0);
  r->name = clang_decl_type_name(c);
  /* An unnamed record's spelling is "struct (anonymous)", which is no tag. */
  if ((str_starts_with(r->name, "struct ") || str_starts_with(r->name, "union ")) &&
      !clang_Cursor_isAnonymous(c))
    r->tag = clang_string_take(clang_getCursorSpelling(c));
  ptrvec_push(&b->model->records, r);
}

static void emit_enum(struct builder *b, CXCursor c) {
  struct model_enum *e = xcalloc(1, sizeof *e);
  e->name = clang_decl_type_name(c);
  if (str_starts_with(e->name, "enum ") && !clang_Cursor_isAnonymous(c))
    e->tag = clang_string_take(clang_getCursorSpelling(c));
  CXType it = clang_getCanonicalType(clang_getEnumDeclIntegerType(c));
  e->underlying = clang_type_decl(it, "");
  e->is_signed = it.kind >= CXType_Char_S && it.kind <= CXType_Int128;
  e->size = clang_Type_getSizeOf(clang_getCursorType(c));
  ptrvec_push(&b->model->enums, e);
  /* Constants are added by enum_constant_visit through the enum's children. */
}

static enum CXChildVisitResult enum_constant_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct model_enum *e = data;
  if (clang_getCursorKind(c) != CXCursor_EnumConstantDecl)
    return CXChildVisit_Continue;
  struct model_enum_constant *k = xcalloc(1, sizeof *k);
  k->name = clang_string_take(clang_getCursorSpelling(c));
  k->value = clang_getEnumConstantDeclValue(c);
  k->uvalue = clang_getEnumConstantDeclUnsignedValue(c);
  ptrvec_push(&e->constants, k);
  return CXChildVisit_Continue;
}

/* The function type that a function-pointer type points to, as the header spells it:
 * through typedefs and attributes but not to the canonical type, which would write
 * size_t as unsigned long and lose the typedef names that make handles. Paren sugar may
 * remain; libclang's function-type queries see through it. */
static CXType spelled_pointee(CXType t) {
  for (int guard = 0; guard < 32; guard++) {
    if (t.kind == CXType_Elaborated)
      t = clang_Type_getNamedType(t);
    else if (t.kind == CXType_Typedef)
      t = clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(t));
    else if (t.kind == CXType_Attributed)
      t = clang_Type_getModifiedType(t);
    else
      break;
  }
  return clang_getPointeeType(t.kind == CXType_Pointer ? t : clang_getCanonicalType(t));
}

static void emit_typedef(struct builder *b, CXCursor c) {
  char *name = clang_string_take(clang_getCursorSpelling(c));
  CXType under = clang_getTypedefDeclUnderlyingType(c);
  /* `typedef struct { ... } name;` is modelled as the record itself, named `name`. */
  CXCursor named = clang_type_named_decl(under);
  if (!clang_Cursor_isNull(named) && clang_getCursorKind(named) != CXCursor_TypedefDecl) {
    char *target = clang_decl_type_name(named);
    bool same = strcmp(target, name) == 0;
    free(target);
    if (same) {
      free(name);
      return;
    }
  }
  CXType canonical = clang_getCanonicalType(under);
  CXType pointee = clang_getCanonicalType(clang_getPointeeType(canonical));
  if (canonical.kind == CXType_Pointer &&
      (pointee.kind == CXType_FunctionProto || pointee.kind == CXType_FunctionNoProto)) {
    struct model_function_pointer *fp = xcalloc(1, sizeof *fp);
    fp->name = name;
    fp->type = clang_type_describe(under, &b->type_ctx);
    CXType spelled = spelled_pointee(under);
    fp->result = clang_type_describe(clang_getResultType(spelled), &b->type_ctx);
    fp->variadic = pointee.kind == CXType_FunctionProto && clang_isFunctionTypeVariadic(pointee);
    /* Param names come from the typedef's own ParmDecls when the header gives them. */
    int n = pointee.kind == CXType_FunctionProto ? clang_getNumArgTypes(pointee) : 0;
    for (int i = 0; i < n; i++) {
      struct model_param *p = xcalloc(1, sizeof *p);
      p->name = xasprintf("arg%d", i);
      CXType at = clang_getArgType(spelled, (unsigned)i);
      p->decl = clang_type_decl(at, p->name);
      p->type = clang_type_describe(at, &b->type_ctx);
      ptrvec_push(&fp->params, p);
    }
    model_roles_name_callback_params(fp, c);
    ptrvec_push(&b->model->function_pointers, fp);
    return;
  }
  struct model_typedef *td = xcalloc(1, sizeof *td);
  td->name = name;
  td->type = clang_type_describe(under, &b->type_ctx);
  ptrvec_push(&b->model->typedefs, td);
}

static enum CXChildVisitResult emit_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct builder *b = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (!is_type_decl(k))
    return CXChildVisit_Continue;
  if (k == CXCursor_StructDecl || k == CXCursor_UnionDecl)
    clang_visitChildren(c, emit_visit, b);
  char *usr = usr_of(c);
  if (!*usr || !strset_has(&b->selected, usr) || strset_has(&b->emitted, usr)) {
    free(usr);
    return CXChildVisit_Continue;
  }
  /* A record or enum is written where it is defined, or at its first mention if never. */
  if (k != CXCursor_TypedefDecl) {
    CXCursor def = clang_getCursorDefinition(c);
    if (!clang_Cursor_isNull(def) && !clang_equalCursors(def, c)) {
      free(usr);
      return CXChildVisit_Continue;
    }
  }
  strset_add(&b->emitted, usr);
  free(usr);
  if (k == CXCursor_TypedefDecl) {
    emit_typedef(b, c);
  } else if (k == CXCursor_EnumDecl) {
    emit_enum(b, c);
    clang_visitChildren(c, enum_constant_visit, b->model->enums.items[b->model->enums.len - 1]);
  } else {
    emit_record(b, c);
  }
  return CXChildVisit_Continue;
}

/* Pass 2 may meet a forward declaration before any definition; emit_visit skips those,
 * so records that are never defined (opaque handles' structs) are written afterwards. */
static enum CXChildVisitResult opaque_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct builder *b = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k != CXCursor_StructDecl && k != CXCursor_UnionDecl && k != CXCursor_EnumDecl)
    return CXChildVisit_Continue;
  char *usr = usr_of(c);
  if (*usr && strset_has(&b->selected, usr) && !strset_has(&b->emitted, usr) &&
      clang_Cursor_isNull(clang_getCursorDefinition(c))) {
    strset_add(&b->emitted, usr);
    if (k == CXCursor_EnumDecl)
      emit_enum(b, c);
    else
      emit_record(b, c);
  }
  free(usr);
  return CXChildVisit_Continue;
}

static int check_patterns(struct builder *b, const struct ptrvec *v, const char *what) {
  int rc = 0;
  for (size_t i = 0; i < v->len; i++) {
    struct spec_pattern *p = v->items[i];
    if (p->matches == 0)
      rc = diag_error_at(b->d, b->spec->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: %s pattern=%s", what, p->glob);
  }
  return rc;
}

int model_build(const struct spec *s, struct model *m, struct diag *d) {
  struct builder b;
  memset(&b, 0, sizeof b);
  b.spec = s;
  b.model = m;
  b.d = d;
  b.type_ctx.on_ref = on_ref;
  b.type_ctx.is_handle_name = is_handle_name;
  b.type_ctx.user = &b;
  m->backend = xstrdup(s->backend);
  m->description = s->description ? xstrdup(s->description) : NULL;
  m->library = s->library ? xstrdup(s->library) : NULL;
  m->collector = s->collector ? xstrdup(s->collector) : NULL;
  m->spec_path = xstrdup(s->path);
  for (size_t i = 0; i < s->headers.len; i++)
    ptrvec_push(&m->headers, xstrdup(((struct spec_string *)s->headers.items[i])->value));

  int rc = tu_config_init(&b.cfg, s, d);
  CXIndex index = clang_createIndex(0, 0);
  if (rc == 0)
    rc = tu_parse(index, &b.cfg, NULL, true, &b.tu, d);
  int status = rc ? APIGEN_EXIT_HEADER : APIGEN_EXIT_OK;
  if (rc == 0) {
    CXCursor root = clang_getTranslationUnitCursor(b.tu);
    clang_visitChildren(root, select_visit, &b);
    close_over_dependencies(&b);
    clang_visitChildren(root, emit_visit, &b);
    clang_visitChildren(root, opaque_visit, &b);
    for (size_t i = 0; i < m->functions.len; i++) {
      struct model_function *f = m->functions.items[i];
      f->has_macro = strset_has(&b.function_macros, f->name);
    }
    model_aliases_find(m, index, &b.cfg, b.tu, &b.alias_macros);
    rc |= check_patterns(&b, &s->functions, "select.functions");
    rc |= check_patterns(&b, &s->types, "select.types");
    rc |= check_patterns(&b, &s->constants, "select.constants");
    rc |= check_patterns(&b, &s->exclude_functions, "exclude.functions");
    rc |= check_patterns(&b, &s->exclude_types, "exclude.types");
    rc |= check_patterns(&b, &s->exclude_constants, "exclude.constants");
    rc |= check_patterns(&b, &s->handles, "handles");
    rc |= model_roles_apply_spec(m, s, d);
    if (rc)
      status = APIGEN_EXIT_SPEC;
    else if (model_constants_build(m, index, &b.cfg, b.tu, &b.macros, d))
      status = APIGEN_EXIT_MODEL;
    else if (model_status_apply(m, (struct spec *)s, d))
      status = APIGEN_EXIT_SPEC;
  }
  for (size_t i = 0; i < b.worklist.len; i++)
    free(b.worklist.items[i]);
  ptrvec_free(&b.worklist);
  for (size_t i = 0; i < b.macros.len; i++)
    free(b.macros.items[i]);
  ptrvec_free(&b.macros);
  for (size_t i = 0; i < b.alias_macros.len; i++)
    free(b.alias_macros.items[i]);
  ptrvec_free(&b.alias_macros);
  strset_free(&b.selected);
  strset_free(&b.emitted);
  strset_free(&b.functions);
  strset_free(&b.function_macros);
  if (b.tu)
    clang_disposeTranslationUnit(b.tu);
  clang_disposeIndex(index);
  tu_config_free(&b.cfg);
  return status;
}
