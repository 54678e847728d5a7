/* ctf_parse_type.c: TSDL type specifiers: integer, floating_point, string and enum with
 * their attributes, names made by typealias and typedef, and the dispatch to struct and
 * variant (ctf_parse_struct.c). Sizes and alignments are computed here, once. */
#include "ctf_parse.h"

#include <string.h>

static const char *const type_keywords[] = {
    "integer", "floating_point", "string", "enum", "struct", "variant",
};

enum { MAX_NAME_WORDS = 8 };

static bool is_power_of_two(uint64_t value) {
  return value && !(value & (value - 1));
}

const char *ctf_parse_shown_name(const char *raw_name) {
  return raw_name[0] == '_' ? raw_name + 1 : raw_name;
}

struct ctf_type *ctf_parse_new_type(struct ctf_parser *p, enum ctf_type_kind kind) {
  struct ctf_type *type = ctf_arena_alloc(p->arena, sizeof *type);
  if (type)
    type->kind = kind;
  return type;
}

struct ctf_type *ctf_parse_copy_type(struct ctf_parser *p, const struct ctf_type *original) {
  struct ctf_type *type = ctf_arena_alloc(p->arena, sizeof *type);
  if (type)
    *type = *original;
  return type;
}

static enum ctf_status note_type(struct ctf_parser *p, struct ctf_type *type, bool native,
                                 const char *clock_name, const struct ctf_token *map) {
  struct ctf_metadata *md = p->metadata;
  if (md->type_note_count == md->type_note_capacity) {
    size_t capacity = md->type_note_capacity ? md->type_note_capacity * 2 : 64;
    struct ctf_type_note *notes = ctf_arena_grow(p->arena, md->type_notes, md->type_note_count,
                                                 capacity, sizeof *notes);
    if (!notes)
      return ctf_parse_no_memory(p);
    md->type_notes = notes;
    md->type_note_capacity = capacity;
  }
  struct ctf_type_note *note = &md->type_notes[md->type_note_count++];
  note->type = type;
  note->native_byte_order = native;
  note->clock_name = clock_name;
  note->line = map ? map->line : 0;
  note->column = map ? map->column : 0;
  return CTF_OK;
}

/* `le`, `be`, `network`, `native`: *native is set for the last, to resolve later. */
static enum ctf_status parse_byte_order(struct ctf_parser *p, const struct ctf_attr_value *v,
                                        enum ctf_byte_order *order, bool *native) {
  const char *text = v->kind == CTF_ATTR_IDENTIFIER ? v->text : "";
  *native = false;
  if (!strcmp(text, "le") || !strcmp(text, "little"))
    *order = CTF_BYTE_ORDER_LE;
  else if (!strcmp(text, "be") || !strcmp(text, "big") || !strcmp(text, "network"))
    *order = CTF_BYTE_ORDER_BE;
  else if (!strcmp(text, "native"))
    *native = true;
  else
    return ctf_parse_fail(p, v->token, "Cannot parse byte_order: expected le, be, network "
                                       "or native");
  return CTF_OK;
}

static enum ctf_status parse_encoding(struct ctf_parser *p, const struct ctf_attr_value *v,
                                      enum ctf_encoding *encoding) {
  const char *text = v->kind != CTF_ATTR_INTEGER ? v->text : "";
  if (!strcasecmp(text, "none"))
    *encoding = CTF_ENCODING_NONE;
  else if (!strcasecmp(text, "UTF8") || !strcasecmp(text, "UTF-8"))
    *encoding = CTF_ENCODING_UTF8;
  else if (!strcasecmp(text, "ASCII"))
    *encoding = CTF_ENCODING_ASCII;
  else
    return ctf_parse_fail(p, v->token, "Cannot parse encoding: expected none, UTF8 or ASCII");
  return CTF_OK;
}

