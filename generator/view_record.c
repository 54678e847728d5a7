/* view_record: see view_record.h. */
#include "view_record.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

enum { RECORD_HEAD = 4, STATUS_SLOT = 3 };

struct slot_type {
  const char *kind; /* TRACER_SLOT_* */
  int64_t size;
  const char *convert_open, *convert_close; /* C around an expression: its slot value */
};

/* How a value of type t goes into a slot; false for what no slot holds (structs by value,
 * long double). */
static bool slot_type_of(const struct model_type *t, struct slot_type *out) {
  switch (t->kind) {
  case MODEL_KIND_INT:
  case MODEL_KIND_ENUM:
  case MODEL_KIND_BOOL:
    if (t->size < 1 || t->size > 8)
      return false;
    if (t->is_signed && t->kind != MODEL_KIND_BOOL)
      *out = (struct slot_type){"TRACER_SLOT_SIGNED", t->size, "(uint64_t)(int64_t)(", ")"};
    else
      *out = (struct slot_type){"TRACER_SLOT_UNSIGNED", t->size, "(uint64_t)(", ")"};
    return true;
  case MODEL_KIND_FLOAT:
    if (t->size == 4)
      *out = (struct slot_type){"TRACER_SLOT_FLOAT", 4, "tracer_slot_float(", ")"};
    else if (t->size == 8)
      *out = (struct slot_type){"TRACER_SLOT_DOUBLE", 8, "tracer_slot_double(", ")"};
    else
      return false;
    return true;
  case MODEL_KIND_POINTER:
  case MODEL_KIND_ARRAY:
  case MODEL_KIND_FUNCTION:
    *out = (struct slot_type){"TRACER_SLOT_ADDRESS", 8, "(uint64_t)(uintptr_t)(", ")"};
    return true;
  default: return false;
  }
}

struct record {
  struct tree *fn, *in, *out, *slots, *members;
  struct strset names; /* the record struct's member names so far */
  size_t length;
};

static void describe(struct record *r, const char *name, size_t index, const struct slot_type *st,
                     bool at_exit, long present_if) {
  struct tree *s = tree_push(r->slots, tree_map());
  tree_set_string(s, "name", name);
  tree_set(s, "index", tree_stringf("%zu", index));
  tree_set(s, "size", tree_stringf("%lld", (long long)st->size));
  tree_set_string(s, "kind", st->kind);
  tree_set_string(s, "at_exit", at_exit ? "1" : "0");
  tree_set(s, "present_if", tree_stringf("%ld", present_if));
}

static size_t add_slot(struct record *r, struct tree *fill, const char *name,
                       const struct slot_type *st, const char *value, bool at_exit,
                       long present_if) {
  size_t index = r->length++;
  /* The slot's member of the record struct, by the slot's name; a name taken already (the
   * head's, a param named like a slot the spec adds) gets the slot's index. */
  char *member = strset_add(&r->names, name) ? xstrdup(name) : xasprintf("%s_%zu", name, index);
  strset_add(&r->names, member);
  tree_set_string(tree_push(r->members, tree_map()), "name", member);
  struct tree *item = tree_push(fill, tree_map());
  tree_set(item, "index", tree_stringf("%zu", index));
  tree_set_string(item, "member", member);
  tree_set_string(item, "value", value);
  free(member);
  describe(r, name, index, st, at_exit, present_if);
  return index;
}

/* An out-pointer to one scalar, whose value the call writes: default mode records it. */
static bool is_single_out(const struct model_param *p, struct slot_type *st) {
  const struct model_type *t = p->type;
  return t->kind == MODEL_KIND_POINTER && !t->handle && t->target && !p->length &&
         p->direction != MODEL_DIR_IN && !p->string && slot_type_of(t->target, st);
}

