/* ctf_parse_struct.c: TSDL compound types: struct and variant bodies, the declarators
 * of their fields (names with [N] array and [path] sequence suffixes), and the layout
 * (alignment, fixed size) each compound gets once parsed. */
#include "ctf_parse.h"

#include <string.h>

static uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

static bool is_power_of_two(uint64_t value) {
  return value && !(value & (value - 1));
}

static uint32_t type_alignment(const struct ctf_type *t) {
  return t->alignment ? t->alignment : 1;
}

static enum ctf_status append_field(struct ctf_parser *p, struct ctf_field **fields,
                                    size_t *count, size_t *capacity, const char *raw_name,
                                    const struct ctf_type *type, const struct ctf_token *where) {
  for (size_t i = 0; i < *count; i++)
    if (!strcmp((*fields)[i].raw_name, raw_name))
      return ctf_parse_fail(p, where, "Cannot parse struct: two fields named %s", raw_name);
  if (*count == *capacity) {
    *capacity = *capacity ? *capacity * 2 : 8;
    *fields = ctf_arena_grow(p->arena, *fields, *count, *capacity, sizeof **fields);
    if (!*fields)
      return ctf_parse_no_memory(p);
  }
  (*fields)[(*count)++] = (struct ctf_field){ctf_parse_shown_name(raw_name), raw_name, type};
  return CTF_OK;
}

/* A path: identifiers joined by dots (`__seq_length`, `stream.event.context.len`). */
static enum ctf_status parse_path(struct ctf_parser *p, const char **path) {
  const struct ctf_token *first = ctf_parse_take(p);
  if (first->kind != CTF_TOKEN_IDENTIFIER)
    return ctf_parse_fail(p, first, "Cannot parse path: expected a field name, found '%s'",
                          first->text);
  size_t length = strlen(first->text);
  size_t start = p->at - 1;
  while (ctf_parse_is_punct(ctf_parse_peek(p, 0), ".") &&
         ctf_parse_peek(p, 1)->kind == CTF_TOKEN_IDENTIFIER) {
    length += 1 + strlen(ctf_parse_peek(p, 1)->text);
    p->at += 2;
  }
  char *joined = ctf_arena_alloc(p->arena, length + 1);
  if (!joined)
    return ctf_parse_no_memory(p);
  for (size_t i = start; i < p->at; i++)
    strcat(joined, p->tokens[i].text);
  *path = joined;
  return CTF_OK;
}

/* One declarator: a name and its [N] / [path] suffixes, applied to `base`. */
enum ctf_status ctf_parse_declarator(struct ctf_parser *p, const struct ctf_type *base,
                                     const struct ctf_token **name,
                                     const struct ctf_type **type) {
  if (ctf_parse_is_punct(ctf_parse_peek(p, 0), "*"))
    return ctf_parse_fail(p, ctf_parse_peek(p, 0), "Cannot handle pointer declarators");
  *name = ctf_parse_take(p);
  if ((*name)->kind != CTF_TOKEN_IDENTIFIER)
    return ctf_parse_fail(p, *name, "Cannot parse declaration: expected a field name, found "
                                    "'%s'", (*name)->text);
  enum { MAX_DIMENSIONS = 8 };
  struct { bool is_sequence; uint64_t length; const char *path; } dims[MAX_DIMENSIONS];
  size_t dim_count = 0;
  while (ctf_parse_accept(p, "[")) {
    if (dim_count == MAX_DIMENSIONS)
      return ctf_parse_fail(p, *name, "Cannot handle more than %d dimensions", MAX_DIMENSIONS);
    const struct ctf_token *length = ctf_parse_peek(p, 0);
    if (length->kind == CTF_TOKEN_INTEGER) {
      ctf_parse_take(p);
      dims[dim_count].is_sequence = false;
      dims[dim_count].length = length->integer;
    } else {
      dims[dim_count].is_sequence = true;
      enum ctf_status status = parse_path(p, &dims[dim_count].path);
      if (status != CTF_OK)
        return status;
    }
    dim_count++;
    enum ctf_status status = ctf_parse_expect(p, "]", "array length");
    if (status != CTF_OK)
      return status;
  }
  /* C order: in a[2][3], `a` holds 2 elements, each an array of 3. */
  const struct ctf_type *element = base;
  while (dim_count--) {
    struct ctf_type *t =
        ctf_parse_new_type(p, dims[dim_count].is_sequence ? CTF_TYPE_SEQUENCE : CTF_TYPE_ARRAY);
    if (!t)
      return ctf_parse_no_memory(p);
    t->alignment = type_alignment(element);
    if (dims[dim_count].is_sequence) {
      t->u.sequence.element = element;
      t->u.sequence.length = dims[dim_count].path;
      t->size = -1;
    } else {
      uint64_t length = dims[dim_count].length;
      t->u.array.element = element;
      t->u.array.length = length;
      t->size = -1;
      if (element->size >= 0) {
        uint64_t stride = align_up((uint64_t)element->size, type_alignment(element));
        if (length == 0)
          t->size = 0;
        else if (stride == 0 || length - 1 <= ((uint64_t)INT64_MAX / 4) / stride)
          t->size = (int64_t)((length - 1) * stride + (uint64_t)element->size);
        else
          return ctf_parse_fail(p, *name, "Cannot handle array: length=%llu is too large",
                                (unsigned long long)length);
      }
    }
    element = t;
  }
  *type = element;
  return CTF_OK;
}

