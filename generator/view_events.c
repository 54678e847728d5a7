/* view_events: event descriptions for the analyses. See view_events.h. */
#include "view_events.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_callbacks.h"

struct events {
  const struct model *m;
  const struct spec *s;
  struct diag *d;
  bool *records_used; /* by model record index */
  int status;
};

static const char *strip_const(const char *s) {
  return str_starts_with(s, "const ") ? s + 6 : s;
}

static int enum_index(const struct model *m, const char *canonical) {
  const char *name = strip_const(canonical);
  for (size_t i = 0; i < m->enums.len; i++) {
    const struct model_enum *e = m->enums.items[i];
    if (strcmp(e->name, name) == 0 && e->constants.len > 0)
      return (int)i;
  }
  return -1;
}

static int record_index(const struct model *m, const char *canonical) {
  const char *name = strip_const(canonical);
  for (size_t i = 0; i < m->records.len; i++) {
    const struct model_record *r = m->records.items[i];
    if (strcmp(r->name, name) == 0 && r->complete && r->size > 0)
      return (int)i;
  }
  return -1;
}

static int compare_names(const void *a, const void *b) {
  const struct model_enum_constant *x = *(const struct model_enum_constant *const *)a;
  const struct model_enum_constant *y = *(const struct model_enum_constant *const *)b;
  if (x->value != y->value)
    return x->value < y->value ? -1 : 1;
  return x < y ? -1 : x > y; /* items point into arrays in header order: first name wins */
}

/* A names table: values sorted, the first name of each value kept. */
static struct tree *names_table(const char *id, const char *type,
                                struct model_enum_constant **items, size_t n) {
  qsort(items, n, sizeof *items, compare_names);
  struct tree *t = tree_map();
  tree_set_string(t, "id", id);
  tree_set_string(t, "type", type);
  struct tree *values = tree_set(t, "values", tree_list());
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && items[i]->value == items[i - 1]->value)
      continue;
    struct tree *v = tree_push(values, tree_map());
    tree_set(v, "value", tree_stringf("INT64_C(%" PRId64 ")", items[i]->value));
    tree_set_string(v, "name", items[i]->name);
    kept++;
  }
  tree_set(t, "count", tree_stringf("%zu", kept));
  return t;
}

static void add_enum_tables(struct events *ev, struct tree *root) {
  struct tree *list = tree_set(root, "names", tree_list());
  for (size_t i = 0; i < ev->m->enums.len; i++) {
    const struct model_enum *e = ev->m->enums.items[i];
    if (e->constants.len == 0)
      continue;
    /* Values are compared as int64: unsigned enums keep their bit pattern. */
    struct model_enum_constant **items = xcalloc(e->constants.len, sizeof *items);
    struct model_enum_constant *copies = xcalloc(e->constants.len, sizeof *copies);
    for (size_t k = 0; k < e->constants.len; k++) {
      const struct model_enum_constant *c = e->constants.items[k];
      copies[k] = *c;
      if (!e->is_signed)
        copies[k].value = (int64_t)c->uvalue;
      items[k] = &copies[k];
    }
    char *id = xasprintf("%s_names_%zu", ev->m->backend, i);
    struct tree *t = names_table(id, e->name, items, e->constants.len);
    tree_push(list, t);
    free(id);
    free(items);
    free(copies);
  }
}

