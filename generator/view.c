/* view: the model, precomputed for the templates. See view.h. */
#include "view.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_device.h"
#include "view_glue.h"
#include "view_handles.h"
#include "view_events.h"
#include "view_expr.h"
#include "view_fortran.h"
#include "view_messages.h"
#include "view_polls.h"
#include "view_rma_sync.h"
#include "view_record.h"
#include "view_callbacks.h"
#include "view_recording.h"

/* Arrays recorded in full mode are capped so a wrong length cannot flood the trace. */
#define VIEW_MAX_ELEMENTS "TRACER_MAX_ELEMENTS"

struct view {
  const struct model *m;
  const struct spec *s;
  struct diag *d;
  int status;
  const char *upper;  /* the backend's name in capitals */
  const char *prefix; /* of the hook functions: the hooks file's, <prefix>_hooks.c */
  struct view_device *device;
  struct strset tests; /* the library's tests of results that statuses use (is_error) */
};

static const char *stdint_type(int64_t size, bool is_signed) {
  switch (size) {
  case 1: return is_signed ? "int8_t" : "uint8_t";
  case 2: return is_signed ? "int16_t" : "uint16_t";
  case 4: return is_signed ? "int32_t" : "uint32_t";
  case 8: return is_signed ? "int64_t" : "uint64_t";
  }
  return NULL;
}

static bool is_integral(const struct model_type *t) {
  return t->kind == MODEL_KIND_INT || t->kind == MODEL_KIND_ENUM || t->kind == MODEL_KIND_BOOL;
}

static bool is_address(const struct model_type *t) {
  return t->kind == MODEL_KIND_POINTER || t->kind == MODEL_KIND_ARRAY ||
         t->kind == MODEL_KIND_FUNCTION;
}

/* The CTF element type for a value of type t read through a pointer, or NULL. */
static const char *element_type(const struct model_type *t, bool *hex) {
  *hex = false;
  if (is_integral(t))
    return stdint_type(t->size, t->is_signed && t->kind != MODEL_KIND_BOOL);
  if (t->kind == MODEL_KIND_FLOAT)
    return t->size == 4 ? "float" : t->size == 8 ? "double" : NULL;
  if (is_address(t)) {
    *hex = true;
    return "uintptr_t";
  }
  return NULL;
}

/* `char`, however qualified: the element of strings and of the buffers C spells alike. */
static bool is_plain_char(const struct model_type *t) {
  if (t->kind != MODEL_KIND_INT || t->size != 1 || !t->canonical)
    return false;
  const char *c = strncmp(t->canonical, "const ", 6) == 0 ? t->canonical + 6 : t->canonical;
  return strcmp(c, "char") == 0;
}

static bool is_struct(const struct model_type *t) {
  return (t->kind == MODEL_KIND_STRUCT || t->kind == MODEL_KIND_UNION) && t->size > 0;
}

static char *typed_decl(const char *spelling, const char *name);

/* A declaration of a struct member holding the param: arrays decay to pointers, and a
 * top-level const goes (hooks may change any argument). */
static char *member_decl(const struct model_param *p) {
  /* An array typedef (va_list: `struct __va_list_tag[1]` on x86-64) decays to a pointer
   * to a builtin type C cannot spell: take the type from the typedef itself. */
  if (p->type->kind == MODEL_KIND_ARRAY && !strchr(p->type->spelling, '['))
    return xasprintf("__typeof__(&(*(%s *)0)[0]) %s", p->type->spelling, p->name);
  const char *spelling = p->type->spelling;
  size_t n = strlen(spelling);
  if (p->type->is_const && p->type->kind != MODEL_KIND_ARRAY) {
    if (strncmp(spelling, "const ", 6) == 0 && !strchr(spelling, '*'))
      return typed_decl(spelling + 6, p->name);
    if (n > 6 && strcmp(spelling + n - 6, " const") == 0) {
      char *bare = xstrndup(spelling, n - 6);
      char *decl = typed_decl(bare, p->name);
      free(bare);
      return decl;
    }
    /* Any other const scalar (`int *const p`): a cast drops the qualifier. */
    if (p->type->kind == MODEL_KIND_POINTER || is_integral(p->type) ||
        p->type->kind == MODEL_KIND_FLOAT)
      return xasprintf("__typeof__((%s)0) %s", spelling, p->name);
  }
  /* A param of function type (MPICH's MPI_T_event_cb_function) is a pointer to one. */
  if (p->type->kind == MODEL_KIND_FUNCTION)
    return xasprintf("%s *%s", spelling, p->name);
  if (p->type->kind == MODEL_KIND_ARRAY && p->type->target) {
    const char *elem = p->type->target->spelling;
    if (strpbrk(elem, "(["))
      return xasprintf("__typeof__(%s) *%s", elem, p->name);
    return xasprintf("%s *%s", elem, p->name);
  }
  return xstrdup(p->decl);
}

