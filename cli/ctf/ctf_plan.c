/* ctf_plan.c: compiles each dynamic scope (packet header and context, event header,
 * contexts, payload) into a flat list of ops, so that reading an event never walks a
 * type tree: every integer has a register, every sequence length and variant tag is
 * resolved to the register of the field it names, and fixed-size payloads are skipped
 * with one addition. */
#include "ctf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum scope_id {
  SCOPE_PACKET_HEADER,
  SCOPE_PACKET_CONTEXT,
  SCOPE_EVENT_HEADER,
  SCOPE_STREAM_EVENT_CONTEXT,
  SCOPE_EVENT_CONTEXT,
  SCOPE_EVENT_PAYLOAD,
  SCOPE_COUNT,
};

/* Absolute path prefixes of CTF 1.8, per scope. */
static const char *const scope_paths[SCOPE_COUNT] = {
    "trace.packet.header", "stream.packet.context", "stream.event.header",
    "stream.event.context", "event.context", "event.fields",
};

/* A field compiled so far, for resolving the names sequences and variants refer to. */
struct symbol {
  const char *name;          /* raw name */
  int32_t parent;            /* enclosing symbol, or -1 - scope for top-level fields */
  int32_t reg;               /* register of an integer or enum, else -1 */
  const struct ctf_type *type;
};

struct compiler {
  struct ctf_metadata *md;
  struct ctf_error *error;
  struct ctf_op *ops;                 /* under construction (malloc'd) */
  size_t op_count, op_capacity;
  struct ctf_variant_range *ranges;   /* under construction (malloc'd) */
  size_t range_count, range_capacity;
  struct symbol *symbols;             /* malloc'd */
  size_t symbol_count, symbol_capacity;
  uint32_t next_register;
  enum scope_id scope;
  const char *where;                  /* "stream=0" or "event=NAME", for messages */
};

static enum ctf_status compile_fail(struct compiler *c, enum ctf_status status,
                                    const char *field, const char *message) {
  return ctf_fail(c->error, status, "Cannot compile metadata: file=%s, %s, scope=%s, "
                                    "field=%s: %s",
                  c->md->file, c->where, scope_paths[c->scope], field ? field : "-", message);
}

static enum ctf_status no_memory(struct compiler *c) {
  return ctf_fail(c->error, CTF_ERR_NO_MEMORY, "Cannot compile metadata: file=%s: out of "
                                               "memory", c->md->file);
}

static bool grow(void **items, size_t *capacity, size_t count, size_t item_size) {
  if (count < *capacity)
    return true;
  size_t bigger = *capacity ? *capacity * 2 : 64;
  void *resized = realloc(*items, bigger * item_size);
  if (!resized)
    return false;
  *items = resized;
  *capacity = bigger;
  return true;
}

static struct ctf_op *emit(struct compiler *c, enum ctf_op_kind kind,
                           const struct ctf_type *type, int32_t slot) {
  if (c->op_count >= UINT32_MAX - 1 ||
      !grow((void **)&c->ops, &c->op_capacity, c->op_count, sizeof *c->ops))
    return NULL;
  struct ctf_op *op = &c->ops[c->op_count++];
  memset(op, 0, sizeof *op);
  op->kind = (uint8_t)kind;
  op->type = type;
  op->slot = slot;
  op->alignment = type->alignment ? type->alignment : 1;
  return op;
}

static int32_t add_symbol(struct compiler *c, const char *name, int32_t parent,
                          const struct ctf_type *type) {
  if (c->symbol_count >= INT32_MAX ||
      !grow((void **)&c->symbols, &c->symbol_capacity, c->symbol_count, sizeof *c->symbols))
    return -1;
  struct symbol *symbol = &c->symbols[c->symbol_count];
  symbol->name = name;
  symbol->parent = parent;
  symbol->type = type;
  symbol->reg = -1;
  if (type->kind == CTF_TYPE_INTEGER || type->kind == CTF_TYPE_ENUM)
    symbol->reg = (int32_t)c->next_register++;
  return (int32_t)c->symbol_count++;
}

static int32_t find_child(const struct compiler *c, int32_t parent, const char *name,
                          size_t length) {
  for (size_t i = c->symbol_count; i-- > 0;)
    if (c->symbols[i].parent == parent && strlen(c->symbols[i].name) == length &&
        !strncmp(c->symbols[i].name, name, length))
      return (int32_t)i;
  return -1;
}

