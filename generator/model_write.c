/* model_write: the model as YAML, through libyaml's event emitter. */
#include "model_write.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct writer {
  yaml_emitter_t emitter;
  struct strbuf out;
  int failed;
};

static int write_handler(void *data, unsigned char *buffer, size_t size) {
  struct writer *w = data;
  strbuf_addn(&w->out, (const char *)buffer, size);
  return 1;
}

static void emit(struct writer *w, yaml_event_t *ev) {
  if (!w->failed && !yaml_emitter_emit(&w->emitter, ev))
    w->failed = 1;
}

static void scalar(struct writer *w, const char *s) {
  yaml_event_t ev;
  yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                               YAML_ANY_SCALAR_STYLE);
  emit(w, &ev);
}

/* A string that YAML would read as another type (true, 12, null) is quoted. */
static void string(struct writer *w, const char *s) {
  yaml_event_t ev;
  bool plain_ok = *s && strcmp(s, "true") && strcmp(s, "false") && strcmp(s, "null") &&
                  strcmp(s, "~") && strcmp(s, "yes") && strcmp(s, "no") &&
                  !(s[0] >= '0' && s[0] <= '9') && s[0] != '-' && s[0] != '+' && s[0] != '.';
  yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), plain_ok,
                               1, plain_ok ? YAML_ANY_SCALAR_STYLE
                                                  : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
  emit(w, &ev);
}

static void key_string(struct writer *w, const char *k, const char *v) {
  scalar(w, k);
  string(w, v);
}

static void key_int(struct writer *w, const char *k, int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%" PRId64, v);
  scalar(w, k);
  scalar(w, buf);
}

static void key_uint(struct writer *w, const char *k, uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%" PRIu64, v);
  scalar(w, k);
  scalar(w, buf);
}

static void key_true(struct writer *w, const char *k) {
  scalar(w, k);
  scalar(w, "true");
}

static void map_start(struct writer *w, bool flow) {
  yaml_event_t ev;
  yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                      flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
  emit(w, &ev);
}

static void map_end(struct writer *w) {
  yaml_event_t ev;
  yaml_mapping_end_event_initialize(&ev);
  emit(w, &ev);
}

static void seq_start(struct writer *w, bool flow) {
  yaml_event_t ev;
  yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                       flow ? YAML_FLOW_SEQUENCE_STYLE
                                            : YAML_BLOCK_SEQUENCE_STYLE);
  emit(w, &ev);
}

static void seq_end(struct writer *w) {
  yaml_event_t ev;
  yaml_sequence_end_event_initialize(&ev);
  emit(w, &ev);
}

/* A type in one flow mapping: {type: .., canonical: .., kind: .., size: .., ...}. */
static void write_type(struct writer *w, const struct model_type *t) {
  map_start(w, true);
  key_string(w, "type", t->spelling);
  if (strcmp(t->canonical, t->spelling) != 0)
    key_string(w, "canonical", t->canonical);
  key_string(w, "kind", model_kind_name(t->kind));
  if (t->size >= 0)
    key_int(w, "size", t->size);
  if (t->is_signed)
    key_true(w, "signed");
  if (t->is_const)
    key_true(w, "const");
  if (t->handle)
    key_true(w, "handle");
  if (t->ref && strcmp(t->ref, t->spelling) != 0)
    key_string(w, "ref", t->ref);
  if (t->kind == MODEL_KIND_ARRAY && t->count >= 0)
    key_int(w, "count", t->count);
  if (t->target) {
    scalar(w, "target");
    write_type(w, t->target);
  }
  map_end(w);
}

static void write_from(struct writer *w, const char *key, const char *value,
                       enum model_source from) {
  scalar(w, key);
  map_start(w, true);
  if (value)
    key_string(w, "length", value);
  key_string(w, "from", model_source_name(from));
  map_end(w);
}