static char *typed_decl(const char *spelling, const char *name) {
  if (strpbrk(spelling, "(["))
    return xasprintf("__typeof__(%s) %s", spelling, name);
  size_t n = strlen(spelling);
  return xasprintf("%s%s%s", spelling, n && spelling[n - 1] == '*' ? "" : " ", name);
}

/* The prototype as a definition: a function-like macro of the same name must not expand
 * in it, so the name goes in parentheses. */
static char *definition_prototype(const struct model_function *f) {
  const char *open = strstr(f->prototype, f->name);
  if (!f->has_macro || !open || open[strlen(f->name)] != '(')
    return xstrdup(f->prototype);
  return xasprintf("%.*s(%s)%s", (int)(open - f->prototype), f->prototype, f->name,
                   open + strlen(f->name));
}

/* The prototype of the function that records a call of f: static, named
 * <backend>_traced_<name>, with the real function and the wrapper's caller ahead of f's
 * own params. */
static char *traced_prototype(const char *backend, const struct model_function *f) {
  /* The name followed by its params: it may also start the result type's name
   * (curl_version_info_data *curl_version_info(CURLversion)). */
  const char *open = strstr(f->prototype, f->name);
  while (open && open[strlen(f->name)] != '(')
    open = strstr(open + 1, f->name);
  if (!open)
    return NULL;
  char *head = xasprintf("static %.*s%s_traced_%s", (int)(open - f->prototype), f->prototype,
                         backend, f->name);
  const char *params = open + strlen(f->name) + 1;
  const char *close = strrchr(params, ')');
  size_t len = close ? (size_t)(close - params) : strlen(params);
  bool none = len == 0 || (len == 4 && strncmp(params, "void", 4) == 0);
  char *out = xasprintf("%s(%s_%s_fn *tracer_real, const void *tracer_caller%s%.*s)%s", head,
                        backend, f->name, none ? "" : ", ", none ? 0 : (int)len, params,
                        close ? close + 1 : "");
  free(head);
  return out;
}