/* Status names: the spec's constant patterns, else the status type's own enum. */
static void add_status(struct events *ev, struct tree *root) {
  const struct spec_trace *t = &ev->s->trace;
  struct ptrvec found = {0};
  struct model_enum_constant *copies =
      xcalloc(ev->m->constants.len ? ev->m->constants.len : 1, sizeof *copies);
  for (size_t i = 0; i < ev->m->constants.len; i++) {
    const struct model_constant *c = ev->m->constants.items[i];
    if (c->kind != MODEL_CONST_INT)
      continue;
    for (size_t k = 0; k < t->status_names.len; k++) {
      struct spec_pattern *p = t->status_names.items[k];
      if (fnmatch(p->glob, c->name, 0) == 0) {
        p->matches++;
        copies[found.len].name = c->name;
        copies[found.len].value = c->is_signed ? c->value : (int64_t)c->uvalue;
        ptrvec_push(&found, &copies[found.len]);
        break;
      }
    }
  }
  for (size_t k = 0; k < t->status_names.len; k++) {
    struct spec_pattern *p = t->status_names.items[k];
    if (p->matches == 0)
      ev->status = diag_error_at(ev->d, ev->s->path, p->loc.line, p->loc.column,
                                 "Filter matches nothing: trace.status.names pattern=%s",
                                 p->glob);
  }
  char *id = xasprintf("%s_status_names", ev->m->backend);
  if (found.len) {
    struct tree *table = names_table(id, t->status_type ? t->status_type : "status",
                                     (struct model_enum_constant **)found.items, found.len);
    tree_set(root, "status_names", table);
    tree_set(root, "status_names_ref", tree_stringf("&%s", id));
  } else if (t->status_type) {
    /* A status type that is an enum names its own values. */
    for (size_t i = 0; i < ev->m->typedefs.len; i++) {
      const struct model_typedef *td = ev->m->typedefs.items[i];
      int e = strcmp(td->name, t->status_type) == 0 ? enum_index(ev->m, td->type->canonical) : -1;
      if (e >= 0)
        tree_set(root, "status_names_ref", tree_stringf("&%s_names_%d", ev->m->backend, e));
    }
  }
  if (!tree_get(root, "status_names_ref"))
    tree_set_string(root, "status_names_ref", "NULL");
  free(id);
  free(copies);
  ptrvec_free(&found);

  /* success: a constant or enum constant name, or an integer. */
  const char *success = t->status_success ? t->status_success : "0";
  char *end;
  errno = 0;
  long long literal = strtoll(success, &end, 0);
  bool resolved = *end == '\0' && errno == 0;
  int64_t value = literal;
  for (size_t i = 0; !resolved && i < ev->m->constants.len; i++) {
    const struct model_constant *c = ev->m->constants.items[i];
    if (c->kind == MODEL_CONST_INT && strcmp(c->name, success) == 0) {
      value = c->is_signed ? c->value : (int64_t)c->uvalue;
      resolved = true;
    }
  }
  for (size_t i = 0; !resolved && i < ev->m->enums.len; i++) {
    const struct model_enum *e = ev->m->enums.items[i];
    for (size_t k = 0; k < e->constants.len && !resolved; k++) {
      const struct model_enum_constant *c = e->constants.items[k];
      if (strcmp(c->name, success) == 0) {
        value = e->is_signed ? c->value : (int64_t)c->uvalue;
        resolved = true;
      }
    }
  }
  if (!resolved)
    ev->status = diag_error_at(ev->d, ev->s->path, t->loc.line, t->loc.column,
                               "Cannot resolve trace.status.success: %s is neither an integer "
                               "nor a constant of the model", success);
  tree_set(root, "success", tree_stringf("INT64_C(%" PRId64 ")", value));
}

static void add_format(struct tree *formats, const char *field, const char *names,
                       const char *record) {
  struct tree *f = tree_push(formats, tree_map());
  tree_set_string(f, "field", field);
  tree_set_string(f, "names", names);
  tree_set_string(f, "record", record);
}

static char *names_ref(struct events *ev, const struct model_type *t) {
  if (!t || (t->kind != MODEL_KIND_ENUM))
    return NULL;
  int e = enum_index(ev->m, t->canonical);
  return e >= 0 ? xasprintf("&%s_names_%d", ev->m->backend, e) : NULL;
}

static char *record_ref(struct events *ev, const struct model_type *t) {
  if (!t || (t->kind != MODEL_KIND_STRUCT && t->kind != MODEL_KIND_UNION))
    return NULL;
  int r = record_index(ev->m, t->canonical);
  if (r < 0)
    return NULL;
  ev->records_used[r] = true;
  return xasprintf("&%s_record_%d", ev->m->backend, r);
}

static bool is_status_param(const struct spec *s, const char *name) {
  for (size_t i = 0; i < s->trace.status_params.len; i++)
    if (strcmp(((struct spec_string *)s->trace.status_params.items[i])->value, name) == 0)
      return true;
  return false;
}

/* A bytes expression that is a plain param name can be read from the call's record. */
static void set_bytes_param(struct tree *fn, const struct model_function *f, const char *expr) {
  for (size_t i = 0; expr && i < f->params.len; i++)
    if (strcmp(((struct model_param *)f->params.items[i])->name, expr) == 0) {
      tree_set(fn, "bytes_param", tree_stringf("\"%s\"", expr));
      return;
    }
  tree_set_string(fn, "bytes_param", "NULL");
}

