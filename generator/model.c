/* model: names of enum values as written in model.yaml, and freeing the model tree. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

const char *model_kind_name(enum model_kind k) {
  switch (k) {
  case MODEL_KIND_VOID: return "void";
  case MODEL_KIND_BOOL: return "bool";
  case MODEL_KIND_INT: return "integer";
  case MODEL_KIND_FLOAT: return "float";
  case MODEL_KIND_ENUM: return "enum";
  case MODEL_KIND_POINTER: return "pointer";
  case MODEL_KIND_ARRAY: return "array";
  case MODEL_KIND_STRUCT: return "struct";
  case MODEL_KIND_UNION: return "union";
  case MODEL_KIND_FUNCTION: return "function";
  case MODEL_KIND_OTHER: return "other";
  }
  return "other";
}

const char *model_direction_name(enum model_direction d) {
  switch (d) {
  case MODEL_DIR_IN: return "in";
  case MODEL_DIR_OUT: return "out";
  case MODEL_DIR_INOUT: return "in-out";
  }
  return "in";
}

const char *model_source_name(enum model_source s) {
  switch (s) {
  case MODEL_FROM_DEFAULT: return "default";
  case MODEL_FROM_C: return "c";
  case MODEL_FROM_DOC: return "doc";
  case MODEL_FROM_SPEC: return "spec";
  }
  return "default";
}

void model_type_free(struct model_type *t) {
  if (!t)
    return;
  free(t->spelling);
  free(t->canonical);
  free(t->ref);
  model_type_free(t->target);
  free(t);
}

void model_param_free(struct model_param *p) {
  if (!p)
    return;
  free(p->name);
  free(p->decl);
  free(p->length);
  model_type_free(p->type);
  free(p);
}

static void free_params(struct ptrvec *v) {
  for (size_t i = 0; i < v->len; i++)
    model_param_free(v->items[i]);
  ptrvec_free(v);
}

void model_record_free(struct model_record *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->fields.len; i++) {
    struct model_field *f = r->fields.items[i];
    free(f->name);
    free(f->decl);
    model_type_free(f->type);
    model_record_free(f->members);
    free(f);
  }
  ptrvec_free(&r->fields);
  free(r->name);
  free(r->tag);
  free(r);
}

void model_free(struct model *m) {
  free(m->backend);
  free(m->description);
  free(m->library);
  free(m->collector);
  free(m->spec_path);
  for (size_t i = 0; i < m->headers.len; i++)
    free(m->headers.items[i]);
  ptrvec_free(&m->headers);
  for (size_t i = 0; i < m->functions.len; i++) {
    struct model_function *f = m->functions.items[i];
    free(f->name);
    free(f->header);
    free(f->prototype);
    model_type_free(f->result);
    free_params(&f->params);
    if (f->status) {
      free(f->status->param);
      for (size_t k = 0; k < f->status->success.len; k++)
        free(f->status->success.items[k]);
      for (size_t k = 0; k < f->status->not_ready.len; k++)
        free(f->status->not_ready.items[k]);
      for (size_t k = 0; k < f->status->success_ranges.len; k++)
        free(f->status->success_ranges.items[k]);
      for (size_t k = 0; k < f->status->errors.len; k++)
        free(f->status->errors.items[k]);
      ptrvec_free(&f->status->success);
      ptrvec_free(&f->status->not_ready);
      ptrvec_free(&f->status->success_ranges);
      ptrvec_free(&f->status->errors);
      free(f->status->is_error);
      free(f->status);
    }
    free(f->written);
    free(f);
  }
  ptrvec_free(&m->functions);
  for (size_t i = 0; i < m->function_pointers.len; i++) {
    struct model_function_pointer *f = m->function_pointers.items[i];
    free(f->name);
    model_type_free(f->type);
    model_type_free(f->result);
    free_params(&f->params);
    free(f);
  }
  ptrvec_free(&m->function_pointers);
  for (size_t i = 0; i < m->typedefs.len; i++) {
    struct model_typedef *t = m->typedefs.items[i];
    free(t->name);
    model_type_free(t->type);
    free(t);
  }
  ptrvec_free(&m->typedefs);
  for (size_t i = 0; i < m->enums.len; i++) {
    struct model_enum *e = m->enums.items[i];
    for (size_t k = 0; k < e->constants.len; k++) {
      struct model_enum_constant *c = e->constants.items[k];
      free(c->name);
      free(c);
    }
    ptrvec_free(&e->constants);
    free(e->name);
    free(e->tag);
    free(e->underlying);
    free(e);
  }
  ptrvec_free(&m->enums);
  for (size_t i = 0; i < m->records.len; i++)
    model_record_free(m->records.items[i]);
  ptrvec_free(&m->records);
  for (size_t i = 0; i < m->constants.len; i++) {
    struct model_constant *c = m->constants.items[i];
    free(c->name);
    free(c->type);
    free(c->string);
    free(c->definition);
    free(c);
  }
  ptrvec_free(&m->constants);
  for (size_t i = 0; i < m->runtime_macros.len; i++) {
    struct model_runtime_macro *r = m->runtime_macros.items[i];
    free(r->name);
    free(r->definition);
    free(r->header);
    free(r);
  }
  ptrvec_free(&m->runtime_macros);
}

const struct model_function *model_function_named(const struct model *m, const char *name) {
  for (size_t i = 0; i < m->functions.len; i++) {
    const struct model_function *f = m->functions.items[i];
    if (strcmp(f->name, name) == 0)
      return f;
  }
  return NULL;
}

bool model_has_enumerator(const struct model *m, const char *name) {
  for (size_t i = 0; i < m->enums.len; i++) {
    const struct model_enum *e = m->enums.items[i];
    for (size_t k = 0; k < e->constants.len; k++)
      if (strcmp(((const struct model_enum_constant *)e->constants.items[k])->name, name) == 0)
        return true;
  }
  return false;
}

bool model_has_constant(const struct model *m, const char *name) {
  for (size_t i = 0; i < m->constants.len; i++)
    if (strcmp(((const struct model_constant *)m->constants.items[i])->name, name) == 0)
      return true;
  return model_has_enumerator(m, name);
}