static void add_field(struct tree *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_field(struct tree *list, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = xvasprintf(fmt, ap);
  va_end(ap);
  struct tree *item = tree_push(list, tree_map());
  tree_set_string(item, "field", s);
  free(s);
}

/* A sequence of count elements of type elem at pointer expr. */
static void sequence_field(struct tree *list, const struct model_type *elem, const char *name,
                           const char *ptr, const char *count) {
  bool hex;
  const char *et = element_type(elem, &hex);
  bool single = strstr(count, " ? 1 : 0") != NULL; /* one value behind a pointer */
  if (et && single) {
    add_field(list, "lttng_ust_field_sequence%s(%s, %s, (const %s *)%s, size_t, %s)",
              hex ? "_hex" : "", et, name, et, ptr, count);
  } else if (et) {
    add_field(list,
              "lttng_ust_field_sequence%s(%s, %s, (const %s *)%s, size_t, "
              "tracer_clamp(%s, " VIEW_MAX_ELEMENTS "))",
              hex ? "_hex" : "", et, name, et, ptr, count);
  } else if (is_struct(elem) || elem->kind == MODEL_KIND_VOID) {
    /* Structs travel as bytes, decoded later with the model's layout; the length of a
     * void * array counts bytes. */
    char *bytes = elem->kind == MODEL_KIND_VOID ? xasprintf("%s", count)
                                                : xasprintf("(%s) * sizeof(*%s)", count, ptr);
    add_field(list,
              "lttng_ust_field_sequence_hex(uint8_t, %s, (const uint8_t *)%s, size_t, "
              "tracer_clamp(%s, TRACER_MAX_BYTES))",
              name, ptr, bytes);
    free(bytes);
  }
}

static bool is_in(const struct model_param *p) { return p->direction != MODEL_DIR_OUT; }
static bool is_out(const struct model_param *p) { return p->direction != MODEL_DIR_IN; }

/* What a param points to, full mode: a string, an array of `length` elements, or the
 * bytes of a struct; at entry for what goes in, at exit for what comes out. */
static void param_contents(const struct model_function *f, const struct model_param *p,
                           struct tree *list, bool entry) {
  /* An in-out param has contents at both ends: those after the call take "_out". */
  const char *suffix = !entry && is_in(p) ? "_out" : "";
  const struct model_type *t = p->type;
  const struct model_type *target = t->target;
  bool pointer = t->kind == MODEL_KIND_POINTER && !t->handle && target;
  bool array = (pointer || t->kind == MODEL_KIND_ARRAY) && p->length && target;
  bool wanted = entry ? is_in(p) : is_out(p);
  const char *a = "tracer_args->";
  char *ptr = xasprintf("%s%s", a, p->name);
  if (p->string && pointer && p->length && wanted) {
    /* A string of at most `length` chars: it ends at its NUL or after them, so it need
     * not end in one (a name buffer; ITT's metadata, -1 for "up to the NUL"). */
    char *count = view_length_expr(f, p->length, a);
    add_field(list,
              "lttng_ust_field_sequence_text(char, %s_str%s, (const char *)%s, size_t, "
              "tracer_string_count((const char *)%s, %s))",
              p->name, suffix, ptr, ptr, count);
    free(count);
  } else if (p->string && pointer) {
    if (entry && !p->length)
      add_field(list, "lttng_ust_field_string(%s_str, %s ? %s : \"\")", p->name, ptr, ptr);
  } else if (array && wanted) {
    char *count = view_length_expr(f, p->length, a);
    /* The chars of a buffer: a negative length counts none (tracer_buffer_count). */
    char *guarded = is_plain_char(target)
                        ? xasprintf("tracer_buffer_count((const char *)%s, %s)", ptr, count)
                        : xasprintf("%s ? %s : 0", ptr, count);
    char *name = xasprintf("%s_vals%s", p->name, suffix);
    sequence_field(list, target, name, ptr, guarded);
    free(name);
    free(count);
    free(guarded);
  } else if (pointer && is_struct(target) && wanted) {
    char *count = xasprintf("%s ? 1 : 0", ptr);
    char *name = xasprintf("%s_bytes%s", p->name, suffix);
    sequence_field(list, target, name, ptr, count);
    free(name);
    free(count);
  } else if (is_struct(t) && entry) {
    /* The length is a constant of the event's description: the type's size. */
    add_field(list, "lttng_ust_field_array_hex(uint8_t, %s_bytes, (const uint8_t *)&%s, sizeof(%s))",
              p->name, ptr, t->spelling);
  }
  free(ptr);
}

/* Full mode's fields after the record: what params point to, as passed (strings, arrays,
 * struct bytes; shown with the call's entry), then what the call wrote through them
 * (shown with its exit). See docs/trace-format.md. */
static void build_full_fields(const struct model_function *f, struct tree *fn) {
  struct tree *full = tree_set(fn, "full_fields", tree_list());
  for (size_t i = 0; i < f->params.len; i++)
    param_contents(f, f->params.items[i], full, true);
  size_t entry = full->len;
  tree_set(fn, "full_entry_fields", tree_stringf("%zu", entry));
  for (size_t i = 0; i < f->params.len; i++)
    param_contents(f, f->params.items[i], full, false);
  for (size_t i = 0; i < full->len; i++)
    tree_set_string(full->items[i], "when", i < entry ? "at entry" : "at exit");
}

/* By the function's name or the name its callers write (model_aliases.h). */
static bool matches(const struct ptrvec *patterns, const struct model_function *f) {
  return spec_patterns_match_function((struct ptrvec *)patterns, f->name, f->written);
}

/* The model's status rules as data: `status_success` and `status_not_ready`, lists of
 * {value}, empty for a call without a status. */
static void build_status_values(const struct model_function *f, struct tree *fn) {
  struct tree *success = tree_set(fn, "status_success", tree_list());
  struct tree *not_ready = tree_set(fn, "status_not_ready", tree_list());
  for (size_t i = 0; f->status && i < f->status->success.len; i++)
    tree_set(tree_push(success, tree_map()), "value",
             tree_stringf("INT64_C(%" PRId64 ")", *(int64_t *)f->status->success.items[i]));
  for (size_t i = 0; f->status && i < f->status->not_ready.len; i++)
    tree_set(tree_push(not_ready, tree_map()), "value",
             tree_stringf("INT64_C(%" PRId64 ")", *(int64_t *)f->status->not_ready.items[i]));
  /* The analyses count as errors the statuses in neither list (both empty: the backend's
   * one success value). */
  tree_set(fn, "status_ok_count", tree_stringf("%zu", success->len + not_ready->len));
  struct tree *ranges = tree_set(fn, "status_ranges", tree_list());
  for (int error = 0; error < 2 && f->status; error++) {
    const struct ptrvec *from = error ? &f->status->errors : &f->status->success_ranges;
    for (size_t i = 0; i < from->len; i++) {
      const struct model_range *r = from->items[i];
      struct tree *item = tree_push(ranges, tree_map());
      tree_set(item, "low", r->low == INT64_MIN ? tree_stringf("INT64_MIN")
                                                : tree_stringf("INT64_C(%" PRId64 ")", r->low));
      tree_set(item, "high", r->high == INT64_MAX ? tree_stringf("INT64_MAX")
                                                  : tree_stringf("INT64_C(%" PRId64 ")", r->high));
      tree_set_string(item, "error", error ? "1" : "0");
    }
  }
  tree_set(fn, "status_range_count", tree_stringf("%zu", ranges->len));
  if (f->written)
    tree_set(fn, "written", tree_stringf("\"%s\"", f->written));
  else
    tree_set_string(fn, "written", "NULL");
}

/* The status of a call: its result when it has the status type, else the value of a
 * status out-param, which the wrapper always supplies (the app may pass NULL). */
static void build_status(struct view *v, const struct model_function *f, struct tree *fn) {
  build_status_values(f, fn);
  if (f->status && f->status->is_error) {
    /* The library's own test says whether the result is an error (view_status_tests). */
    strset_add(&v->tests, f->status->is_error);
    tree_set(fn, "status", tree_stringf("%s_status_of_%s(tracer_args.tracer_result)",
                                        v->m->backend, f->status->is_error));
    tree_set(fn, "lean_status_test", tree_stringf("%s_status_of_%s(tracer_result)",
                                                  v->m->backend, f->status->is_error));
    return;
  }
  if (f->status && !f->status->param) {
    tree_set_string(fn, "status", "(int64_t)tracer_args.tracer_result");
    return;
  }
  if (f->status) {
    const struct model_param *p = view_param_named(f, f->status->param, strlen(f->status->param));
    if (p) {
      struct tree *slot = tree_set(fn, "status_slot", tree_map());
      tree_set_string(slot, "param", p->name);
      char *decl = typed_decl(p->type->target->spelling, "tracer_status");
      tree_set_string(slot, "decl", decl);
      free(decl);
      tree_set_string(fn, "status", "(int64_t)*tracer_status_slot");
      return;
    }
  }
  tree_set_string(fn, "status", "0");
}

static struct tree *build_function(struct view *v, const struct model_function *f,
                                   size_t index) {
  struct tree *fn = tree_map();
  const char *b = v->m->backend;
  tree_set_string(fn, "name", f->name);
  tree_set(fn, "index", tree_stringf("%zu", index));
  /* Its id: its index in the backend's table of functions, as a named constant. */
  tree_set(fn, "id", tree_stringf("%s_ID_%s", v->upper, f->name));
  tree_set(fn, "record_type", tree_stringf("%s_%s_record", b, f->name));
  tree_set_string(fn, "header", f->header);
  tree_set_string(fn, "prototype", f->prototype);
  char *definition = definition_prototype(f);
  tree_set_string(fn, "definition", definition);
  free(definition);
  char *traced = traced_prototype(b, f);
  if (!traced)
    v->status = diag_error_at(v->d, v->s->path, 0, 0, "cannot find %s in its prototype: %s",
                              f->name, f->prototype);
  tree_set_string(fn, "traced_prototype", traced ? traced : "");
  free(traced);
  tree_set(fn, "args_type", tree_stringf("%s_%s_args", b, f->name));
  tree_set(fn, "fn_type", tree_stringf("%s_%s_fn", b, f->name));
  bool returns = f->result->kind != MODEL_KIND_VOID;
  tree_set_bool(fn, "returns", returns);
  if (returns) {
    char *decl = typed_decl(f->result->spelling, "tracer_result");
    tree_set_string(fn, "result_member", decl);
    free(decl);
  }
  struct tree *members = tree_set(fn, "members", tree_list());
  struct tree *init = tree_set(fn, "params", tree_list());
  struct strbuf call;
  strbuf_init(&call);
  build_status(v, f, fn);
  const struct tree *slot = tree_get(fn, "status_slot");
  const char *slot_param = slot ? tree_get(slot, "param")->string : NULL;
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    char *decl = member_decl(p);
    tree_set_string(tree_push(members, tree_map()), "decl", decl);
    free(decl);
    tree_set_string(tree_push(init, tree_map()), "name", p->name);
    if (slot_param && strcmp(p->name, slot_param) == 0)
      strbuf_addf(&call, "%stracer_status_slot", i ? ", " : "");
    else
      strbuf_addf(&call, "%stracer_args.%s", i ? ", " : "", p->name);
  }
  struct strbuf direct;
  strbuf_init(&direct);
  for (size_t i = 0; i < f->params.len; i++)
    strbuf_addf(&direct, "%s%s", i ? ", " : "", ((struct model_param *)f->params.items[i])->name);
  tree_set_string(fn, "direct_args", direct.data);
  tree_set_string(fn, "call_args", call.data);
  strbuf_free(&direct);
  strbuf_free(&call);
  build_full_fields(f, fn);
  bool status_is_result = !slot && returns && strcmp(tree_get(fn, "status")->string, "0") != 0;
  struct spec_message *msg = view_message_of(v->s, f);
  struct view_record_extra extra = {0};
  if (msg && view_message_slots(v->s, v->prefix, f, msg, &extra, v->d))
    v->status = -1;
  struct spec_rma_sync *sync = view_rma_sync_of(v->s, f);
  if (sync && view_rma_sync_slots(v->s, f, sync, &extra, v->d))
    v->status = -1;
  /* A call that submits device work or a device collective keeps its stack (the
   * messages with a bus_factor are those whose kernels the collectives report ties). */
  extra.stack = view_device_submits(v->device, f) ||
                (msg && (msg->bus_factor.c || msg->bus_factor.d));
  bool counted = matches(&v->s->trace.counted, f);
  const struct tree *test = tree_get(fn, "lean_status_test");
  const char *lean_status = test ? test->string
                            : returns && strcmp(tree_get(fn, "status")->string, "0")
                                ? "(int64_t)tracer_result"
                                : "0";
  if (view_poll_function(v->s, b, f, lean_status, counted, &extra, fn, v->d))
    v->status = -1;
  view_record_build(f, status_is_result, slot_param, &extra, fn);
  if (extra.before)
    tree_set_string(fn, "message_before", extra.before);
  free((char *)extra.before);
  free((char *)extra.bytes);
  free((char *)extra.world_name);
  free((char *)extra.world);
  free((char *)extra.recv_bytes);
  free((char *)extra.recv_world_name);
  free((char *)extra.recv_world);
  free((char *)extra.polls);
  free((char *)extra.lock_shared);
  free((char *)extra.comm_rank);
  free((char *)extra.comm_size);
  free((char *)extra.comm_id);
  view_message_describe(msg, fn);
  view_rma_sync_describe(sync, fn);
  if (view_group_call(v->s, v->prefix, f, fn, v->d))
    v->status = -1;
  tree_set_string(fn, "status_field", slot ? "status" : status_is_result ? "result" : "");
  bool before = matches(&v->s->trace.before, f);
  bool after = matches(&v->s->trace.after, f);
  tree_set_bool(fn, "hook_before", before);
  tree_set_bool(fn, "hook_after", after);
  view_device_function(v->device, f, fn);
  /* Device machinery that reads the arguments or the status (view_device.c). */
  bool device = tree_get(fn, "command") || tree_get(fn, "allocation") ||
                tree_get(fn, "deallocation") || tree_get(fn, "kernel_named") ||
                tree_get(fn, "drain") || tree_get(fn, "list_created") ||
                tree_get(fn, "lists_executed") || tree_get(fn, "list_reset");
  view_recording_function(v->s, v->prefix, f, fn);
  bool glued = view_glue_function(v->s, f, fn, v->d, &v->status);
  if (counted && (before || after || device || glued || slot))
    v->status =
        diag_error_at(v->d, v->s->path, v->s->trace.loc.line, v->s->trace.loc.column,
                      "trace.counted: %s has hooks, a command, glue or a status param, which "
                      "counted calls do not run: take it out of trace.counted",
                      f->name);
  /* Minimal mode needs no args struct when no hook reads one: its own shorter path. */
  if (!before && !after && !device && !glued && !slot && !extra.stack &&
      !tree_get(fn, "group_predefined")) {
    struct tree *lean = tree_set(fn, "lean", tree_map());
    tree_set_bool(lean, "counted", counted);
    if (returns) {
      char *decl = typed_decl(f->result->spelling, "tracer_result");
      tree_set_string(lean, "result_decl", decl);
      free(decl);
    }
    tree_set_string(lean, "status", lean_status);
  }
  return fn;
}