/* Fields of a struct or options of a variant, up to and including the closing '}'. */
static enum ctf_status parse_fields(struct ctf_parser *p, const char *what,
                                    struct ctf_field **fields, size_t *count) {
  size_t capacity = 0;
  *fields = NULL;
  *count = 0;
  enum ctf_status status = ctf_parse_expect(p, "{", what);
  if (status == CTF_OK)
    status = ctf_parse_push_scope(p);
  if (status != CTF_OK)
    return status;
  while (status == CTF_OK && !ctf_parse_accept(p, "}")) {
    bool parsed = false;
    status = ctf_parse_type_statement(p, &parsed);
    if (status != CTF_OK || parsed)
      continue;
    const struct ctf_type *base = NULL;
    status = ctf_parse_type_specifier(p, &base);
    if (status != CTF_OK)
      break;
    if (ctf_parse_accept(p, ";"))   /* a definition only, like `struct name {...};` */
      continue;
    do {
      const struct ctf_token *name = NULL;
      const struct ctf_type *type = NULL;
      status = ctf_parse_declarator(p, base, &name, &type);
      if (status == CTF_OK)
        status = append_field(p, fields, count, &capacity, name->text, type, name);
    } while (status == CTF_OK && ctf_parse_accept(p, ","));
    if (status == CTF_OK)
      status = ctf_parse_expect(p, ";", what);
  }
  ctf_parse_pop_scope(p);
  return status;
}

static void layout_struct(struct ctf_type *t, uint64_t minimum_alignment) {
  uint64_t alignment = minimum_alignment ? minimum_alignment : 1;
  uint64_t offset = 0;
  bool fixed = true;
  for (size_t i = 0; i < t->u.structure.field_count; i++) {
    const struct ctf_type *member = t->u.structure.fields[i].type;
    uint64_t member_alignment = type_alignment(member);
    if (member_alignment > alignment)
      alignment = member_alignment;
    /* Past 2^61 bits a struct is not "fixed": such sizes only come from corrupt text
     * and would overflow the offsets. */
    if (fixed && member->size >= 0 && member->kind != CTF_TYPE_VARIANT &&
        offset < (UINT64_C(1) << 61) && (uint64_t)member->size < (UINT64_C(1) << 61))
      offset = align_up(offset, member_alignment) + (uint64_t)member->size;
    else
      fixed = false;
  }
  t->alignment = (uint32_t)alignment;
  t->size = fixed ? (int64_t)offset : -1;
}

static enum ctf_status parse_align_suffix(struct ctf_parser *p, uint64_t *alignment) {
  *alignment = 0;
  if (!ctf_parse_is_word(ctf_parse_peek(p, 0), "align") ||
      !ctf_parse_is_punct(ctf_parse_peek(p, 1), "("))
    return CTF_OK;
  p->at += 2;
  const struct ctf_token *value = ctf_parse_take(p);
  if (value->kind != CTF_TOKEN_INTEGER || !is_power_of_two(value->integer) ||
      value->integer > (1u << 30))
    return ctf_parse_fail(p, value, "Cannot parse align(): expected a power of two");
  *alignment = value->integer;
  return ctf_parse_expect(p, ")", "align()");
}

