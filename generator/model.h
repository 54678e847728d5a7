/* model: the exact C model of one backend's API, built from its headers (model_build.c)
 * and written as generated/<backend>/model.yaml (model_write.c).
 *
 * Every pointer in these structs is owned by the struct that holds it, and model_free()
 * releases the whole tree. Strings that may be absent say so in their comment.
 * docs/model-format.md describes the YAML form key by key.
 */
#ifndef APIGEN_MODEL_H
#define APIGEN_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

/* The shape of a type once typedefs are seen through. */
enum model_kind {
  MODEL_KIND_VOID,
  MODEL_KIND_BOOL,
  MODEL_KIND_INT,
  MODEL_KIND_FLOAT,
  MODEL_KIND_ENUM,
  MODEL_KIND_POINTER,
  MODEL_KIND_ARRAY,
  MODEL_KIND_STRUCT,
  MODEL_KIND_UNION,
  MODEL_KIND_FUNCTION,
  MODEL_KIND_OTHER, /* vectors, complex numbers, ... */
};
const char *model_kind_name(enum model_kind k);

struct model_type {
  char *spelling;  /* a valid C type name, typedef names kept: "const cl_image_format *" */
  char *canonical; /* every typedef resolved: "const struct _cl_image_format *" */
  enum model_kind kind;
  int64_t size;    /* bytes; -1 when incomplete (void, functions, opaque structs) */
  bool is_signed;  /* integers and enums */
  bool is_const;   /* top-level const */
  bool handle;     /* an opaque handle: a typedef'd pointer to an incomplete struct, or a
                      type the spec names in `handles` */
  bool handle_from_spec; /* the handle is one only because the spec's `handles` say so */
  char *ref;       /* the model entry (typedef, enum, struct) the spelling names; may be NULL */
  struct model_type *target; /* pointers: the pointee; arrays: the element; else NULL */
  int64_t count;   /* arrays: element count, -1 when unsized */
};

enum model_direction { MODEL_DIR_IN, MODEL_DIR_OUT, MODEL_DIR_INOUT };
/* Where a fact about a param came from, most trusted last. */
enum model_source { MODEL_FROM_DEFAULT, MODEL_FROM_C, MODEL_FROM_DOC, MODEL_FROM_SPEC };
const char *model_direction_name(enum model_direction d);
const char *model_source_name(enum model_source s);

struct model_param {
  char *name; /* a generated name ("arg2") when the header gives none */
  char *decl; /* declaration with the name: "void (*pfn_notify)(const char *, void *)" */
  struct model_type *type;
  enum model_direction direction;
  enum model_source direction_from;
  bool string;                /* NUL-terminated string */
  enum model_source string_from;
  char *length;               /* array length expression, or NULL when not an array */
  enum model_source length_from;
  bool optional;              /* may be NULL */
  enum model_source optional_from;
};

/* The statuses from low to high, both included. */
struct model_range {
  int64_t low, high;
};

/* A call's status and which of its values are not errors (the spec's trace.status). A
 * status in success or not_ready is no error; else one in an error range is, and without
 * error ranges, one outside every success value and range is. With is_error, the wrapper
 * asks that function of the library about the result and records 0 for no error. */
struct model_status {
  char *param;              /* the out-param that carries it; NULL: the result */
  struct ptrvec success;    /* int64_t*: values that mean success */
  struct ptrvec not_ready;  /* int64_t*: values that mean "not ready yet", not an error */
  struct ptrvec success_ranges; /* struct model_range*: more successes */
  struct ptrvec errors;     /* struct model_range*: the errors, when the spec says which */
  char *is_error;           /* the library's test of a result (LZ4F_isError); may be NULL */
};