/* The symbol a path names, seen from inside `context` (a symbol, or a scope root):
 * absolute paths start at their scope; relative ones are looked up in the enclosing
 * structs, innermost first. -1 when not found. */
static int32_t resolve(const struct compiler *c, const char *path, int32_t context) {
  int32_t found = -1;
  const char *rest = path;
  for (int scope = 0; scope < SCOPE_COUNT; scope++) {
    size_t length = strlen(scope_paths[scope]);
    if (!strncmp(path, scope_paths[scope], length) && path[length] == '.') {
      rest = path + length + 1;
      context = -1 - scope;
      break;
    }
  }
  size_t first_length = strcspn(rest, ".");
  for (int32_t at = context;;) {
    found = find_child(c, at, rest, first_length);
    if (found >= 0 || at < 0)
      break;
    at = c->symbols[at].parent;
  }
  rest += first_length;
  while (found >= 0 && *rest == '.') {
    rest++;
    size_t length = strcspn(rest, ".");
    found = find_child(c, found, rest, length);
    rest += length;
  }
  return found;
}

static bool is_text_element(const struct ctf_type *element) {
  return element->kind == CTF_TYPE_INTEGER && element->u.integer.size == 8 &&
         element->u.integer.encoding != CTF_ENCODING_NONE;
}

static enum ctf_status compile_field(struct compiler *c, const struct ctf_field *field,
                                     const struct ctf_type *type, int32_t slot,
                                     int32_t parent);

static enum ctf_status compile_integer(struct compiler *c, const struct ctf_field *field,
                                       const struct ctf_type *type, int32_t slot,
                                       int32_t self) {
  const struct ctf_type *integer =
      type->kind == CTF_TYPE_ENUM ? type->u.enumeration.container : type;
  uint32_t size = integer->u.integer.size;
  bool whole_bytes = integer->alignment % 8 == 0 &&
                     (size == 8 || size == 16 || size == 32 || size == 64);
  struct ctf_op *op = emit(c, whole_bytes ? CTF_OP_INT_BYTES : CTF_OP_INT_BITS, type, slot);
  if (!op)
    return no_memory(c);
  op->alignment = integer->alignment ? integer->alignment : 1;
  op->size = size;
  op->reg = (uint32_t)c->symbols[self].reg;
  if (integer->u.integer.is_signed)
    op->flags |= CTF_OPF_SIGNED;
  if (integer->u.integer.byte_order == CTF_BYTE_ORDER_BE)
    op->flags |= CTF_OPF_BIG_ENDIAN;
  /* What the values mean: the event header's id and timestamp, and the packet's
   * beginning time, which is where the stream's clock starts for that packet. */
  const char *name = field ? field->raw_name : "";
  if (c->scope == SCOPE_EVENT_HEADER && !strcmp(name, "id"))
    op->flags |= CTF_OPF_EVENT_ID;
  if (integer->u.integer.mapped_clock &&
      (c->scope == SCOPE_EVENT_HEADER ||
       (c->scope == SCOPE_PACKET_CONTEXT && !strcmp(name, "timestamp_begin"))))
    op->flags |= CTF_OPF_CLOCK;
  return CTF_OK;
}

