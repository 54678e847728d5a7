/* call_args: see call_args.h. */
#include "call_args.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "reader_internal.h"

/* One named slot of a function, as its calls are decoded: its value is the slot's low
 * `size` bytes (mask), sign-extended for a signed type (sign: the top bit kept), as
 * event_map_slot_value() gives it. */
struct named_slot {
  const char *name;
  const struct tracer_names *names; /* the spec's names of its values; NULL: none */
  uint64_t mask, sign;
  int16_t present_if;
  uint8_t index;
  uint8_t kind;                     /* enum tracer_slot_kind */
  enum trace_arg_kind arg_kind;
  /* The last value and its name (NULL: none): most calls return the status of the one
   * before, and the look-up is a search of the spec's names. */
  bool named;
  int64_t named_value;
  const char *named_label;
};

/* A function's named slots, found once (backends_field_format searches by name):
 * direct-mapped by the function's description. */
enum { CACHE_ENTRIES = 512 };
struct function_slots {
  const struct tracer_function_desc *fd;
  size_t count;
  struct named_slot slots[READER_MAX_ARGS];
};

struct call_args {
  struct function_slots entries[CACHE_ENTRIES];
};

struct call_args *call_args_new(void) { return calloc(1, sizeof(struct call_args)); }

void call_args_free(struct call_args *cache) { free(cache); }

/* The first READER_MAX_ARGS slots of the record, those with a name. */
static struct function_slots *slots_of(struct call_args *cache,
                                       const struct tracer_function_desc *fd) {
  struct function_slots *f = &cache->entries[((uintptr_t)fd / sizeof *fd) % CACHE_ENTRIES];
  if (f->fd == fd)
    return f;
  f->fd = fd;
  f->count = 0;
  for (uint32_t k = 0; k < fd->slot_count && k < READER_MAX_ARGS; k++) {
    const struct tracer_slot *slot = &fd->slots[k];
    if (!slot->name)
      continue;
    const struct tracer_field_format *format =
        backends_field_format(fd, slot->name, strlen(slot->name));
    struct named_slot *n = &f->slots[f->count++];
    *n = (struct named_slot){.name = slot->name, .names = format ? format->names : NULL,
                             .mask = ~UINT64_C(0), .present_if = slot->present_if,
                             .index = slot->index, .kind = slot->kind};
    if (slot->size < 8) {
      n->mask = (UINT64_C(1) << (8 * slot->size)) - 1;
      n->sign = slot->kind == TRACER_SLOT_SIGNED && slot->size ? UINT64_C(1) << (8 * slot->size - 1)
                                                               : 0;
    }
    switch (slot->kind) {
    case TRACER_SLOT_SIGNED: n->arg_kind = TRACE_ARG_INT; break;
    case TRACER_SLOT_UNSIGNED: n->arg_kind = TRACE_ARG_UINT; break;
    case TRACER_SLOT_ADDRESS: n->arg_kind = TRACE_ARG_POINTER; break;
    default: n->arg_kind = TRACE_ARG_DOUBLE; break;
    }
  }
  return f;
}

static const char *value_name(struct named_slot *s, int64_t value) {
  if (!s->named || s->named_value != value) {
    s->named = true;
    s->named_value = value;
    s->named_label = backends_value_name(s->names, value);
  }
  return s->named_label;
}

void call_args_add(struct call_args *cache, const struct tracer_function_desc *fd,
                   const uint64_t *slots, size_t n, struct trace_arg *args, size_t *count,
                   size_t max) {
  struct function_slots *f = slots_of(cache, fd);
  size_t at = *count;
  for (size_t k = 0; k < f->count && at < max; k++) {
    struct named_slot *s = &f->slots[k];
    if (s->index >= n || (s->present_if >= 0 && (size_t)s->present_if < n &&
                          slots[s->present_if] == 0))
      continue;
    struct trace_arg *a = &args[at++];
    a->name = s->name;
    uint64_t raw = slots[s->index], value = raw & s->mask;
    if (value & s->sign)
      value |= ~s->mask;
    const char *label = s->names ? value_name(s, (int64_t)value) : NULL;
    if (label) {
      a->kind = TRACE_ARG_STRING;
      a->v.s = label;
      continue;
    }
    a->kind = s->arg_kind;
    if (s->kind == TRACER_SLOT_FLOAT) {
      float fl;
      uint32_t bits = (uint32_t)raw;
      memcpy(&fl, &bits, sizeof fl);
      a->v.d = fl;
    } else { /* an address and a double as recorded, an integer as its type has it */
      a->v.u = s->kind == TRACER_SLOT_ADDRESS || s->kind == TRACER_SLOT_DOUBLE ? raw : value;
    }
  }
  *count = at;
}