static void function_meaning(struct events *ev, const struct model_function *f, struct tree *fn) {
  const struct spec_trace *t = &ev->s->trace;
  const char *meaning = "TRACER_MEANING_NONE", *direction = NULL, *bytes = NULL;
  const char *role = "TRACER_ROLE_NONE";
  for (size_t i = 0; i < t->commands.len && !view_is_callback(ev->m, f); i++) {
    const struct spec_command *c = t->commands.items[i];
    if (fnmatch(c->function, f->name, 0) != 0)
      continue;
    meaning = strcmp(c->kind, "kernel") == 0     ? "TRACER_MEANING_KERNEL_LAUNCH"
              : strcmp(c->kind, "transfer") == 0 ? "TRACER_MEANING_TRANSFER"
                                                 : "TRACER_MEANING_COMMAND";
    direction = c->direction;
    bytes = c->bytes;
    break;
  }
  for (size_t i = 0; i < t->calls.len; i++) {
    struct spec_call *c = t->calls.items[i];
    if (fnmatch(c->function, f->name, 0) != 0)
      continue;
    c->matches++;
    if (c->meaning)
      meaning = strcmp(c->meaning, "alloc") == 0         ? "TRACER_MEANING_ALLOC"
                : strcmp(c->meaning, "free") == 0        ? "TRACER_MEANING_FREE"
                : strcmp(c->meaning, "group_begin") == 0 ? "TRACER_MEANING_GROUP_BEGIN"
                : strcmp(c->meaning, "group_end") == 0   ? "TRACER_MEANING_GROUP_END"
                                                         : "TRACER_MEANING_SYNC";
    role = c->setup                                                 ? "TRACER_ROLE_SETUP"
           : c->waits_for && strcmp(c->waits_for, "device") == 0 ? "TRACER_ROLE_WAITS_DEVICE"
           : c->waits_for                                          ? "TRACER_ROLE_WAITS_PEER"
                                                                   : role;
    bytes = c->bytes;
    break;
  }
  tree_set_string(fn, "meaning", meaning);
  tree_set_string(fn, "role", role);
  if (direction)
    tree_set(fn, "direction", tree_stringf("\"%s\"", direction));
  else
    tree_set_string(fn, "direction", "NULL");
  set_bytes_param(fn, f, bytes);
}

static void function_formats(struct events *ev, const struct model_function *f, struct tree *fn,
                             const char *status_names) {
  function_meaning(ev, f, fn);
  struct tree *formats = tree_set(fn, "formats", tree_list());
  const char *field = tree_get(fn, "status_field")->string;
  const char *source = strcmp(field, "result") == 0   ? "TRACER_STATUS_RESULT"
                       : strcmp(field, "status") == 0 ? "TRACER_STATUS_FIELD"
                                                      : "TRACER_STATUS_NONE";
  tree_set_string(fn, "status_source", source);
  if (*field && strcmp(status_names, "NULL") != 0)
    add_format(formats, field, status_names, "NULL");
  else if (f->result->kind == MODEL_KIND_ENUM) {
    char *n = names_ref(ev, f->result);
    if (n)
      add_format(formats, "result", n, "NULL");
    free(n);
  }
  for (size_t i = 0; i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    const struct model_type *t = p->type;
    const struct model_type *target = t->target;
    char *n = names_ref(ev, t);
    if (n)
      add_format(formats, p->name, n, "NULL");
    free(n);
    if (!target || t->handle)
      continue;
    char *val = xasprintf("%s_val", p->name);
    char *vals = xasprintf("%s_vals", p->name);
    char *bytes = xasprintf("%s_bytes", p->name);
    if (is_status_param(ev->s, p->name) && strcmp(status_names, "NULL") != 0) {
      add_format(formats, val, status_names, "NULL");
    } else if ((n = names_ref(ev, target))) {
      add_format(formats, val, n, "NULL");
      add_format(formats, vals, n, "NULL");
      free(n);
    }
    char *r = record_ref(ev, target);
    if (r) {
      add_format(formats, bytes, "NULL", r);
      add_format(formats, vals, "NULL", r);
      free(r);
    }
    free(val);
    free(vals);
    free(bytes);
  }
  tree_set(fn, "format_count", tree_stringf("%zu", formats->len));
}