static enum ctf_status compile_variant(struct compiler *c, const struct ctf_field *field,
                                       const struct ctf_type *type, int32_t slot,
                                       int32_t parent, int32_t self) {
  const char *name = field ? field->raw_name : "-";
  if (!type->u.variant.tag)
    return compile_fail(c, CTF_ERR_METADATA, name, "Cannot use variant: it has no tag");
  int32_t tag = resolve(c, type->u.variant.tag, parent);
  if (tag < 0 || c->symbols[tag].type->kind != CTF_TYPE_ENUM)
    return compile_fail(c, CTF_ERR_METADATA, name,
                        tag < 0 ? "Cannot resolve variant tag: no such field before it"
                                : "Cannot use variant tag: it is not an enum");
  const struct ctf_type *tag_type = c->symbols[tag].type;
  size_t op_index = c->op_count;
  struct ctf_op *op = emit(c, CTF_OP_VARIANT, type, slot);
  if (!op)
    return no_memory(c);
  op->alignment = 1;   /* the selected option aligns itself */
  op->reg = (uint32_t)c->symbols[tag].reg;
  if (tag_type->u.enumeration.container->u.integer.is_signed)
    op->flags |= CTF_OPF_SIGNED;
  size_t option_count = type->u.variant.option_count;
  uint32_t *begins = calloc(option_count ? option_count : 1, 2 * sizeof *begins);
  if (!begins)
    return no_memory(c);
  enum ctf_status status = CTF_OK;
  for (size_t i = 0; i < option_count && status == CTF_OK; i++) {
    begins[2 * i] = (uint32_t)c->op_count;
    const struct ctf_field *option = &type->u.variant.options[i];
    status = compile_field(c, option, option->type, -1, self);
    begins[2 * i + 1] = (uint32_t)c->op_count;
  }
  size_t first_range = c->range_count;
  for (size_t m = 0; m < tag_type->u.enumeration.mapping_count && status == CTF_OK; m++) {
    const struct ctf_enum_mapping *mapping = &tag_type->u.enumeration.mappings[m];
    size_t option = option_count;
    for (size_t i = 0; i < option_count && option == option_count; i++) {
      const struct ctf_field *candidate = &type->u.variant.options[i];
      if (!strcmp(candidate->raw_name, mapping->label) ||
          !strcmp(candidate->name, mapping->label) ||
          (mapping->label[0] == '_' && !strcmp(candidate->name, mapping->label + 1)))
        option = i;
    }
    if (option == option_count)
      continue;   /* a label without an option: values with it fail when read */
    if (!grow((void **)&c->ranges, &c->range_capacity, c->range_count, sizeof *c->ranges)) {
      status = no_memory(c);
      break;
    }
    c->ranges[c->range_count++] = (struct ctf_variant_range){
        mapping->lower, mapping->upper, (uint32_t)option, begins[2 * option],
        begins[2 * option + 1]};
  }
  free(begins);
  if (status != CTF_OK)
    return status;
  op = &c->ops[op_index];   /* emit() may have moved the ops */
  op->first = (uint32_t)first_range;
  op->count = c->range_count - first_range;
  op->next = (uint32_t)c->op_count;
  return CTF_OK;
}

static enum ctf_status compile_array(struct compiler *c, const struct ctf_field *field,
                                     const struct ctf_type *type, int32_t slot,
                                     int32_t parent, int32_t self) {
  const char *name = field ? field->raw_name : "-";
  bool is_sequence = type->kind == CTF_TYPE_SEQUENCE;
  const struct ctf_type *element = is_sequence ? type->u.sequence.element
                                               : type->u.array.element;
  int32_t length = -1;
  if (is_sequence) {
    length = resolve(c, type->u.sequence.length, parent);
    if (length < 0 || c->symbols[length].reg < 0)
      return compile_fail(c, CTF_ERR_METADATA, name,
                          length < 0 ? "Cannot resolve sequence length: no such field "
                                       "before it"
                                     : "Cannot use sequence length: it is not an integer");
    if (c->symbols[length].type->kind == CTF_TYPE_ENUM)
      return compile_fail(c, CTF_ERR_METADATA, name,
                          "Cannot use sequence length: it is an enum");
  }
  bool fixed = element->size >= 0;
  size_t op_index = c->op_count;
  struct ctf_op *op = emit(c, fixed ? CTF_OP_BLOB : CTF_OP_LOOP, type, slot);
  if (!op)
    return no_memory(c);
  op->alignment = element->alignment ? element->alignment : 1;
  if (is_sequence) {
    op->flags |= CTF_OPF_COUNT_IN_REGISTER;
    op->reg = (uint32_t)c->symbols[length].reg;
  } else {
    op->count = type->u.array.length;
  }
  if (is_text_element(element))
    op->flags |= CTF_OPF_TEXT;
  if (fixed) {
    uint64_t alignment = op->alignment;
    uint64_t stride = ((uint64_t)element->size + alignment - 1) & ~(alignment - 1);
    if (stride > UINT32_MAX)
      return compile_fail(c, CTF_ERR_UNSUPPORTED, name, "Cannot handle array elements "
                                                        "over 4 Gbit");
    op->size = (uint32_t)stride;
    op->element_size = (uint32_t)element->size;
    return CTF_OK;
  }
  struct ctf_field element_field = {"", "", element};
  enum ctf_status status = compile_field(c, &element_field, element, -1, self);
  c->ops[op_index].next = (uint32_t)c->op_count;
  return status;
}

