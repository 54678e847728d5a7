/* ctf_parse.h: the TSDL parser's state, shared by ctf_parse.c (blocks: trace, env,
 * clock, stream, event), ctf_parse_type.c (type specifiers) and ctf_parse_struct.c
 * (structs, variants, declarators). */
#ifndef TRACER_CTF_PARSE_H
#define TRACER_CTF_PARSE_H

#include "ctf_internal.h"

enum ctf_name_kind { CTF_NAME_ALIAS, CTF_NAME_STRUCT, CTF_NAME_VARIANT, CTF_NAME_ENUM };

struct ctf_named_type {
  enum ctf_name_kind kind;
  const char *name;           /* "unsigned long" for multi-word aliases */
  const struct ctf_type *type;
};

/* Type names visible in a block or struct body and, through parent, around it. */
struct ctf_scope {
  struct ctf_scope *parent;
  struct ctf_named_type *names;
  size_t count, capacity;
};

struct ctf_parser {
  struct ctf_metadata *metadata;   /* borrowed: what is being filled */
  struct ctf_arena *arena;         /* borrowed */
  const char *file;
  const char *text;
  const struct ctf_token *tokens;
  size_t at;
  struct ctf_scope *scope;
  struct ctf_error *error;
};

/* An attribute value: `= 8;`, `= -3;`, `= "text";`, `= le;`, `= clock.monotonic.value;` */
enum ctf_attr_kind { CTF_ATTR_INTEGER, CTF_ATTR_STRING, CTF_ATTR_IDENTIFIER };
struct ctf_attr_value {
  enum ctf_attr_kind kind;
  bool negative;
  uint64_t magnitude;
  const char *text;               /* string, or dotted identifier */
  const struct ctf_token *token;  /* where it starts */
};

/* Token helpers. */
const struct ctf_token *ctf_parse_peek(const struct ctf_parser *p, size_t ahead);
const struct ctf_token *ctf_parse_take(struct ctf_parser *p);
bool ctf_parse_is_punct(const struct ctf_token *token, const char *punct);
bool ctf_parse_is_word(const struct ctf_token *token, const char *word);
bool ctf_parse_accept(struct ctf_parser *p, const char *punct);
enum ctf_status ctf_parse_expect(struct ctf_parser *p, const char *punct, const char *context);
enum ctf_status ctf_parse_fail(struct ctf_parser *p, const struct ctf_token *token,
                               const char *format, ...) __attribute__((format(printf, 3, 4)));
enum ctf_status ctf_parse_no_memory(struct ctf_parser *p);

/* Scopes and names. */
enum ctf_status ctf_parse_push_scope(struct ctf_parser *p);
void ctf_parse_pop_scope(struct ctf_parser *p);
enum ctf_status ctf_parse_define(struct ctf_parser *p, enum ctf_name_kind kind,
                                 const char *name, const struct ctf_type *type,
                                 const struct ctf_token *where);
const struct ctf_type *ctf_parse_lookup(const struct ctf_parser *p, enum ctf_name_kind kind,
                                        const char *name);

/* `= value` after an attribute name (the `=` included), up to and not including `;`. */
enum ctf_status ctf_parse_attr_value(struct ctf_parser *p, struct ctf_attr_value *value);
/* An attribute value read as a boolean / an unsigned or signed integer. */
enum ctf_status ctf_parse_attr_bool(struct ctf_parser *p, const struct ctf_attr_value *value,
                                    bool *result);
enum ctf_status ctf_parse_attr_uint(struct ctf_parser *p, const struct ctf_attr_value *value,
                                    uint64_t *result);
enum ctf_status ctf_parse_attr_int(struct ctf_parser *p, const struct ctf_attr_value *value,
                                   int64_t *result);

/* Whether the next tokens start a type specifier. */
bool ctf_parse_starts_type(const struct ctf_parser *p);
/* A type specifier: integer {...}, floating_point {...}, string, enum, struct,
 * variant, or a name made by typealias/typedef. */
enum ctf_status ctf_parse_type_specifier(struct ctf_parser *p, const struct ctf_type **type);
/* Types created while parsing (arena-allocated, zeroed but for the kind). */
struct ctf_type *ctf_parse_new_type(struct ctf_parser *p, enum ctf_type_kind kind);
struct ctf_type *ctf_parse_copy_type(struct ctf_parser *p, const struct ctf_type *original);
/* struct [name] [{ fields }] [align(N)], and variant [name] [<tag>] [{ options }]: the
 * keyword is the next token. */
enum ctf_status ctf_parse_struct(struct ctf_parser *p, const struct ctf_type **type);
enum ctf_status ctf_parse_variant(struct ctf_parser *p, const struct ctf_type **type);
/* One declarator: a field name and its [N] / [path] suffixes, applied to `base`. */
enum ctf_status ctf_parse_declarator(struct ctf_parser *p, const struct ctf_type *base,
                                     const struct ctf_token **name,
                                     const struct ctf_type **type);
/* Parses a typealias or typedef statement when one comes next (*parsed says so). */
enum ctf_status ctf_parse_type_statement(struct ctf_parser *p, bool *parsed);
/* A field or variant option name as babeltrace2 shows it: one leading '_' removed. */
const char *ctf_parse_shown_name(const char *raw_name);

#endif /* TRACER_CTF_PARSE_H */