/* The helpers that ask the library's own test about a result (trace.status.is_error),
 * one per test that a status uses: a test the header defines is called as it is, any
 * other through its real function, which must then be wrapped too. */
static void build_status_tests(struct view *v, const struct model_function **traced,
                               size_t count, struct tree *root) {
  struct tree *tests = tree_set(root, "status_tests", tree_list());
  for (size_t i = 0; i < v->m->functions.len; i++) {
    const struct model_function *f = v->m->functions.items[i];
    if (!strset_has(&v->tests, f->name))
      continue;
    bool wrapped = false;
    for (size_t k = 0; k < count && !wrapped; k++)
      wrapped = traced[k] == f;
    if (!wrapped && !f->defined) {
      v->status = diag_error_at(v->d, v->s->path, v->s->trace.status_loc.line,
                                v->s->trace.status_loc.column,
                                "Cannot use trace.status.is_error=%s: the interposer calls it "
                                "through its wrapper's real function, and the spec leaves it "
                                "unwrapped (trace.exclude)",
                                f->name);
      continue;
    }
    struct tree *item = tree_push(tests, tree_map());
    tree_set_string(item, "name", f->name);
    tree_set(item, "helper", tree_stringf("%s_status_of_%s", v->m->backend, f->name));
    tree_set(item, "fn_type", tree_stringf("%s_%s_fn", v->m->backend, f->name));
    const struct model_param *p = f->params.items[0];
    char *decl = typed_decl(p->type->spelling, "tracer_value");
    tree_set_string(item, "value_decl", decl);
    free(decl);
    tree_set_bool(item, "direct", f->defined);
  }
}