static void write_param(struct writer *w, const struct model_param *p, bool with_roles) {
  map_start(w, false);
  key_string(w, "name", p->name);
  key_string(w, "decl", p->decl);
  scalar(w, "type");
  write_type(w, p->type);
  if (with_roles) {
    key_string(w, "role", model_direction_name(p->direction));
    key_string(w, "role_from", model_source_name(p->direction_from));
    if (p->length)
      write_from(w, "array", p->length, p->length_from);
    if (p->string)
      write_from(w, "string", NULL, p->string_from);
    if (p->type->handle)
      write_from(w, "handle", NULL, p->type->handle_from_spec ? MODEL_FROM_SPEC : MODEL_FROM_C);
    if (p->optional)
      write_from(w, "optional", NULL, p->optional_from);
  }
  map_end(w);
}

static void write_params(struct writer *w, const struct ptrvec *params, bool with_roles) {
  scalar(w, "params");
  seq_start(w, params->len == 0);
  for (size_t i = 0; i < params->len; i++)
    write_param(w, params->items[i], with_roles);
  seq_end(w);
}

static void write_values(struct writer *w, const char *k, const struct ptrvec *values) {
  scalar(w, k);
  seq_start(w, true);
  for (size_t i = 0; i < values->len; i++) {
    char *v = xasprintf("%" PRId64, *(const int64_t *)values->items[i]);
    scalar(w, v);
    free(v);
  }
  seq_end(w);
}

/* Ranges of statuses as [LOW, HIGH] pairs; nothing when there are none. */
static void write_ranges(struct writer *w, const char *k, const struct ptrvec *ranges) {
  if (ranges->len == 0)
    return;
  scalar(w, k);
  seq_start(w, true);
  for (size_t i = 0; i < ranges->len; i++) {
    const struct model_range *r = ranges->items[i];
    seq_start(w, true);
    char *low = xasprintf("%" PRId64, r->low), *high = xasprintf("%" PRId64, r->high);
    scalar(w, low);
    scalar(w, high);
    free(low);
    free(high);
    seq_end(w);
  }
  seq_end(w);
}

/* status: {from: result | param, param: NAME, success: [..], not_ready: [..],
 * success_ranges: [[LOW, HIGH]..], errors: [[LOW, HIGH]..], is_error: FUNCTION} */
static void write_status(struct writer *w, const struct model_status *st) {
  scalar(w, "status");
  map_start(w, true);
  key_string(w, "from", st->param ? "param" : "result");
  if (st->param)
    key_string(w, "param", st->param);
  write_values(w, "success", &st->success);
  write_values(w, "not_ready", &st->not_ready);
  write_ranges(w, "success_ranges", &st->success_ranges);
  write_ranges(w, "errors", &st->errors);
  if (st->is_error)
    key_string(w, "is_error", st->is_error);
  map_end(w);
}

static void write_functions(struct writer *w, const struct model *m) {
  scalar(w, "functions");
  seq_start(w, m->functions.len == 0);
  for (size_t i = 0; i < m->functions.len; i++) {
    const struct model_function *f = m->functions.items[i];
    map_start(w, false);
    key_string(w, "name", f->name);
    key_string(w, "header", f->header);
    key_string(w, "prototype", f->prototype);
    scalar(w, "result");
    write_type(w, f->result);
    if (f->variadic)
      key_true(w, "variadic");
    if (!f->has_prototype) {
      scalar(w, "prototyped");
      scalar(w, "false");
    }
    if (f->has_macro)
      key_true(w, "macro");
    if (f->defined)
      key_true(w, "defined");
    if (f->written)
      key_string(w, "written", f->written);
    write_params(w, &f->params, true);
    if (f->status)
      write_status(w, f->status);
    map_end(w);
  }
  seq_end(w);
}