static enum ctf_status parse_base(struct ctf_parser *p, const struct ctf_attr_value *v,
                                  uint8_t *base) {
  static const struct { const char *name; uint8_t base; } names[] = {
      {"decimal", 10}, {"dec", 10}, {"d", 10}, {"i", 10}, {"u", 10},
      {"hexadecimal", 16}, {"hex", 16}, {"x", 16}, {"X", 16}, {"p", 16},
      {"octal", 8}, {"oct", 8}, {"o", 8}, {"binary", 2}, {"bin", 2}, {"b", 2},
  };
  if (v->kind == CTF_ATTR_INTEGER && !v->negative &&
      (v->magnitude == 2 || v->magnitude == 8 || v->magnitude == 10 || v->magnitude == 16)) {
    *base = (uint8_t)v->magnitude;
    return CTF_OK;
  }
  if (v->kind == CTF_ATTR_IDENTIFIER)
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
      if (!strcmp(v->text, names[i].name)) {
        *base = names[i].base;
        return CTF_OK;
      }
  return ctf_parse_fail(p, v->token, "Cannot parse base: expected 2, 8, 10 or 16");
}

/* `{ name = value; ... }` of integer, floating_point and string: calls back per entry. */
typedef enum ctf_status (*attribute_fn)(struct ctf_parser *p, const struct ctf_token *name,
                                        const struct ctf_attr_value *value, void *state);

static enum ctf_status parse_attribute_block(struct ctf_parser *p, const char *what,
                                             attribute_fn handle, void *state) {
  enum ctf_status status = ctf_parse_expect(p, "{", what);
  while (status == CTF_OK && !ctf_parse_accept(p, "}")) {
    const struct ctf_token *name = ctf_parse_take(p);
    if (name->kind != CTF_TOKEN_IDENTIFIER)
      return ctf_parse_fail(p, name, "Cannot parse %s: expected an attribute name, found '%s'",
                            what, name->text);
    struct ctf_attr_value value;
    status = ctf_parse_attr_value(p, &value);
    if (status == CTF_OK)
      status = handle(p, name, &value, state);
    if (status == CTF_OK)
      status = ctf_parse_expect(p, ";", what);
  }
  return status;
}

struct integer_state {
  struct ctf_type *type;
  bool has_size, has_align, native;
  uint64_t align;
  const char *clock_name;
  const struct ctf_token *map;
};

static enum ctf_status integer_attribute(struct ctf_parser *p, const struct ctf_token *name,
                                         const struct ctf_attr_value *v, void *opaque) {
  struct integer_state *st = opaque;
  struct ctf_type *t = st->type;
  enum ctf_status status = CTF_OK;
  uint64_t number;
  if (!strcmp(name->text, "size")) {
    status = ctf_parse_attr_uint(p, v, &number);
    if (status == CTF_OK && (number == 0 || number > 64))
      return ctf_parse_fail(p, v->token, "Cannot handle integer: size=%llu (1 to 64 bits "
                                         "supported)", (unsigned long long)number);
    t->u.integer.size = (uint32_t)number;
    st->has_size = true;
  } else if (!strcmp(name->text, "align")) {
    status = ctf_parse_attr_uint(p, v, &st->align);
    if (status == CTF_OK && (!is_power_of_two(st->align) || st->align > (1u << 30)))
      return ctf_parse_fail(p, v->token, "Cannot parse align: %llu is not a power of two",
                            (unsigned long long)st->align);
    st->has_align = true;
  } else if (!strcmp(name->text, "signed")) {
    status = ctf_parse_attr_bool(p, v, &t->u.integer.is_signed);
  } else if (!strcmp(name->text, "byte_order")) {
    status = parse_byte_order(p, v, &t->u.integer.byte_order, &st->native);
  } else if (!strcmp(name->text, "base")) {
    status = parse_base(p, v, &t->u.integer.base);
  } else if (!strcmp(name->text, "encoding")) {
    status = parse_encoding(p, v, &t->u.integer.encoding);
  } else if (!strcmp(name->text, "map")) {
    /* clock.NAME.value */
    const char *text = v->kind == CTF_ATTR_IDENTIFIER ? v->text : "";
    size_t length = strlen(text);
    if (strncmp(text, "clock.", 6) || length < 13 || strcmp(text + length - 6, ".value"))
      return ctf_parse_fail(p, v->token, "Cannot parse map: expected clock.NAME.value");
    st->clock_name = ctf_arena_strndup(p->arena, text + 6, length - 12);
    if (!st->clock_name)
      return ctf_parse_no_memory(p);
    st->map = v->token;
  }
  /* Other attributes do not change how values are read. */
  return status;
}