/* `NAME=VALUE` defines become `#define NAME VALUE`. */
static void build_defines(const struct spec *s, struct tree *root) {
  struct tree *defines = tree_set(root, "defines", tree_list());
  for (size_t i = 0; i < s->defines.len; i++) {
    const struct spec_string *def = s->defines.items[i];
    struct tree *item = tree_push(defines, tree_map());
    const char *eq = strchr(def->value, '=');
    char *name = eq ? xstrndup(def->value, (size_t)(eq - def->value)) : xstrdup(def->value);
    tree_set_string(item, "name", name);
    tree_set_string(item, "value", eq ? eq + 1 : "1");
    free(name);
  }
}

static int check_patterns(struct view *v, const struct ptrvec *patterns, const char *what) {
  for (size_t i = 0; i < patterns->len; i++) {
    const struct spec_pattern *p = patterns->items[i];
    if (p->matches == 0)
      v->status = diag_error_at(v->d, v->s->path, p->loc.line, p->loc.column,
                                "Filter matches nothing: %s pattern=%s", what, p->glob);
  }
  return v->status;
}

/* The prefix of the hook functions: the hooks file's name less _hooks.c (the backend's
 * own, or one that several backends share: mpi_hooks.c); the backend's without one. */
static char *hooks_prefix(const struct spec *s, const char *backend) {
  const char *h = s->trace.hooks;
  size_t n = h ? strlen(h) : 0;
  if (n > 8 && strcmp(h + n - 8, "_hooks.c") == 0)
    return xstrndup(h, n - 8);
  return xstrdup(backend);
}

