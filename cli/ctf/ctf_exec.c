/* ctf_exec.c: runs compiled plans over packet bytes. This is the hot path: every op
 * is one bounds check, one load and a few register writes; nothing here allocates. */
#include "ctf_internal.h"

#include <string.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
enum { HOST_IS_BIG_ENDIAN = 0 };
#else
enum { HOST_IS_BIG_ENDIAN = 1 };
#endif

static const char NOT_IN_PACKET[] = "the field does not fit before the end of the data";
static const char UNTERMINATED[] = "the string has no NUL before the end of the data";
static const char NO_OPTION[] = "the variant's tag selects none of its options";
static const char TOO_LONG[] = "the array or sequence does not fit before the end of the data";

static inline uint64_t align_up(uint64_t value, uint32_t alignment) {
  return (value + alignment - 1) & ~(uint64_t)(alignment - 1);
}

/* A byte-aligned integer of 8, 16, 32 or 64 bits. */
static inline uint64_t read_whole_bytes(const uint8_t *p, uint32_t size, bool big_endian) {
  bool swap = big_endian != (bool)HOST_IS_BIG_ENDIAN;
  switch (size) {
  case 8:
    return p[0];
  case 16: {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap16(v) : v;
  }
  case 32: {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap32(v) : v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap64(v) : v;
  }
  }
}

/* Any integer up to 64 bits at any bit position. In little-endian data bit 0 of a byte
 * is its least significant bit; in big-endian data, its most significant. */
static uint64_t read_bits(const uint8_t *data, uint64_t position, uint32_t size,
                          bool big_endian) {
  const uint8_t *p = data + (position >> 3);
  uint32_t shift = (uint32_t)(position & 7);
  uint32_t bytes = (shift + size + 7) / 8;   /* at most 9 */
  unsigned __int128 raw = 0;
  if (big_endian) {
    for (uint32_t i = 0; i < bytes; i++)
      raw = raw << 8 | p[i];
    raw >>= bytes * 8 - shift - size;
  } else {
    for (uint32_t i = bytes; i-- > 0;)
      raw = raw << 8 | p[i];
    raw >>= shift;
  }
  uint64_t value = (uint64_t)raw;
  return size == 64 ? value : value & ((UINT64_C(1) << size) - 1);
}

static inline uint64_t sign_extend(uint64_t value, uint32_t size) {
  if (size >= 64)
    return value;
  uint32_t unused = 64 - size;
  return (uint64_t)((int64_t)(value << unused) >> unused);
}