static enum ctf_status parse_integer(struct ctf_parser *p, const struct ctf_type **out) {
  const struct ctf_token *keyword = ctf_parse_take(p);
  struct ctf_type *t = ctf_parse_new_type(p, CTF_TYPE_INTEGER);
  if (!t)
    return ctf_parse_no_memory(p);
  t->u.integer.base = 10;
  t->u.integer.byte_order = CTF_BYTE_ORDER_LE;
  struct integer_state st = {.type = t, .native = true};
  enum ctf_status status = parse_attribute_block(p, "integer", integer_attribute, &st);
  if (status != CTF_OK)
    return status;
  if (!st.has_size)
    return ctf_parse_fail(p, keyword, "Cannot parse integer: it has no size");
  t->size = t->u.integer.size;
  t->alignment = st.has_align ? (uint32_t)st.align : (t->u.integer.size % 8 ? 1 : 8);
  status = note_type(p, t, st.native, st.clock_name, st.map);
  *out = t;
  return status;
}

struct float_state {
  struct ctf_type *type;
  bool has_align, native;
  uint64_t align;
};

static enum ctf_status float_attribute(struct ctf_parser *p, const struct ctf_token *name,
                                       const struct ctf_attr_value *v, void *opaque) {
  struct float_state *st = opaque;
  struct ctf_type *t = st->type;
  uint64_t number = 0;
  enum ctf_status status = CTF_OK;
  if (!strcmp(name->text, "exp_dig")) {
    status = ctf_parse_attr_uint(p, v, &number);
    t->u.floating.exponent_digits = (uint32_t)number;
  } else if (!strcmp(name->text, "mant_dig")) {
    status = ctf_parse_attr_uint(p, v, &number);
    t->u.floating.mantissa_digits = (uint32_t)number;
  } else if (!strcmp(name->text, "align")) {
    status = ctf_parse_attr_uint(p, v, &st->align);
    if (status == CTF_OK && (!is_power_of_two(st->align) || st->align > (1u << 30)))
      return ctf_parse_fail(p, v->token, "Cannot parse align: %llu is not a power of two",
                            (unsigned long long)st->align);
    st->has_align = true;
  } else if (!strcmp(name->text, "byte_order")) {
    status = parse_byte_order(p, v, &t->u.floating.byte_order, &st->native);
  }
  return status;
}

static enum ctf_status parse_float(struct ctf_parser *p, const struct ctf_type **out) {
  const struct ctf_token *keyword = ctf_parse_take(p);
  struct ctf_type *t = ctf_parse_new_type(p, CTF_TYPE_FLOAT);
  if (!t)
    return ctf_parse_no_memory(p);
  struct float_state st = {.type = t, .native = true};
  enum ctf_status status = parse_attribute_block(p, "floating_point", float_attribute, &st);
  if (status != CTF_OK)
    return status;
  uint32_t exponent = t->u.floating.exponent_digits, mantissa = t->u.floating.mantissa_digits;
  if (!((exponent == 8 && mantissa == 24) || (exponent == 11 && mantissa == 53)))
    return ctf_parse_fail(p, keyword, "Cannot handle floating_point: exp_dig=%u, mant_dig=%u "
                                      "(only 32-bit and 64-bit IEEE 754 supported)",
                          exponent, mantissa);
  t->size = exponent + mantissa;
  t->alignment = st.has_align ? (uint32_t)st.align : 8;
  status = note_type(p, t, st.native, NULL, NULL);
  *out = t;
  return status;
}