static enum ctf_status compile_field(struct compiler *c, const struct ctf_field *field,
                                     const struct ctf_type *type, int32_t slot,
                                     int32_t parent) {
  int32_t self = add_symbol(c, field ? field->raw_name : "", parent, type);
  if (self < 0)
    return no_memory(c);
  switch (type->kind) {
  case CTF_TYPE_INTEGER:
  case CTF_TYPE_ENUM:
    return compile_integer(c, field, type, slot, self);
  case CTF_TYPE_FLOAT: {
    struct ctf_op *op = emit(c, CTF_OP_FLOAT, type, slot);
    if (!op)
      return no_memory(c);
    op->size = (uint32_t)type->size;
    if (type->u.floating.byte_order == CTF_BYTE_ORDER_BE)
      op->flags |= CTF_OPF_BIG_ENDIAN;
    return CTF_OK;
  }
  case CTF_TYPE_STRING:
    return emit(c, CTF_OP_STRING, type, slot) ? CTF_OK : no_memory(c);
  case CTF_TYPE_STRUCT: {
    size_t op_index = c->op_count;
    if (!emit(c, CTF_OP_STRUCT, type, slot))
      return no_memory(c);
    for (size_t i = 0; i < type->u.structure.field_count; i++) {
      const struct ctf_field *member = &type->u.structure.fields[i];
      enum ctf_status status = compile_field(c, member, member->type, -1, self);
      if (status != CTF_OK)
        return status;
    }
    c->ops[op_index].next = (uint32_t)c->op_count;
    return CTF_OK;
  }
  case CTF_TYPE_VARIANT:
    return compile_variant(c, field, type, slot, parent, self);
  case CTF_TYPE_ARRAY:
  case CTF_TYPE_SEQUENCE:
    return compile_array(c, field, type, slot, parent, self);
  }
  return compile_fail(c, CTF_ERR_METADATA, field ? field->raw_name : "-", "unknown type");
}

/* LTTng's event headers:
 *   struct { enum : uint5_t { compact = 0 ... 30, extended = 31 } id;        (compact)
 *            variant <id> { struct { uint27_clock timestamp; } compact;
 *                           struct { uint32_t id; uint64_clock timestamp; } extended; } v;
 *   } align(8)
 * and the same with a 16-bit id (65535: extended) and a 32-bit compact timestamp
 * (large). Every event starts with one, so it gets a fused op. */
static const struct ctf_field *member(const struct ctf_type *type, size_t index,
                                      const char *raw_name) {
  if (type->kind != CTF_TYPE_STRUCT || index >= type->u.structure.field_count)
    return NULL;
  const struct ctf_field *field = &type->u.structure.fields[index];
  return strcmp(field->raw_name, raw_name) ? NULL : field;
}

static bool is_plain_uint(const struct ctf_type *type, uint32_t size, uint32_t alignment,
                          enum ctf_byte_order order, bool clock) {
  return type->kind == CTF_TYPE_INTEGER && type->u.integer.size == size &&
         !type->u.integer.is_signed && type->alignment == alignment &&
         type->u.integer.byte_order == order && (type->u.integer.mapped_clock != NULL) == clock;
}