static double bits_to_double(uint64_t bits, uint32_t size) {
  if (size == 32) {
    uint32_t narrow = (uint32_t)bits;
    float value;
    memcpy(&value, &narrow, sizeof value);
    return value;
  }
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

void ctf_exec_read_scalar(const struct ctf_type *type, const uint8_t *data, uint64_t position,
                          struct ctf_value *value) {
  value->type = type;
  if (type->kind == CTF_TYPE_FLOAT) {
    uint32_t size = (uint32_t)type->size;
    bool big = type->u.floating.byte_order == CTF_BYTE_ORDER_BE;
    uint64_t bits = position % 8 == 0 ? read_whole_bytes(data + position / 8, size, big)
                                      : read_bits(data, position, size, big);
    value->kind = CTF_VALUE_FLOAT;
    value->u.f = bits_to_double(bits, size);
    return;
  }
  const struct ctf_type *integer =
      type->kind == CTF_TYPE_ENUM ? type->u.enumeration.container : type;
  uint32_t size = integer->u.integer.size;
  bool big = integer->u.integer.byte_order == CTF_BYTE_ORDER_BE;
  uint64_t bits = position % 8 == 0 && size % 8 == 0 && (size & (size - 1)) == 0
                      ? read_whole_bytes(data + position / 8, size, big)
                      : read_bits(data, position, size, big);
  if (integer->u.integer.is_signed) {
    value->kind = CTF_VALUE_SIGNED;
    value->u.u = sign_extend(bits, size);
  } else {
    value->kind = CTF_VALUE_UNSIGNED;
    value->u.u = bits;
  }
}

/* Event ids and clock updates: rare enough per op to keep out of the main switch. */
static void apply_meaning(struct ctf_exec *x, const struct ctf_op *op, uint64_t value) {
  if (op->flags & CTF_OPF_EVENT_ID)
    x->event_id = value;
  if (op->flags & CTF_OPF_CLOCK)
    x->clock = ctf_clock_extend(x->clock, value, op->size);
}

static const struct ctf_variant_range *select_option(const struct ctf_plan *plan,
                                                     const struct ctf_op *op, uint64_t tag) {
  const struct ctf_variant_range *range = &plan->ranges[op->first];
  for (uint64_t i = 0; i < op->count; i++, range++) {
    bool inside = op->flags & CTF_OPF_SIGNED ? (int64_t)range->lower <= (int64_t)tag &&
                                                   (int64_t)tag <= (int64_t)range->upper
                                             : range->lower <= tag && tag <= range->upper;
    if (inside)
      return range;
  }
  return NULL;
}

/* A whole LTTng compact or large event header (CTF_OP_LTTNG_HEADER): its id and time;
 * false when it does not fit before limit. */
static inline bool lttng_header(const struct ctf_op *op, struct ctf_exec *x,
                                const uint8_t *data, uint64_t limit, uint64_t *at) {
  uint64_t position = *at;
  bool big = op->flags & CTF_OPF_BIG_ENDIAN;
  const uint8_t *p = data + (position >> 3);
  uint64_t left = position > limit ? 0 : limit - position;
  uint64_t tag, id, time;
  uint32_t time_bits;
  if (op->size == 5) {   /* compact: 5-bit id, 27-bit time, in one 32-bit word */
    if (left < 32)
      return false;
    uint64_t word = read_whole_bytes(p, 32, big);
    tag = id = big ? word >> 27 : word & 31;
    time = big ? word & ((UINT64_C(1) << 27) - 1) : word >> 5;
    time_bits = 27;
    position += 32;
    if (id == 31) {      /* extended: 32-bit id and 64-bit time from the next byte */
      if (left < 104)
        return false;
      id = read_whole_bytes(p + 1, 32, big);
      time = read_whole_bytes(p + 5, 64, big);
      time_bits = 64;
      position += 72;
    }
  } else {               /* large: 16-bit id, 32-bit time */
    if (left < 48)
      return false;
    tag = id = read_whole_bytes(p, 16, big);
    time = read_whole_bytes(p + 2, 32, big);
    time_bits = 32;
    position += 48;
    if (id == 65535) {
      if (left < 112)
        return false;
      id = read_whole_bytes(p + 2, 32, big);
      time = read_whole_bytes(p + 6, 64, big);
      time_bits = 64;
      position += 64;
    }
  }
  x->registers[op->reg] = tag;   /* the `id` enum: 31 or 65535 when extended */
  x->event_id = id;
  x->clock = ctf_clock_extend(x->clock, time, time_bits);
  *at = position;
  return true;
}

enum ctf_status ctf_exec_run(const struct ctf_plan *plan, uint32_t begin, uint32_t end,
                             struct ctf_exec *x) {
  const struct ctf_op *ops = plan->ops;
  const uint8_t *data = x->data;
  uint64_t limit = x->end;
  uint64_t position = x->position;
  struct ctf_value *values = x->values;
  for (uint32_t i = begin; i < end; i++) {
    const struct ctf_op *op = &ops[i];
    position = align_up(position, op->alignment);
    switch ((enum ctf_op_kind)op->kind) {
    case CTF_OP_INT_BYTES:
    case CTF_OP_INT_BITS: {
      if (position > limit || limit - position < op->size)
        goto not_in_packet;
      bool big = op->flags & CTF_OPF_BIG_ENDIAN;
      uint64_t value = op->kind == CTF_OP_INT_BYTES
                           ? read_whole_bytes(data + (position >> 3), op->size, big)
                           : read_bits(data, position, op->size, big);
      position += op->size;
      if (op->flags & CTF_OPF_SIGNED)
        value = sign_extend(value, op->size);
      x->registers[op->reg] = value;
      if (__builtin_expect(op->flags & (CTF_OPF_EVENT_ID | CTF_OPF_CLOCK), 0))
        apply_meaning(x, op, value);
      if (values && op->slot >= 0) {
        struct ctf_value *v = &values[op->slot];
        v->kind = op->flags & CTF_OPF_SIGNED ? CTF_VALUE_SIGNED : CTF_VALUE_UNSIGNED;
        v->type = op->type;
        v->u.u = value;
      }
      break;
    }
    case CTF_OP_FLOAT: {
      if (position > limit || limit - position < op->size)
        goto not_in_packet;
      if (values && op->slot >= 0)
        ctf_exec_read_scalar(op->type, data, position, &values[op->slot]);
      position += op->size;
      break;
    }
    case CTF_OP_STRING: {
      if (position >= limit)
        goto not_in_packet;
      const uint8_t *start = data + (position >> 3);
      const uint8_t *nul = memchr(start, 0, (limit - position) >> 3);
      if (!nul) {
        x->position = position;
        x->failure = UNTERMINATED;
        return CTF_ERR_DATA;
      }
      if (values && op->slot >= 0) {
        struct ctf_value *v = &values[op->slot];
        v->kind = CTF_VALUE_STRING;
        v->type = op->type;
        v->u.string.chars = (const char *)((uintptr_t)start + x->persist);
        v->u.string.length = (size_t)(nul - start);
      }
      position += (uint64_t)(nul - start + 1) * 8;
      break;
    }
    case CTF_OP_BLOB: {
      uint64_t count = op->flags & CTF_OPF_COUNT_IN_REGISTER ? x->registers[op->reg] : op->count;
      uint64_t bits = 0;
      if (count && op->element_size) {   /* elements of 0 bits (empty structs) take none */
        if (position > limit || (count - 1) > (limit - position) / op->size)
          goto too_long;
        bits = (count - 1) * op->size + op->element_size;
        if (limit - position < bits)
          goto too_long;
      }
      if (values && op->slot >= 0) {
        struct ctf_value *v = &values[op->slot];
        v->kind = CTF_VALUE_ARRAY;
        v->type = op->type;
        v->u.array.data = data + (position >> 3);
        v->u.array.bit = (uint32_t)(position & 7);
        v->u.array.count = count;
        v->u.array.element = op->type->kind == CTF_TYPE_SEQUENCE
                                 ? op->type->u.sequence.element
                                 : op->type->u.array.element;
        v->u.array.stride = op->size;
        v->u.array.end = data + (limit >> 3);
      }
      position += bits;
      break;
    }
    case CTF_OP_LOOP: {
      uint64_t count = op->flags & CTF_OPF_COUNT_IN_REGISTER ? x->registers[op->reg] : op->count;
      /* Elements of a variable size may still be empty; bound the work anyway. */
      if (position > limit || count > limit - position + 1)
        goto too_long;
      if (values && op->slot >= 0) {
        struct ctf_value *v = &values[op->slot];
        v->kind = CTF_VALUE_ARRAY;
        v->type = op->type;
        v->u.array.data = data + (position >> 3);
        v->u.array.bit = (uint32_t)(position & 7);
        v->u.array.count = count;
        v->u.array.element = op->type->kind == CTF_TYPE_SEQUENCE
                                 ? op->type->u.sequence.element
                                 : op->type->u.array.element;
        v->u.array.stride = 0;
        v->u.array.end = data + (limit >> 3);
      }
      /* Nested ops never write values: only top-level fields have slots. */
      x->values = NULL;
      for (uint64_t k = 0; k < count; k++) {
        x->position = position;
        enum ctf_status status = ctf_exec_run(plan, i + 1, op->next, x);
        if (status != CTF_OK) {
          x->values = values;
          return status;
        }
        position = x->position;
      }
      x->values = values;
      i = op->next - 1;
      break;
    }
    case CTF_OP_STRUCT:
      if (position > limit)
        goto not_in_packet;
      if (values && op->slot >= 0) {
        struct ctf_value *v = &values[op->slot];
        v->kind = CTF_VALUE_STRUCT;
        v->type = op->type;
        v->u.compound.data = data + (position >> 3);
        v->u.compound.bit = (uint32_t)(position & 7);
        v->u.compound.option = 0;
        v->u.compound.end = data + (limit >> 3);
      }
      break;   /* members follow as ordinary ops */
    case CTF_OP_LTTNG_HEADER:
      if (!lttng_header(op, x, data, limit, &position))
        goto not_in_packet;
      break;
    case CTF_OP_VARIANT: {
      const struct ctf_variant_range *range = select_option(plan, op, x->registers[op->reg]);
      if (!range) {
        x->position = position;
        x->failure = NO_OPTION;
        return CTF_ERR_DATA;
      }
      if (values && op->slot >= 0) {
        struct ctf_value *v = &values[op->slot];
        v->kind = CTF_VALUE_VARIANT;
        v->type = op->type;
        v->u.compound.data = data + (position >> 3);
        v->u.compound.bit = (uint32_t)(position & 7);
        v->u.compound.option = range->option;
        v->u.compound.end = data + (limit >> 3);
      }
      x->position = position;
      x->values = NULL;
      enum ctf_status status = ctf_exec_run(plan, range->begin, range->end, x);
      x->values = values;
      if (status != CTF_OK)
        return status;
      position = x->position;
      i = op->next - 1;
      break;
    }
    }
  }
  x->position = position;
  return CTF_OK;

not_in_packet:
  x->position = position;
  x->failure = NOT_IN_PACKET;
  return CTF_ERR_DATA;
too_long:
  x->position = position;
  x->failure = TOO_LONG;
  return CTF_ERR_DATA;
}

/* A flat scope: every field at a static offset, so one bounds check covers them all. */
static void run_flat(const struct ctf_plan *plan, struct ctf_exec *x, uint64_t start) {
  const uint8_t *data = x->data;
  struct ctf_value *values = x->values;
  for (uint32_t i = 0; i < plan->op_count; i++) {
    const struct ctf_op *op = &plan->ops[i];
    uint64_t position = start + op->offset;
    if (op->kind == CTF_OP_INT_BYTES) {
      uint64_t value =
          read_whole_bytes(data + (position >> 3), op->size, op->flags & CTF_OPF_BIG_ENDIAN);
      if (op->flags & CTF_OPF_SIGNED)
        value = sign_extend(value, op->size);
      x->registers[op->reg] = value;
      if (values) {
        struct ctf_value *v = &values[op->slot];
        v->kind = op->flags & CTF_OPF_SIGNED ? CTF_VALUE_SIGNED : CTF_VALUE_UNSIGNED;
        v->type = op->type;
        v->u.u = value;
      }
    } else if (!values) {
      continue;
    } else if (op->kind == CTF_OP_FLOAT) {
      ctf_exec_read_scalar(op->type, data, position, &values[op->slot]);
    } else {   /* CTF_OP_BLOB with a static count */
      struct ctf_value *v = &values[op->slot];
      v->kind = CTF_VALUE_ARRAY;
      v->type = op->type;
      v->u.array.data = data + (position >> 3);
      v->u.array.bit = (uint32_t)(position & 7);
      v->u.array.count = op->count;
      v->u.array.element = op->type->u.array.element;
      v->u.array.stride = op->size;
      v->u.array.end = data + (x->end >> 3);
    }
  }
}

enum ctf_status ctf_exec_scope(const struct ctf_plan *plan, struct ctf_exec *x) {
  x->position = align_up(x->position, plan->alignment);
  if (plan->flat || (!x->values && !plan->needs_walk)) {
    uint64_t size = (uint64_t)plan->fixed_size;
    if (x->position > x->end || x->end - x->position < size)
      return ctf_exec_run(plan, 0, plan->op_count, x);   /* fails at the field that ends past */
    if (plan->flat && (x->values || plan->needs_walk))
      run_flat(plan, x, x->position);
    x->position += size;
    return CTF_OK;
  }
  return ctf_exec_run(plan, 0, plan->op_count, x);
}

enum ctf_status ctf_exec_event_header(const struct ctf_plan *plan, struct ctf_exec *x) {
  /* LTTng's headers: one fused op, read here without the interpreter's loop. */
  if (plan->op_count == 1 && plan->ops[0].kind == CTF_OP_LTTNG_HEADER && !x->values) {
    const struct ctf_op *op = &plan->ops[0];
    uint64_t position = align_up(align_up(x->position, plan->alignment), op->alignment);
    if (lttng_header(op, x, x->data, x->end, &position)) {
      x->position = position;
      return CTF_OK;
    }
  }
  return ctf_exec_scope(plan, x);
}