static enum ctf_status string_attribute(struct ctf_parser *p, const struct ctf_token *name,
                                        const struct ctf_attr_value *v, void *opaque) {
  struct ctf_type *t = opaque;
  if (!strcmp(name->text, "encoding"))
    return parse_encoding(p, v, &t->u.string.encoding);
  return CTF_OK;
}

static enum ctf_status parse_string(struct ctf_parser *p, const struct ctf_type **out) {
  ctf_parse_take(p);
  struct ctf_type *t = ctf_parse_new_type(p, CTF_TYPE_STRING);
  if (!t)
    return ctf_parse_no_memory(p);
  t->u.string.encoding = CTF_ENCODING_UTF8;
  t->size = -1;
  t->alignment = 8;
  *out = t;
  if (ctf_parse_is_punct(ctf_parse_peek(p, 0), "{"))
    return parse_attribute_block(p, "string", string_attribute, t);
  return CTF_OK;
}

/* A signed enum value: optional '-' then an integer literal. */
static enum ctf_status parse_enum_value(struct ctf_parser *p, bool container_signed,
                                        uint64_t *bits) {
  bool negative = ctf_parse_accept(p, "-");
  const struct ctf_token *token = ctf_parse_take(p);
  if (token->kind != CTF_TOKEN_INTEGER)
    return ctf_parse_fail(p, token, "Cannot parse enum: expected a value, found '%s'",
                          token->text);
  if (negative && !container_signed)
    return ctf_parse_fail(p, token, "Cannot parse enum: negative value for an unsigned "
                                    "container");
  if (container_signed && token->integer > (negative ? (uint64_t)INT64_MAX + 1 : INT64_MAX))
    return ctf_parse_fail(p, token, "Cannot parse enum: value out of the signed range");
  *bits = negative ? (uint64_t)0 - token->integer : token->integer;
  return CTF_OK;
}

static bool enum_less(uint64_t a, uint64_t b, bool is_signed) {
  return is_signed ? (int64_t)a < (int64_t)b : a < b;
}

static enum ctf_status parse_enum_body(struct ctf_parser *p, struct ctf_type *t) {
  bool is_signed = t->u.enumeration.container->u.integer.is_signed;
  struct ctf_enum_mapping *mappings = NULL;
  size_t count = 0, capacity = 0;
  uint64_t next = 0;
  enum ctf_status status = ctf_parse_expect(p, "{", "enum");
  while (status == CTF_OK && !ctf_parse_accept(p, "}")) {
    const struct ctf_token *label = ctf_parse_take(p);
    if (label->kind != CTF_TOKEN_STRING && label->kind != CTF_TOKEN_IDENTIFIER)
      return ctf_parse_fail(p, label, "Cannot parse enum: expected a label, found '%s'",
                            label->text);
    uint64_t lower = next, upper = next;
    if (ctf_parse_accept(p, "=")) {
      status = parse_enum_value(p, is_signed, &lower);
      upper = lower;
      if (status == CTF_OK && ctf_parse_accept(p, "..."))
        status = parse_enum_value(p, is_signed, &upper);
      if (status != CTF_OK)
        return status;
      if (enum_less(upper, lower, is_signed))
        return ctf_parse_fail(p, label, "Cannot parse enum: label=%s has an empty range",
                              label->text);
    }
    next = upper + 1;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 8;
      mappings = ctf_arena_grow(p->arena, mappings, count, capacity, sizeof *mappings);
      if (!mappings)
        return ctf_parse_no_memory(p);
    }
    mappings[count++] = (struct ctf_enum_mapping){label->text, lower, upper};
    if (!ctf_parse_accept(p, ",") && !ctf_parse_is_punct(ctf_parse_peek(p, 0), "}"))
      return ctf_parse_fail(p, ctf_parse_peek(p, 0),
                            "Cannot parse enum: expected ',' or '}', found '%s'",
                            ctf_parse_peek(p, 0)->text);
  }
  t->u.enumeration.mappings = mappings;
  t->u.enumeration.mapping_count = count;
  return status;
}