static bool is_lttng_header(const struct ctf_type *header, uint32_t *id_bits,
                            uint32_t *compact_bits, enum ctf_byte_order *order) {
  if (header->kind != CTF_TYPE_STRUCT || header->u.structure.field_count != 2 ||
      header->alignment != 8)
    return false;
  const struct ctf_field *id = member(header, 0, "id");
  const struct ctf_field *v = member(header, 1, "v");
  if (!id || !v || id->type->kind != CTF_TYPE_ENUM || v->type->kind != CTF_TYPE_VARIANT ||
      !v->type->u.variant.tag || strcmp(v->type->u.variant.tag, "id") ||
      v->type->u.variant.option_count != 2)
    return false;
  const struct ctf_type *container = id->type->u.enumeration.container;
  *order = container->u.integer.byte_order;
  if (is_plain_uint(container, 5, 1, *order, false))
    *id_bits = 5, *compact_bits = 27;
  else if (is_plain_uint(container, 16, 8, *order, false))
    *id_bits = 16, *compact_bits = 32;
  else
    return false;
  uint64_t extended_id = (UINT64_C(1) << *id_bits) - 1;
  const struct ctf_type *tag = id->type;
  if (tag->u.enumeration.mapping_count != 2 ||
      strcmp(tag->u.enumeration.mappings[0].label, "compact") ||
      tag->u.enumeration.mappings[0].lower != 0 ||
      tag->u.enumeration.mappings[0].upper != extended_id - 1 ||
      strcmp(tag->u.enumeration.mappings[1].label, "extended") ||
      tag->u.enumeration.mappings[1].lower != extended_id ||
      tag->u.enumeration.mappings[1].upper != extended_id)
    return false;
  const struct ctf_field *compact = &v->type->u.variant.options[0];
  const struct ctf_field *extended = &v->type->u.variant.options[1];
  if (strcmp(compact->raw_name, "compact") || strcmp(extended->raw_name, "extended") ||
      compact->type->kind != CTF_TYPE_STRUCT || extended->type->kind != CTF_TYPE_STRUCT ||
      compact->type->u.structure.field_count != 1 ||
      extended->type->u.structure.field_count != 2)
    return false;
  const struct ctf_field *compact_time = member(compact->type, 0, "timestamp");
  const struct ctf_field *extended_id_field = member(extended->type, 0, "id");
  const struct ctf_field *extended_time = member(extended->type, 1, "timestamp");
  return compact_time && extended_id_field && extended_time &&
         is_plain_uint(compact_time->type, *compact_bits, *compact_bits == 27 ? 1 : 8, *order,
                       true) &&
         is_plain_uint(extended_id_field->type, 32, 8, *order, false) &&
         is_plain_uint(extended_time->type, 64, 8, *order, true) &&
         compact_time->type->u.integer.mapped_clock ==
             extended_time->type->u.integer.mapped_clock;
}

static enum ctf_status compile_lttng_header(struct compiler *c, const struct ctf_type *type,
                                            uint32_t id_bits, uint32_t compact_bits,
                                            enum ctf_byte_order order) {
  const struct ctf_field *id = &type->u.structure.fields[0];
  int32_t self = add_symbol(c, id->raw_name, -1 - (int32_t)c->scope, id->type);
  struct ctf_op *op = self < 0 ? NULL : emit(c, CTF_OP_LTTNG_HEADER, type, -1);
  if (!op)
    return no_memory(c);
  op->alignment = 8;
  op->size = id_bits;
  op->count = compact_bits;
  op->reg = (uint32_t)c->symbols[self].reg;
  op->flags = CTF_OPF_EVENT_ID | CTF_OPF_CLOCK |
              (order == CTF_BYTE_ORDER_BE ? CTF_OPF_BIG_ENDIAN : 0);
  return CTF_OK;
}

static uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