/* The spec's trace section must name what the model has: a library to interpose, a hooks
 * file where CMake builds it (runtime/hooks/<backend>_hooks.c), status params and type. */
static void check_trace(struct view *v) {
  const struct spec *s = v->s;
  const struct spec_trace *t = &s->trace;
  if (!v->m->library && !s->collector)
    v->status = diag_error_at(v->d, s->path, t->loc.line, t->loc.column,
                              "Cannot trace backend=%s: a trace section needs `library`, the "
                              "soname whose functions the interposer wraps, or `collector`",
                              v->m->backend);
  if (t->hooks) {
    char *path = xasprintf("%s/../runtime/hooks/%s", s->dir, t->hooks);
    FILE *f = fopen(path, "r");
    size_t n = strlen(t->hooks);
    if (n <= 8 || strcmp(t->hooks + n - 8, "_hooks.c") != 0 || strchr(t->hooks, '/') || !f)
      v->status = diag_error_at(v->d, s->path, t->loc.line, t->loc.column,
                                "Cannot use hooks=%s: the hooks of backend %s live in "
                                "runtime/hooks/PREFIX_hooks.c%s",
                                t->hooks, v->m->backend, f ? "" : " (not found)");
    if (f)
      fclose(f);
    free(path);
  }
  for (size_t i = 0; i < t->status_params.len; i++) {
    const struct spec_string *sp = t->status_params.items[i];
    bool found = false;
    for (size_t k = 0; k < v->m->functions.len && !found; k++)
      found = view_param_named(v->m->functions.items[k], sp->value, strlen(sp->value)) != NULL;
    if (!found)
      v->status = diag_error_at(v->d, s->path, sp->loc.line, sp->loc.column,
                                "Filter matches nothing: trace.status.params param=%s",
                                sp->value);
  }
  if (t->status_type) {
    bool found = false;
    for (size_t k = 0; k < v->m->functions.len && !found; k++)
      found = strcmp(((struct model_function *)v->m->functions.items[k])->result->spelling,
                     t->status_type) == 0;
    if (!found)
      v->status = diag_error_at(v->d, s->path, t->loc.line, t->loc.column,
                                "Filter matches nothing: no function returns "
                                "trace.status.type=%s",
                                t->status_type);
  }
}