struct model_function {
  char *name;
  char *header;    /* the header that declares it, as the include line names it */
  char *prototype; /* the whole declaration, as a person would write it */
  struct model_type *result;
  struct ptrvec params; /* struct model_param* */
  bool variadic;
  bool has_prototype;   /* false for K&R-style `f()` */
  bool has_macro;       /* a function-like macro of the same name hides it from callers
                           (zlib's gzgetc): code defining it writes `(name)(...)` */
  struct model_status *status; /* traced backends: the call's status; NULL when it has none */
  bool defined;         /* the header defines it (static inline): no symbol to wrap */
  char *written;        /* the name callers write, when a macro of that name expands to
                           this one (pcre2_match -> pcre2_match_8); may be NULL */
};

/* A typedef of a function pointer type, e.g. ze_pfnInit_t or a callback type. */
struct model_function_pointer {
  char *name;
  struct model_type *type;
  struct model_type *result;
  struct ptrvec params; /* struct model_param* (names are arg0.. unless the header names them) */
  bool variadic;
};

struct model_typedef {
  char *name;
  struct model_type *type; /* what it stands for */
};

struct model_enum_constant {
  char *name;
  int64_t value;  /* as signed when the enum is signed */
  uint64_t uvalue; /* as unsigned when it is not */
};

struct model_enum {
  char *name;      /* the typedef name if any, else "enum tag" */
  char *tag;       /* may be NULL */
  char *underlying; /* canonical integer type */
  bool is_signed;
  int64_t size;
  struct ptrvec constants; /* struct model_enum_constant* */
};

struct model_record;
struct model_field {
  char *name;       /* NULL for an anonymous struct or union member */
  char *decl;       /* may be NULL for anonymous members */
  struct model_type *type;
  int64_t offset;   /* bytes from the start of the outermost named record */
  int64_t size;
  int bit_width;    /* -1 unless a bit-field */
  int64_t bit_offset; /* bit-fields: bits from the start of the outermost named record */
  struct model_record *members; /* an unnamed struct/union type: its fields; else NULL */
};

struct model_record {
  char *name;  /* the typedef name if any, else "struct tag" */
  char *tag;   /* may be NULL */
  bool is_union;
  bool complete;
  int64_t size, align;
  struct ptrvec fields; /* struct model_field* */
};

enum model_constant_kind { MODEL_CONST_INT, MODEL_CONST_STRING };
struct model_constant {
  char *name;
  enum model_constant_kind kind;
  char *type;      /* C type of the value, e.g. "cl_bitfield" */
  bool is_signed;
  int64_t value;
  uint64_t uvalue;
  char *string;    /* MODEL_CONST_STRING */
  char *definition; /* the macro's replacement text as written */
};

/* A selected macro whose value is only known at run time: a function call, or a call and
 * a global in one comma expression (a library that initializes itself on first use). It
 * is no constant, so the model notes it instead. */
struct model_runtime_macro {
  char *name;
  char *definition; /* the replacement text as written */
  char *header;     /* as an #include names it */
  unsigned line;
};

struct model {
  char *backend, *description, *spec_path;
  char *library, *collector; /* exactly one is set */
  struct ptrvec headers;           /* char* */
  struct ptrvec functions;         /* struct model_function* */
  struct ptrvec function_pointers; /* struct model_function_pointer* */
  struct ptrvec typedefs;          /* struct model_typedef* */
  struct ptrvec enums;             /* struct model_enum* */
  struct ptrvec records;           /* struct model_record* */
  struct ptrvec constants;         /* struct model_constant* */
  struct ptrvec runtime_macros;    /* struct model_runtime_macro*: left out of constants */
};

void model_type_free(struct model_type *t);
void model_param_free(struct model_param *p);
void model_record_free(struct model_record *r);
void model_free(struct model *m);

/* The model's function of that name; NULL when it has none. */
const struct model_function *model_function_named(const struct model *m, const char *name);
/* Whether name is an enumerator of one of the model's enums. */
bool model_has_enumerator(const struct model *m, const char *name);
/* Whether name is a constant of the model: a macro constant or an enumerator. */
bool model_has_constant(const struct model *m, const char *name);

#endif