static void write_function_pointers(struct writer *w, const struct model *m) {
  scalar(w, "function_pointers");
  seq_start(w, m->function_pointers.len == 0);
  for (size_t i = 0; i < m->function_pointers.len; i++) {
    const struct model_function_pointer *f = m->function_pointers.items[i];
    map_start(w, false);
    key_string(w, "name", f->name);
    scalar(w, "type");
    write_type(w, f->type);
    scalar(w, "result");
    write_type(w, f->result);
    if (f->variadic)
      key_true(w, "variadic");
    write_params(w, &f->params, true);
    map_end(w);
  }
  seq_end(w);
}

static void write_typedefs(struct writer *w, const struct model *m) {
  scalar(w, "typedefs");
  seq_start(w, m->typedefs.len == 0);
  for (size_t i = 0; i < m->typedefs.len; i++) {
    const struct model_typedef *t = m->typedefs.items[i];
    map_start(w, false);
    key_string(w, "name", t->name);
    scalar(w, "type");
    write_type(w, t->type);
    map_end(w);
  }
  seq_end(w);
}

static void write_enums(struct writer *w, const struct model *m) {
  scalar(w, "enums");
  seq_start(w, m->enums.len == 0);
  for (size_t i = 0; i < m->enums.len; i++) {
    const struct model_enum *e = m->enums.items[i];
    map_start(w, false);
    key_string(w, "name", e->name);
    if (e->tag)
      key_string(w, "tag", e->tag);
    key_string(w, "underlying", e->underlying);
    if (e->size >= 0)
      key_int(w, "size", e->size);
    scalar(w, "constants");
    seq_start(w, e->constants.len == 0);
    for (size_t k = 0; k < e->constants.len; k++) {
      const struct model_enum_constant *c = e->constants.items[k];
      map_start(w, true);
      key_string(w, "name", c->name);
      if (e->is_signed)
        key_int(w, "value", c->value);
      else
        key_uint(w, "value", c->uvalue);
      map_end(w);
    }
    seq_end(w);
    map_end(w);
  }
  seq_end(w);
}

static void write_fields(struct writer *w, const struct model_record *r) {
  scalar(w, "fields");
  seq_start(w, r->fields.len == 0);
  for (size_t i = 0; i < r->fields.len; i++) {
    const struct model_field *f = r->fields.items[i];
    map_start(w, false);
    if (f->name)
      key_string(w, "name", f->name);
    else
      key_true(w, "anonymous");
    if (f->decl)
      key_string(w, "decl", f->decl);
    scalar(w, "type");
    write_type(w, f->type);
    key_int(w, "offset", f->offset);
    if (f->size >= 0)
      key_int(w, "size", f->size);
    if (f->bit_width >= 0) {
      key_int(w, "bit_offset", f->bit_offset);
      key_int(w, "bit_width", f->bit_width);
    }
    if (f->members) {
      scalar(w, "members");
      map_start(w, false);
      key_string(w, "kind", f->members->is_union ? "union" : "struct");
      write_fields(w, f->members);
      map_end(w);
    }
    map_end(w);
  }
  seq_end(w);
}

static void write_records(struct writer *w, const struct model *m) {
  scalar(w, "records");
  seq_start(w, m->records.len == 0);
  for (size_t i = 0; i < m->records.len; i++) {
    const struct model_record *r = m->records.items[i];
    map_start(w, false);
    key_string(w, "name", r->name);
    if (r->tag)
      key_string(w, "tag", r->tag);
    key_string(w, "kind", r->is_union ? "union" : "struct");
    if (!r->complete) {
      scalar(w, "complete");
      scalar(w, "false");
    } else {
      key_int(w, "size", r->size);
      key_int(w, "align", r->align);
      write_fields(w, r);
    }
    map_end(w);
  }
  seq_end(w);
}