struct tree *view_build(const struct model *m, const struct spec *s, const char *model_path,
                        struct diag *d) {
  char *upper = xstrdup(m->backend);
  for (char *c = upper; *c; c++)
    *c = (char)toupper((unsigned char)*c);
  char *prefix = hooks_prefix(s, m->backend);
  struct view v = {m, s, d, 0, upper, prefix, view_device_new(m, s, d, prefix), {0}};
  check_trace(&v);
  if (view_handles_prepare(m, s, d))
    v.status = -1;
  struct tree *root = tree_map();
  tree_set_string(root, "backend", m->backend);
  tree_set_string(root, "BACKEND", upper);
  tree_set(root, "provider", tree_stringf("lttng_ust_%s", m->backend));
  tree_set_string(root, "spec", s->path);
  tree_set_string(root, "model", model_path);
  tree_set_string(root, "library", m->library ? m->library : "");
  tree_set_string(root, "hooks", s->trace.hooks ? s->trace.hooks : "");
  tree_set_string(root, "hooks_prefix", prefix);
  tree_set_string(root, "device_times_host",
                  s->trace.device_times && strcmp(s->trace.device_times, "host") == 0 ? "1" : "0");
  struct tree *headers = tree_set(root, "headers", tree_list());
  for (size_t i = 0; i < m->headers.len; i++)
    tree_set_string(tree_push(headers, tree_map()), "name", m->headers.items[i]);
  build_defines(s, root);

  struct tree *functions = tree_set(root, "functions", tree_list());
  struct tree *skipped = tree_set(root, "skipped", tree_list());
  size_t index = 0;
  struct ptrvec callbacks = {0};
  view_callbacks_select(m, s, &callbacks);
  const struct model_function **traced =
      xcalloc(m->functions.len + callbacks.len + 1, sizeof *traced);
  for (size_t i = 0; i < m->functions.len; i++) {
    const struct model_function *f = m->functions.items[i];
    bool excluded = matches(&s->trace.exclude, f);
    if (excluded || f->variadic || !f->has_prototype || f->defined) {
      struct tree *item = tree_push(skipped, tree_map());
      tree_set_string(item, "name", f->name);
      tree_set_string(item, "why", f->variadic ? "variadic: its arguments cannot be forwarded"
                                   : !f->has_prototype ? "no prototype"
                                   : excluded          ? "excluded by the spec"
                                                       : "defined in the header (static inline): "
                                                         "no symbol of the library to wrap");
      continue;
    }
    traced[index] = f;
    struct tree *fn = tree_push(functions, build_function(&v, f, index++));
    view_callbacks_function(m, s, f, false, fn, d);
  }
  for (size_t i = 0; i < callbacks.len; i++) {
    traced[index] = callbacks.items[i];
    struct tree *fn = tree_push(functions, build_function(&v, traced[index], index));
    index++;
    if (view_callbacks_function(m, s, callbacks.items[i], true, fn, d))
      v.status = -1;
  }
  if (view_callbacks_rows(m, s, root, traced, index, d))
    v.status = -1;
  build_status_tests(&v, traced, index, root);
  if (view_events(m, s, root, traced, index, d) || view_messages_finish(s, root, d) ||
      view_rma_sync_finish(s, root, d) ||
      view_polls_finish(s, d) || view_fortran(m, s, root, traced, index, d))
    v.status = -1;
  free(traced);
  view_callbacks_free(&callbacks);
  tree_set(root, "function_count", tree_stringf("%zu", index));
  check_patterns(&v, &s->trace.before, "trace.before");
  check_patterns(&v, &s->trace.after, "trace.after");
  check_patterns(&v, &s->trace.exclude, "trace.exclude");
  check_patterns(&v, &s->trace.counted, "trace.counted");
  if (view_recording_root(m, s, prefix, root, d) || view_glue_root(m, s, root, d) ||
      view_handles_root(m, s, root, d))
    v.status = -1;
  if (view_device_finish(v.device, root))
    v.status = -1;
  free(upper);
  free(prefix);
  strset_free(&v.tests);
  if (v.status) {
    tree_free(root);
    return NULL;
  }
  return root;
}