/* Compiles a scope's struct into a plan in the arena. */
static enum ctf_status compile_scope(struct compiler *c, enum scope_id scope,
                                     const struct ctf_type *type, const struct ctf_plan **out) {
  *out = NULL;
  if (!type)
    return CTF_OK;
  c->scope = scope;
  c->op_count = 0;
  c->range_count = 0;
  size_t field_count = type->u.structure.field_count;
  uint32_t id_bits, compact_bits;
  enum ctf_byte_order order;
  if (scope == SCOPE_EVENT_HEADER && is_lttng_header(type, &id_bits, &compact_bits, &order)) {
    enum ctf_status status = compile_lttng_header(c, type, id_bits, compact_bits, order);
    if (status != CTF_OK)
      return status;
  } else {
    for (size_t i = 0; i < field_count; i++) {
      const struct ctf_field *field = &type->u.structure.fields[i];
      enum ctf_status status = compile_field(c, field, field->type, (int32_t)i, -1 - scope);
      if (status != CTF_OK)
        return status;
    }
  }
  struct ctf_arena *arena = c->md->arena;
  struct ctf_plan *plan = ctf_arena_alloc(arena, sizeof *plan);
  struct ctf_op *ops = ctf_arena_grow(arena, c->ops, c->op_count, c->op_count + 1, sizeof *ops);
  struct ctf_variant_range *ranges =
      ctf_arena_grow(arena, c->ranges, c->range_count, c->range_count + 1, sizeof *ranges);
  int64_t *offsets = ctf_arena_alloc(arena, (field_count + 1) * sizeof *offsets);
  if (!plan || !ops || !ranges || !offsets)
    return no_memory(c);
  /* Static offsets hold while every field before has a fixed size: the scope starts
   * aligned to its largest member alignment, which every member alignment divides. */
  uint64_t offset = 0;
  bool fixed = true;
  for (size_t i = 0; i < field_count; i++) {
    const struct ctf_type *member = type->u.structure.fields[i].type;
    if (fixed && member->kind != CTF_TYPE_VARIANT) {
      offset = align_up(offset, member->alignment ? member->alignment : 1);
      offsets[i] = (int64_t)offset;
      if (member->size >= 0)
        offset += (uint64_t)member->size;
      else
        fixed = false;
    } else {
      fixed = false;
      offsets[i] = -1;
    }
  }
  plan->ops = ops;
  plan->op_count = (uint32_t)c->op_count;
  plan->ranges = ranges;
  plan->type = type;
  plan->field_count = field_count;
  plan->field_offsets = offsets;
  plan->fixed_size = type->size;
  plan->alignment = type->alignment ? type->alignment : 1;
  plan->needs_walk = type->size < 0;
  plan->flat = type->size >= 0;
  for (size_t i = 0; i < c->op_count; i++) {
    struct ctf_op *op = &ops[i];
    if (op->flags & (CTF_OPF_CLOCK | CTF_OPF_EVENT_ID))
      plan->needs_walk = true;
    bool fixed_scalar = op->kind == CTF_OP_INT_BYTES || op->kind == CTF_OP_FLOAT ||
                        (op->kind == CTF_OP_BLOB && !(op->flags & CTF_OPF_COUNT_IN_REGISTER));
    if (!fixed_scalar || op->slot < 0 || offsets[op->slot] < 0 ||
        (op->flags & (CTF_OPF_CLOCK | CTF_OPF_EVENT_ID)))
      plan->flat = false;
    else
      op->offset = (uint64_t)offsets[op->slot];
  }
  *out = plan;
  return CTF_OK;
}

/* The first clock an integer of the event header maps to. */
static const struct ctf_clock_class *header_clock(const struct ctf_type *type) {
  if (!type)
    return NULL;
  switch (type->kind) {
  case CTF_TYPE_INTEGER:
    return type->u.integer.mapped_clock;
  case CTF_TYPE_ENUM:
    return header_clock(type->u.enumeration.container);
  case CTF_TYPE_STRUCT:
    for (size_t i = 0; i < type->u.structure.field_count; i++) {
      const struct ctf_clock_class *clock = header_clock(type->u.structure.fields[i].type);
      if (clock)
        return clock;
    }
    return NULL;
  case CTF_TYPE_VARIANT:
    for (size_t i = 0; i < type->u.variant.option_count; i++) {
      const struct ctf_clock_class *clock = header_clock(type->u.variant.options[i].type);
      if (clock)
        return clock;
    }
    return NULL;
  default:
    return NULL;
  }
}

static int compare_event_ids(const void *a, const void *b) {
  const struct ctf_event_class_private *x = *(const struct ctf_event_class_private *const *)a;
  const struct ctf_event_class_private *y = *(const struct ctf_event_class_private *const *)b;
  return x->pub.id < y->pub.id ? -1 : x->pub.id > y->pub.id;
}