enum ctf_status ctf_parse_struct(struct ctf_parser *p, const struct ctf_type **out) {
  const struct ctf_token *keyword = ctf_parse_take(p);
  const struct ctf_token *name = NULL;
  if (ctf_parse_peek(p, 0)->kind == CTF_TOKEN_IDENTIFIER &&
      !(ctf_parse_is_word(ctf_parse_peek(p, 0), "align") &&
        ctf_parse_is_punct(ctf_parse_peek(p, 1), "(")))
    name = ctf_parse_take(p);
  enum ctf_status status = CTF_OK;
  struct ctf_type *t = NULL;
  if (ctf_parse_is_punct(ctf_parse_peek(p, 0), "{")) {
    t = ctf_parse_new_type(p, CTF_TYPE_STRUCT);
    if (!t)
      return ctf_parse_no_memory(p);
    struct ctf_field *fields = NULL;
    size_t count = 0;
    status = parse_fields(p, "struct", &fields, &count);
    if (status != CTF_OK)
      return status;
    t->u.structure.fields = fields;
    t->u.structure.field_count = count;
    uint64_t alignment = 0;
    status = parse_align_suffix(p, &alignment);
    layout_struct(t, alignment);
    if (status == CTF_OK && name)
      status = ctf_parse_define(p, CTF_NAME_STRUCT, name->text, t, name);
    *out = t;
    return status;
  }
  if (!name)
    return ctf_parse_fail(p, keyword, "Cannot parse struct: no name and no body");
  const struct ctf_type *named = ctf_parse_lookup(p, CTF_NAME_STRUCT, name->text);
  if (!named)
    return ctf_parse_fail(p, name, "Cannot find struct: name=%s", name->text);
  uint64_t alignment = 0;
  status = parse_align_suffix(p, &alignment);
  if (status != CTF_OK)
    return status;
  if (alignment > named->alignment) {
    t = ctf_parse_copy_type(p, named);
    if (!t)
      return ctf_parse_no_memory(p);
    layout_struct(t, alignment);
    named = t;
  }
  *out = named;
  return CTF_OK;
}

enum ctf_status ctf_parse_variant(struct ctf_parser *p, const struct ctf_type **out) {
  const struct ctf_token *keyword = ctf_parse_take(p);
  const struct ctf_token *name = NULL;
  const char *tag = NULL;
  if (ctf_parse_peek(p, 0)->kind == CTF_TOKEN_IDENTIFIER)
    name = ctf_parse_take(p);
  enum ctf_status status = CTF_OK;
  if (ctf_parse_accept(p, "<")) {
    status = parse_path(p, &tag);
    if (status == CTF_OK)
      status = ctf_parse_expect(p, ">", "variant tag");
    if (status != CTF_OK)
      return status;
  }
  if (!ctf_parse_is_punct(ctf_parse_peek(p, 0), "{")) {
    if (!name)
      return ctf_parse_fail(p, keyword, "Cannot parse variant: no name and no body");
    const struct ctf_type *named = ctf_parse_lookup(p, CTF_NAME_VARIANT, name->text);
    if (!named)
      return ctf_parse_fail(p, name, "Cannot find variant: name=%s", name->text);
    if (tag) {
      struct ctf_type *tagged = ctf_parse_copy_type(p, named);
      if (!tagged)
        return ctf_parse_no_memory(p);
      tagged->u.variant.tag = tag;
      named = tagged;
    }
    *out = named;
    return CTF_OK;
  }
  struct ctf_type *t = ctf_parse_new_type(p, CTF_TYPE_VARIANT);
  if (!t)
    return ctf_parse_no_memory(p);
  struct ctf_field *options = NULL;
  size_t count = 0;
  status = parse_fields(p, "variant", &options, &count);
  if (status != CTF_OK)
    return status;
  t->u.variant.tag = tag;
  t->u.variant.options = options;
  t->u.variant.option_count = count;
  t->size = -1;
  /* A variant has no alignment of its own: the selected option aligns itself. For the
   * enclosing struct's alignment, the largest option's alignment counts. */
  t->alignment = 1;
  for (size_t i = 0; i < count; i++)
    if (type_alignment(options[i].type) > t->alignment)
      t->alignment = type_alignment(options[i].type);
  if (name)
    status = ctf_parse_define(p, CTF_NAME_VARIANT, name->text, t, name);
  *out = t;
  return status;
}