static void record_members(struct events *ev, const struct model_record *r, const char *prefix,
                           struct tree *members) {
  for (size_t i = 0; i < r->fields.len; i++) {
    const struct model_field *f = r->fields.items[i];
    char *name = f->name ? xasprintf("%s%s", prefix, f->name) : xstrdup(prefix);
    if (f->members) {
      char *inner = f->name ? xasprintf("%s.", name) : xstrdup(prefix);
      record_members(ev, f->members, inner, members);
      free(inner);
      free(name);
      continue;
    }
    const struct model_type *t = f->type;
    const char *kind = NULL;
    if (t->kind == MODEL_KIND_INT || t->kind == MODEL_KIND_ENUM)
      kind = t->is_signed ? "TRACER_MEMBER_SIGNED" : "TRACER_MEMBER_UNSIGNED";
    else if (t->kind == MODEL_KIND_BOOL)
      kind = "TRACER_MEMBER_UNSIGNED";
    else if (t->kind == MODEL_KIND_FLOAT && (t->size == 4 || t->size == 8))
      kind = "TRACER_MEMBER_FLOAT";
    else if (t->kind == MODEL_KIND_POINTER)
      kind = "TRACER_MEMBER_POINTER";
    if (kind && f->name && t->size > 0 && t->size <= 8) {
      struct tree *m = tree_push(members, tree_map());
      tree_set_string(m, "name", name);
      tree_set(m, "offset", tree_stringf("%" PRId64, f->offset));
      tree_set(m, "size", tree_stringf("%" PRId64, t->size));
      tree_set(m, "bit_offset", tree_stringf("%" PRId64, f->bit_width >= 0 ? f->bit_offset : -1));
      tree_set(m, "bit_width", tree_stringf("%d", f->bit_width));
      tree_set_string(m, "kind", kind);
      char *n = names_ref(ev, t);
      tree_set_string(m, "names", n ? n : "NULL");
      free(n);
    }
    free(name);
  }
}

static void add_records(struct events *ev, struct tree *root) {
  struct tree *list = tree_set(root, "records", tree_list());
  for (size_t i = 0; i < ev->m->records.len; i++) {
    if (!ev->records_used[i])
      continue;
    const struct model_record *r = ev->m->records.items[i];
    struct tree *members = tree_list();
    record_members(ev, r, "", members);
    if (members->len == 0) {
      tree_free(members);
      continue;
    }
    struct tree *t = tree_push(list, tree_map());
    tree_set(t, "id", tree_stringf("%s_record_%zu", ev->m->backend, i));
    tree_set_string(t, "name", r->name);
    tree_set(t, "size", tree_stringf("%" PRId64, r->size));
    tree_set(t, "count", tree_stringf("%zu", members->len));
    tree_set(t, "members", members);
  }
}

int view_events(const struct model *m, const struct spec *s, struct tree *root,
                const struct model_function *const *traced, size_t count, struct diag *d) {
  struct events ev = {m, s, d, xcalloc(m->records.len + 1, sizeof(bool)), 0};
  add_enum_tables(&ev, root);
  add_status(&ev, root);
  const char *status_names = tree_get(root, "status_names_ref")->string;
  const struct tree *functions = tree_get(root, "functions");
  for (size_t i = 0; i < count; i++)
    function_formats(&ev, traced[i], functions->items[i], status_names);
  add_records(&ev, root);
  for (size_t i = 0; i < s->trace.calls.len; i++) {
    const struct spec_call *c = s->trace.calls.items[i];
    if (c->matches == 0)
      ev.status = diag_error_at(d, s->path, c->loc.line, c->loc.column,
                                "Filter matches nothing: trace.calls function=%s", c->function);
  }
  /* A record may be listed although no member is describable; formats must then not
   * point at it. */
  for (size_t i = 0; i < count; i++) {
    struct tree *formats = (struct tree *)tree_get(functions->items[i], "formats");
    for (size_t k = 0; k < formats->len; k++) {
      struct tree *rec = (struct tree *)tree_get(formats->items[k], "record");
      if (strcmp(rec->string, "NULL") == 0)
        continue;
      bool listed = false;
      const struct tree *records = tree_get(root, "records");
      for (size_t r = 0; r < records->len && !listed; r++)
        listed = strcmp(rec->string + 1, tree_get(records->items[r], "id")->string) == 0;
      if (!listed) {
        free(rec->string);
        rec->string = xstrdup("NULL");
      }
    }
  }
  free(ev.records_used);
  return ev.status;
}