/* Event classes by id: a direct table for the usual small dense ids, else sorted. */
static enum ctf_status build_id_table(struct compiler *c, struct ctf_stream_class_private *sc) {
  struct ctf_metadata *md = c->md;
  size_t count = 0;
  uint64_t max_id = 0;
  for (size_t i = 0; i < md->event_class_count; i++)
    if (md->event_classes[i]->pub.stream_class == &sc->pub) {
      count++;
      if (md->event_classes[i]->pub.id > max_id)
        max_id = md->event_classes[i]->pub.id;
    }
  if (!count)
    return CTF_OK;
  bool dense = max_id < 65536 || max_id < 4 * (uint64_t)count;
  size_t slots = dense ? (size_t)max_id + 1 : count;
  struct ctf_event_class_private **table =
      ctf_arena_alloc(md->arena, slots * sizeof *table);
  if (!table)
    return no_memory(c);
  size_t filled = 0;
  for (size_t i = 0; i < md->event_class_count; i++) {
    struct ctf_event_class_private *ec = md->event_classes[i];
    if (ec->pub.stream_class != &sc->pub)
      continue;
    size_t at = dense ? (size_t)ec->pub.id : filled;
    if (dense && table[at]) {
      c->where = "-";
      return ctf_fail(c->error, CTF_ERR_METADATA, "Cannot use metadata: file=%s: events %s "
                                                  "and %s have the same id=%llu",
                      md->file, table[at]->pub.name, ec->pub.name,
                      (unsigned long long)ec->pub.id);
    }
    table[at] = ec;
    filled++;
  }
  if (!dense) {
    qsort(table, count, sizeof *table, compare_event_ids);
    for (size_t i = 1; i < count; i++)
      if (table[i]->pub.id == table[i - 1]->pub.id)
        return ctf_fail(c->error, CTF_ERR_METADATA, "Cannot use metadata: file=%s: events "
                                                    "%s and %s have the same id=%llu",
                        md->file, table[i - 1]->pub.name, table[i]->pub.name,
                        (unsigned long long)table[i]->pub.id);
  }
  sc->events_by_id = table;
  sc->events_by_id_count = slots;
  sc->events_sorted = !dense;
  return CTF_OK;
}

static enum ctf_status compile_stream_class(struct compiler *c,
                                            struct ctf_stream_class_private *sc) {
  struct ctf_metadata *md = c->md;
  char where[64];
  snprintf(where, sizeof where, "stream=%llu", (unsigned long long)sc->pub.id);
  c->where = where;
  enum ctf_status status =
      compile_scope(c, SCOPE_PACKET_CONTEXT, sc->pub.packet_context, &sc->packet_context_plan);
  if (status == CTF_OK)
    status = compile_scope(c, SCOPE_EVENT_HEADER, sc->pub.event_header, &sc->event_header_plan);
  if (status == CTF_OK)
    status = compile_scope(c, SCOPE_STREAM_EVENT_CONTEXT, sc->pub.event_context,
                           &sc->event_context_plan);
  if (status != CTF_OK)
    return status;
  sc->pub.clock = header_clock(sc->pub.event_header);
  size_t symbols = c->symbol_count;
  uint32_t registers = c->next_register;
  size_t most_registers = registers;
  for (size_t i = 0; i < md->event_class_count; i++) {
    struct ctf_event_class_private *ec = md->event_classes[i];
    if (ec->pub.stream_class != &sc->pub)
      continue;
    char event_where[512];
    snprintf(event_where, sizeof event_where, "event=%s", ec->pub.name);
    c->where = event_where;
    c->symbol_count = symbols;
    c->next_register = registers;
    status = compile_scope(c, SCOPE_EVENT_CONTEXT, ec->pub.context, &ec->context_plan);
    if (status == CTF_OK)
      status = compile_scope(c, SCOPE_EVENT_PAYLOAD, ec->pub.payload, &ec->payload_plan);
    if (status != CTF_OK)
      return status;
    ec->pub.internal = ec;
    if (c->next_register > most_registers)
      most_registers = c->next_register;
    if (ec->pub.context && ec->pub.context->u.structure.field_count > sc->event_context_capacity)
      sc->event_context_capacity = ec->pub.context->u.structure.field_count;
  }
  sc->register_count = most_registers;
  c->where = where;
  return build_id_table(c, sc);
}

enum ctf_status ctf_plan_compile_metadata(struct ctf_metadata *metadata,
                                          const struct ctf_plan **packet_header_plan,
                                          size_t *packet_header_registers,
                                          struct ctf_error *error) {
  struct compiler c = {.md = metadata, .error = error, .where = "trace"};
  enum ctf_status status =
      compile_scope(&c, SCOPE_PACKET_HEADER, metadata->packet_header, packet_header_plan);
  *packet_header_registers = c.next_register;
  size_t symbols = c.symbol_count;
  uint32_t registers = c.next_register;
  for (size_t i = 0; i < metadata->stream_class_count && status == CTF_OK; i++) {
    c.symbol_count = symbols;
    c.next_register = registers;
    status = compile_stream_class(&c, metadata->stream_classes[i]);
  }
  free(c.ops);
  free(c.ranges);
  free(c.symbols);
  return status;
}