static enum ctf_status parse_enum(struct ctf_parser *p, const struct ctf_type **out) {
  const struct ctf_token *keyword = ctf_parse_take(p);
  const struct ctf_token *name = NULL;
  if (ctf_parse_peek(p, 0)->kind == CTF_TOKEN_IDENTIFIER)
    name = ctf_parse_take(p);
  const struct ctf_type *container = NULL;
  enum ctf_status status = CTF_OK;
  if (ctf_parse_accept(p, ":")) {
    const struct ctf_token *at = ctf_parse_peek(p, 0);
    status = ctf_parse_type_specifier(p, &container);
    if (status != CTF_OK)
      return status;
    if (container->kind != CTF_TYPE_INTEGER)
      return ctf_parse_fail(p, at, "Cannot parse enum: its container is not an integer");
  }
  if (!ctf_parse_is_punct(ctf_parse_peek(p, 0), "{")) {
    if (!name)
      return ctf_parse_fail(p, keyword, "Cannot parse enum: no name and no body");
    const struct ctf_type *named = ctf_parse_lookup(p, CTF_NAME_ENUM, name->text);
    if (!named)
      return ctf_parse_fail(p, name, "Cannot find enum: name=%s", name->text);
    *out = named;
    return CTF_OK;
  }
  if (!container) {
    container = ctf_parse_lookup(p, CTF_NAME_ALIAS, "int");
    if (!container || container->kind != CTF_TYPE_INTEGER)
      return ctf_parse_fail(p, keyword, "Cannot parse enum: no container type and no "
                                        "`int` alias to default to");
  }
  struct ctf_type *t = ctf_parse_new_type(p, CTF_TYPE_ENUM);
  if (!t)
    return ctf_parse_no_memory(p);
  t->u.enumeration.container = container;
  t->size = container->size;
  t->alignment = container->alignment;
  status = parse_enum_body(p, t);
  if (status == CTF_OK && name)
    status = ctf_parse_define(p, CTF_NAME_ENUM, name->text, t, name);
  *out = t;
  return status;
}

/* How many identifiers from the current token name a typealias/typedef'd type (the
 * longest such run), 0 when none does; the joined name goes to `buffer`. */
static size_t match_type_name(const struct ctf_parser *p, const struct ctf_type **type) {
  size_t words = 0;
  while (words < MAX_NAME_WORDS && ctf_parse_peek(p, words)->kind == CTF_TOKEN_IDENTIFIER)
    words++;
  for (size_t take = words; take > 0; take--) {
    char name[512] = "";
    size_t used = 0;
    bool fits = true;
    for (size_t i = 0; i < take && fits; i++) {
      const char *word = ctf_parse_peek(p, i)->text;
      size_t length = strlen(word);
      if (used + length + 2 > sizeof name)
        fits = false;
      else {
        if (i)
          name[used++] = ' ';
        memcpy(name + used, word, length + 1);
        used += length;
      }
    }
    const struct ctf_type *found = fits ? ctf_parse_lookup(p, CTF_NAME_ALIAS, name) : NULL;
    if (found) {
      *type = found;
      return take;
    }
  }
  return 0;
}

static bool is_type_keyword(const struct ctf_token *token) {
  for (size_t i = 0; i < sizeof type_keywords / sizeof *type_keywords; i++)
    if (ctf_parse_is_word(token, type_keywords[i]))
      return true;
  return false;
}

bool ctf_parse_starts_type(const struct ctf_parser *p) {
  const struct ctf_token *token = ctf_parse_peek(p, 0);
  if (is_type_keyword(token) || ctf_parse_is_word(token, "const"))
    return true;
  const struct ctf_type *ignored = NULL;
  return token->kind == CTF_TOKEN_IDENTIFIER && match_type_name(p, &ignored) > 0;
}