void view_record_build(const struct model_function *f, bool status_in_head,
                       const char *status_param, const struct view_record_extra *extra,
                       struct tree *fn) {
  struct record r = {fn,
                     tree_set(fn, "in_slots", tree_list()),
                     tree_set(fn, "out_slots", tree_list()),
                     tree_set(fn, "slots", tree_list()),
                     tree_set(fn, "record_members", tree_list()),
                     {0},
                     RECORD_HEAD};
  strset_add(&r.names, "head");
  tree_set_bool(fn, "stack", extra && extra->stack);
  if (extra && extra->stack) {
    struct slot_type stack = {"TRACER_SLOT_UNSIGNED", 8, "", ""};
    size_t at = add_slot(&r, r.out, "stack", &stack, "tracer_stack", true, -1);
    tree_set(fn, "stack_slot", tree_stringf("%zu", at));
  } else {
    tree_set_string(fn, "stack_slot", "0");
  }
  long *param_slot = xcalloc(f->params.len + 1, sizeof *param_slot);
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    struct slot_type st;
    param_slot[i] = -1;
    if (!slot_type_of(p->type, &st))
      continue;
    char *value = xasprintf("%stracer_args.%s%s", st.convert_open, p->name, st.convert_close);
    param_slot[i] = (long)add_slot(&r, r.in, p->name, &st, value, false, -1);
    free(value);
  }
  for (size_t i = 0; extra && extra->value_in && i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    struct slot_type st;
    if (strcmp(p->name, extra->value_in) != 0 || p->type->kind != MODEL_KIND_POINTER ||
        !p->type->target || !slot_type_of(p->type->target, &st))
      continue;
    char *name = xasprintf("%s_in", p->name);
    char *value = xasprintf("tracer_args.%s ? %s*tracer_args.%s%s : 0", p->name, st.convert_open,
                            p->name, st.convert_close);
    add_slot(&r, r.in, name, &st, value, false, param_slot[i]);
    free(name);
    free(value);
  }
  struct slot_type result;
  if (f->result->kind != MODEL_KIND_VOID && slot_type_of(f->result, &result)) {
    bool packed = status_in_head && result.size <= 4 && strcmp(result.kind, "TRACER_SLOT_FLOAT") &&
                  strcmp(result.kind, "TRACER_SLOT_ADDRESS");
    if (packed) {
      describe(&r, "result", STATUS_SLOT, &result, true, -1);
    } else {
      char *value =
          xasprintf("%stracer_args.tracer_result%s", result.convert_open, result.convert_close);
      add_slot(&r, r.out, "result", &result, value, true, -1);
      free(value);
    }
  }
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    struct slot_type st;
    if (status_param && strcmp(p->name, status_param) == 0) {
      /* The status, also packed in the head; its value as the app sees it follows. */
      struct slot_type status;
      if (slot_type_of(p->type->target, &status)) {
        status.size = status.size < 4 ? status.size : 4;
        describe(&r, "status", STATUS_SLOT, &status, true, -1);
      }
    }
    if (!is_single_out(p, &st))
      continue;
    char *name = xasprintf("%s_val", p->name);
    char *value = xasprintf("tracer_args.%s ? %s*tracer_args.%s%s : 0", p->name, st.convert_open,
                            p->name, st.convert_close);
    add_slot(&r, r.out, name, &st, value, true, param_slot[i]);
    free(name);
    free(value);
  }
  if (extra && extra->bytes) {
    struct slot_type bytes = {"TRACER_SLOT_UNSIGNED", 8, "", ""};
    add_slot(&r, r.out, "bytes", &bytes, extra->bytes, true, -1);
  }
  if (extra && extra->world) {
    struct slot_type world = {"TRACER_SLOT_SIGNED", 8, "", ""};
    char *value = xasprintf("(uint64_t)%s", extra->world);
    add_slot(&r, r.out, extra->world_name, &world, value, true, -1);
    free(value);
  }
  if (extra && extra->recv_bytes) {
    struct slot_type bytes = {"TRACER_SLOT_UNSIGNED", 8, "", ""};
    add_slot(&r, r.out, "recv_bytes", &bytes, extra->recv_bytes, true, -1);
  }
  if (extra && extra->recv_world) {
    struct slot_type world = {"TRACER_SLOT_SIGNED", 8, "", ""};
    char *value = xasprintf("(uint64_t)%s", extra->recv_world);
    add_slot(&r, r.out, extra->recv_world_name, &world, value, true, -1);
    free(value);
  }
  if (extra && extra->lock_shared) {
    struct slot_type shared = {"TRACER_SLOT_UNSIGNED", 8, "", ""};
    char *value = xasprintf("(uint64_t)%s", extra->lock_shared);
    add_slot(&r, r.out, "lock_shared", &shared, value, true, -1);
    free(value);
  }
  if (extra && extra->polls) {
    struct slot_type polls = {"TRACER_SLOT_UNSIGNED", 8, "", ""};
    add_slot(&r, r.out, "polls", &polls, extra->polls, true, -1);
  }
  const char *comm_names[] = {"comm_rank", "comm_size"};
  const char *comm_values[] = {extra ? extra->comm_rank : NULL, extra ? extra->comm_size : NULL};
  for (size_t i = 0; i < 2; i++) {
    if (!comm_values[i])
      continue;
    struct slot_type signed_slot = {"TRACER_SLOT_SIGNED", 8, "", ""};
    char *value = xasprintf("(uint64_t)%s", comm_values[i]);
    add_slot(&r, r.out, comm_names[i], &signed_slot, value, true, -1);
    free(value);
  }
  if (extra && extra->comm_id) {
    struct slot_type unsigned_slot = {"TRACER_SLOT_UNSIGNED", 8, "", ""};
    char *value = xasprintf("(uint64_t)%s", extra->comm_id);
    add_slot(&r, r.out, "comm_id", &unsigned_slot, value, true, -1);
    free(value);
  }
  free(param_slot);
  tree_set(fn, "record_length", tree_stringf("%zu", r.length));
  tree_set(fn, "slot_count", tree_stringf("%zu", r.slots->len));
  strset_free(&r.names);
}

int view_record_slot_index(const struct tree *fn, const char *name) {
  const struct tree *slots = tree_get(fn, "slots");
  for (size_t i = 0; name && slots && i < slots->len; i++)
    if (strcmp(tree_get(slots->items[i], "name")->string, name) == 0)
      return atoi(tree_get(slots->items[i], "index")->string);
  return -1;
}