static void write_constants(struct writer *w, const struct model *m) {
  scalar(w, "constants");
  seq_start(w, m->constants.len == 0);
  for (size_t i = 0; i < m->constants.len; i++) {
    const struct model_constant *c = m->constants.items[i];
    map_start(w, true);
    key_string(w, "name", c->name);
    key_string(w, "type", c->type);
    if (c->kind == MODEL_CONST_STRING) {
      scalar(w, "string");
      yaml_event_t ev;
      yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)c->string,
                                   (int)strlen(c->string), 0, 1,
                                   YAML_DOUBLE_QUOTED_SCALAR_STYLE);
      emit(w, &ev);
    } else if (c->is_signed) {
      key_int(w, "value", c->value);
    } else {
      key_uint(w, "value", c->uvalue);
    }
    key_string(w, "definition", c->definition);
    map_end(w);
  }
  seq_end(w);
}

/* Written only when there are some, so models of other APIs keep their shape. */
static void write_runtime_macros(struct writer *w, const struct model *m) {
  if (m->runtime_macros.len == 0)
    return;
  scalar(w, "runtime_macros");
  seq_start(w, false);
  for (size_t i = 0; i < m->runtime_macros.len; i++) {
    const struct model_runtime_macro *r = m->runtime_macros.items[i];
    map_start(w, true);
    key_string(w, "name", r->name);
    key_string(w, "definition", r->definition);
    key_string(w, "header", r->header);
    key_int(w, "line", r->line);
    map_end(w);
  }
  seq_end(w);
}

static void write_counts(struct writer *w, const struct model *m) {
  scalar(w, "counts");
  map_start(w, true);
  key_int(w, "functions", (int64_t)m->functions.len);
  key_int(w, "function_pointers", (int64_t)m->function_pointers.len);
  key_int(w, "typedefs", (int64_t)m->typedefs.len);
  key_int(w, "enums", (int64_t)m->enums.len);
  key_int(w, "records", (int64_t)m->records.len);
  key_int(w, "constants", (int64_t)m->constants.len);
  map_end(w);
}

char *model_write_yaml(const struct model *m, struct diag *d) {
  struct writer w;
  memset(&w, 0, sizeof w);
  strbuf_init(&w.out);
  strbuf_addf(&w.out,
              "# Generated by apigen from %s. DO NOT EDIT.\n"
              "# Regenerate with: apigen --spec %s\n",
              m->spec_path, m->spec_path);
  yaml_emitter_initialize(&w.emitter);
  yaml_emitter_set_output(&w.emitter, write_handler, &w);
  yaml_emitter_set_width(&w.emitter, -1);
  yaml_emitter_set_unicode(&w.emitter, 1);
  yaml_event_t ev;
  yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
  emit(&w, &ev);
  yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
  emit(&w, &ev);
  map_start(&w, false);
  key_string(&w, "backend", m->backend);
  if (m->description)
    key_string(&w, "description", m->description);
  key_string(&w, "spec", m->spec_path);
  if (m->library)
    key_string(&w, "library", m->library);
  if (m->collector)
    key_string(&w, "collector", m->collector);
  scalar(&w, "headers");
  seq_start(&w, true);
  for (size_t i = 0; i < m->headers.len; i++)
    string(&w, m->headers.items[i]);
  seq_end(&w);
  write_counts(&w, m);
  write_functions(&w, m);
  write_function_pointers(&w, m);
  write_typedefs(&w, m);
  write_enums(&w, m);
  write_records(&w, m);
  write_constants(&w, m);
  write_runtime_macros(&w, m);
  map_end(&w);
  yaml_document_end_event_initialize(&ev, 1);
  emit(&w, &ev);
  yaml_stream_end_event_initialize(&ev);
  emit(&w, &ev);
  yaml_emitter_flush(&w.emitter);
  int failed = w.failed;
  const char *problem = w.emitter.problem;
  char *why = problem ? xstrdup(problem) : NULL;
  yaml_emitter_delete(&w.emitter);
  if (failed) {
    diag_error(d, "Failed to write model: backend=%s, %s", m->backend, why ? why : "emitter error");
    free(why);
    strbuf_free(&w.out);
    return NULL;
  }
  free(why);
  return strbuf_release(&w.out);
}