enum ctf_status ctf_parse_type_specifier(struct ctf_parser *p, const struct ctf_type **type) {
  while (ctf_parse_is_word(ctf_parse_peek(p, 0), "const"))
    ctf_parse_take(p);
  const struct ctf_token *token = ctf_parse_peek(p, 0);
  if (ctf_parse_is_word(token, "integer"))
    return parse_integer(p, type);
  if (ctf_parse_is_word(token, "floating_point"))
    return parse_float(p, type);
  if (ctf_parse_is_word(token, "string"))
    return parse_string(p, type);
  if (ctf_parse_is_word(token, "enum"))
    return parse_enum(p, type);
  if (ctf_parse_is_word(token, "struct"))
    return ctf_parse_struct(p, type);
  if (ctf_parse_is_word(token, "variant"))
    return ctf_parse_variant(p, type);
  size_t words = token->kind == CTF_TOKEN_IDENTIFIER ? match_type_name(p, type) : 0;
  if (!words)
    return ctf_parse_fail(p, token, token->kind == CTF_TOKEN_IDENTIFIER
                                        ? "Cannot find type: name=%s"
                                        : "Cannot parse type: expected a type, found '%s'",
                          token->text);
  p->at += words;
  return CTF_OK;
}

static enum ctf_status parse_typealias(struct ctf_parser *p) {
  ctf_parse_take(p);
  const struct ctf_type *type = NULL;
  enum ctf_status status = ctf_parse_type_specifier(p, &type);
  if (status == CTF_OK)
    status = ctf_parse_expect(p, ":=", "typealias");
  if (status != CTF_OK)
    return status;
  const struct ctf_token *first = ctf_parse_peek(p, 0);
  char name[512] = "";
  size_t used = 0;
  while (ctf_parse_peek(p, 0)->kind == CTF_TOKEN_IDENTIFIER) {
    const char *word = ctf_parse_take(p)->text;
    size_t length = strlen(word);
    if (used + length + 2 > sizeof name)
      return ctf_parse_fail(p, first, "Cannot parse typealias: name too long");
    if (used)
      name[used++] = ' ';
    memcpy(name + used, word, length + 1);
    used += length;
  }
  if (!used)
    return ctf_parse_fail(p, first, "Cannot parse typealias: expected a name after ':=', "
                                    "found '%s'", first->text);
  if (ctf_parse_is_punct(ctf_parse_peek(p, 0), "*"))
    return ctf_parse_fail(p, ctf_parse_peek(p, 0), "Cannot handle pointer type aliases");
  const char *copy = ctf_arena_strdup(p->arena, name);
  if (!copy)
    return ctf_parse_no_memory(p);
  status = ctf_parse_define(p, CTF_NAME_ALIAS, copy, type, first);
  if (status == CTF_OK)
    status = ctf_parse_expect(p, ";", "typealias");
  return status;
}

static enum ctf_status parse_typedef(struct ctf_parser *p) {
  ctf_parse_take(p);
  const struct ctf_type *base = NULL;
  enum ctf_status status = ctf_parse_type_specifier(p, &base);
  while (status == CTF_OK) {
    const struct ctf_token *name = NULL;
    const struct ctf_type *type = NULL;
    status = ctf_parse_declarator(p, base, &name, &type);
    if (status == CTF_OK)
      status = ctf_parse_define(p, CTF_NAME_ALIAS, name->text, type, name);
    if (!ctf_parse_accept(p, ","))
      break;
  }
  if (status == CTF_OK)
    status = ctf_parse_expect(p, ";", "typedef");
  return status;
}

enum ctf_status ctf_parse_type_statement(struct ctf_parser *p, bool *parsed) {
  const struct ctf_token *token = ctf_parse_peek(p, 0);
  *parsed = true;
  if (ctf_parse_is_word(token, "typealias"))
    return parse_typealias(p);
  if (ctf_parse_is_word(token, "typedef"))
    return parse_typedef(p);
  *parsed = false;
  return CTF_OK;
}
