/* model_check: the compile-time exactness check of a model, as C source. */
#include "model_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "translation_unit.h"
#include "util.h"
#include "yamldoc.h"

struct check {
  struct yamldoc *y;
  struct diag *d;
  unsigned missing; /* required keys absent: the program would prove nothing */
  struct strbuf src;    /* declarations and static assertions */
  struct strbuf runtime; /* statements of main() */
  unsigned functions, typedefs, function_pointers, enum_constants, records, fields,
      bit_fields, constants;
};

static const char *get(struct check *c, yaml_node_t *map, const char *key) {
  return yamldoc_scalar(yamldoc_get(c->y, map, key));
}

static yaml_node_t *seq(struct check *c, yaml_node_t *map, const char *key) {
  yaml_node_t *n = yamldoc_get(c->y, map, key);
  return n && n->type == YAML_SEQUENCE_NODE ? n : NULL;
}

/* The spelling of a type mapping {type: ...}. */
static const char *type_of(struct check *c, yaml_node_t *map, const char *key) {
  return get(c, yamldoc_get(c->y, map, key), "type");
}

/* A value the program cannot be written without. A model that lacks it (hand-edited or
 * not apigen's) is a located error, never a NULL to print or parse (a crash found by
 * tests/fuzz/fuzz_model_check.c); "" stands in so the walk can report every one. */
static const char *need(struct check *c, yaml_node_t *map, const char *key) {
  const char *v = get(c, map, key);
  if (v)
    return v;
  c->missing++;
  yamldoc_error(c->y, map, c->d, "Cannot read model entry: key=%s (missing or not a string)",
                key);
  return "";
}

static const char *need_type(struct check *c, yaml_node_t *map, const char *key) {
  yaml_node_t *t = yamldoc_get(c->y, map, key);
  return t ? need(c, t, "type") : need(c, map, key);
}

static bool anonymous(const char *spelling) {
  return !spelling || strstr(spelling, "(anonymous)") != NULL;
}

/* An integer literal C reads back as the same value: suffixed, and INT64_MIN spelled out. */
static char *int_literal(const char *text) {
  if (text[0] == '-') {
    if (strcmp(text, "-9223372036854775808") == 0)
      return xstrdup("(-9223372036854775807LL - 1)");
    return xasprintf("(%sLL)", text);
  }
  return xasprintf("%sULL", text);
}

static char *c_string_literal(const char *s) {
  struct strbuf sb;
  strbuf_init(&sb);
  strbuf_add(&sb, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      strbuf_addf(&sb, "\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f)
      strbuf_addf(&sb, "\\%03o", *p);
    else
      strbuf_addn(&sb, (const char *)p, 1);
  }
  strbuf_add(&sb, "\"");
  return strbuf_release(&sb);
}

static void check_functions(struct check *c, yaml_node_t *root) {
  yaml_node_t *fns = seq(c, root, "functions");
  if (!fns)
    return;
  strbuf_add(&c->src, "\n/* Functions: the model's declaration has the header's type. */\n");
  for (int i = 0; i < yamldoc_seq_length(fns); i++) {
    yaml_node_t *f = yamldoc_seq_item(c->y, fns, i);
    const char *name = need(c, f, "name");
    const char *result = need_type(c, f, "result");
    yaml_node_t *params = seq(c, f, "params");
    const char *prototyped = get(c, f, "prototyped");
    const char *variadic = get(c, f, "variadic");
    strbuf_addf(&c->src, "typedef __typeof__(%s) apigen_function_%d(", result, i);
    int n = params ? yamldoc_seq_length(params) : 0;
    for (int k = 0; k < n; k++)
      strbuf_addf(&c->src, "%s%s", k ? ", " : "",
                  need(c, yamldoc_seq_item(c->y, params, k), "decl"));
    if (variadic && strcmp(variadic, "true") == 0)
      strbuf_add(&c->src, n ? ", ..." : "...");
    else if (n == 0 && !(prototyped && strcmp(prototyped, "false") == 0))
      strbuf_add(&c->src, "void");
    strbuf_addf(&c->src, ");\n_Static_assert(__builtin_types_compatible_p(__typeof__(%s), "
                         "apigen_function_%d), \"function %s\");\n",
                name, i, name);
    c->functions++;
  }
}

static void check_named_types(struct check *c, yaml_node_t *root, const char *key,
                              unsigned *count) {
  yaml_node_t *list = seq(c, root, key);
  if (!list)
    return;
  strbuf_addf(&c->src, "\n/* %s: the name stands for the model's type. */\n", key);
  for (int i = 0; i < yamldoc_seq_length(list); i++) {
    yaml_node_t *t = yamldoc_seq_item(c->y, list, i);
    const char *name = need(c, t, "name");
    const char *type = type_of(c, t, "type");
    if (anonymous(type))
      continue;
    strbuf_addf(&c->src,
                "_Static_assert(__builtin_types_compatible_p(%s, %s), \"%s %s\");\n", name,
                type, key, name);
    (*count)++;
  }
}

static void check_enums(struct check *c, yaml_node_t *root) {
  yaml_node_t *enums = seq(c, root, "enums");
  if (!enums)
    return;
  strbuf_add(&c->src, "\n/* Enums: every constant has the model's value. */\n");
  for (int i = 0; i < yamldoc_seq_length(enums); i++) {
    yaml_node_t *e = yamldoc_seq_item(c->y, enums, i);
    const char *name = get(c, e, "name");
    const char *size = get(c, e, "size");
    if (size && !anonymous(name))
      strbuf_addf(&c->src, "_Static_assert(sizeof(%s) == %s, \"size of %s\");\n", name, size,
                  name);
    yaml_node_t *consts = seq(c, e, "constants");
    for (int k = 0; consts && k < yamldoc_seq_length(consts); k++) {
      yaml_node_t *k_node = yamldoc_seq_item(c->y, consts, k);
      const char *cname = need(c, k_node, "name");
      char *lit = int_literal(need(c, k_node, "value"));
      strbuf_addf(&c->src, "_Static_assert(%s == %s, \"enum constant %s\");\n", cname, lit,
                  cname);
      free(lit);
      c->enum_constants++;
    }
  }
}

static void check_fields(struct check *c, const char *record, yaml_node_t *fields,
                         const char *prefix) {
  for (int i = 0; fields && i < yamldoc_seq_length(fields); i++) {
    yaml_node_t *f = yamldoc_seq_item(c->y, fields, i);
    const char *name = get(c, f, "name");
    yaml_node_t *members = yamldoc_get(c->y, f, "members");
    char *path = name ? xasprintf("%s%s", prefix, name) : xstrdup(prefix);
    if (name && get(c, f, "bit_width")) {
      /* Bit-field positions are found at run time: set every bit of the field. */
      strbuf_addf(&c->runtime,
                  "  { %s v; memset(&v, 0, sizeof v); v.%s = -1;\n"
                  "    failures += apigen_bits(\"%s.%s\", &v, sizeof v, %s, %s); }\n",
                  record, path, record, path, need(c, f, "bit_offset"),
                  need(c, f, "bit_width"));
      c->bit_fields++;
    } else if (name) {
      strbuf_addf(&c->src,
                  "_Static_assert(offsetof(%s, %s) == %s, \"offset of %s.%s\");\n", record,
                  path, need(c, f, "offset"), record, path);
      const char *size = get(c, f, "size");
      if (size)
        strbuf_addf(&c->src,
                    "_Static_assert(sizeof(((%s *)0)->%s) == %s, \"size of %s.%s\");\n",
                    record, path, size, record, path);
      const char *type = type_of(c, f, "type");
      if (!anonymous(type))
        strbuf_addf(&c->src,
                    "_Static_assert(__builtin_types_compatible_p(__typeof__(((%s *)0)->%s), "
                    "%s), \"type of %s.%s\");\n",
                    record, path, type, record, path);
    }
    c->fields++;
    if (members) {
      /* Members of an anonymous struct or union are reached by their own names. */
      char *inner = name ? xasprintf("%s.", path) : xstrdup(prefix);
      check_fields(c, record, seq(c, members, "fields"), inner);
      free(inner);
    }
    free(path);
  }
}

static void check_records(struct check *c, yaml_node_t *root) {
  yaml_node_t *records = seq(c, root, "records");
  if (!records)
    return;
  strbuf_add(&c->src, "\n/* Structs and unions: size, alignment, and every field's offset, "
                      "size and type. */\n");
  for (int i = 0; i < yamldoc_seq_length(records); i++) {
    yaml_node_t *r = yamldoc_seq_item(c->y, records, i);
    const char *name = get(c, r, "name");
    const char *size = get(c, r, "size");
    if (!size || anonymous(name))
      continue;
    strbuf_addf(&c->src, "_Static_assert(sizeof(%s) == %s, \"size of %s\");\n", name, size,
                name);
    strbuf_addf(&c->src, "_Static_assert(_Alignof(%s) == %s, \"alignment of %s\");\n", name,
                need(c, r, "align"), name);
    check_fields(c, name, seq(c, r, "fields"), "");
    c->records++;
  }
}

static void check_constants(struct check *c, yaml_node_t *root) {
  yaml_node_t *consts = seq(c, root, "constants");
  if (!consts)
    return;
  strbuf_add(&c->src, "\n/* Macro constants: value and type. */\n");
  for (int i = 0; i < yamldoc_seq_length(consts); i++) {
    yaml_node_t *k = yamldoc_seq_item(c->y, consts, i);
    const char *name = need(c, k, "name");
    const char *value = get(c, k, "value");
    const char *type = value ? need(c, k, "type") : NULL;
    const char *str = get(c, k, "string");
    if (value) {
      char *lit = int_literal(value);
      strbuf_addf(&c->src, "_Static_assert((%s) == %s, \"value of %s\");\n", name, lit, name);
      free(lit);
      strbuf_addf(&c->src,
                  "_Static_assert(__builtin_types_compatible_p(__typeof__(%s), %s), "
                  "\"type of %s\");\n",
                  name, type, name);
    } else if (str) {
      char *lit = c_string_literal(str);
      strbuf_addf(&c->runtime, "  failures += apigen_string(\"%s\", %s, %s);\n", name, name,
                  lit);
      free(lit);
    }
    c->constants++;
  }
}

static const char prologue[] =
    "#include <stddef.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "\n"
    "/* Which bits of a zeroed object does setting the bit-field turn on? */\n"
    "static int apigen_bits(const char *what, const void *object, size_t size, long offset,\n"
    "                       long width) {\n"
    "  const unsigned char *bytes = object;\n"
    "  long first = -1, count = 0;\n"
    "  for (size_t i = 0; i < size * 8; i++)\n"
    "    if (bytes[i / 8] & (1u << (i % 8))) {\n"
    "      if (first < 0)\n"
    "        first = (long)i;\n"
    "      count++;\n"
    "    }\n"
    "  if (first == offset && count == width)\n"
    "    return 0;\n"
    "  fprintf(stderr, \"MISMATCH bit-field %s: header bits %ld+%ld, model %ld+%ld\\n\", what,\n"
    "          first, count, offset, width);\n"
    "  return 1;\n"
    "}\n"
    "\n"
    "static int apigen_string(const char *what, const char *header, const char *model) {\n"
    "  if (strcmp(header, model) == 0)\n"
    "    return 0;\n"
    "  fprintf(stderr, \"MISMATCH constant %s: header \\\"%s\\\", model \\\"%s\\\"\\n\", what,\n"
    "          header, model);\n"
    "  return 1;\n"
    "}\n";

int model_check_build_source(const struct spec *s, struct yamldoc *model, struct strbuf *out,
                             struct diag *d) {
  struct check c;
  memset(&c, 0, sizeof c);
  c.y = model;
  c.d = d;
  strbuf_init(&c.src);
  strbuf_init(&c.runtime);
  yaml_node_t *root = yamldoc_root(model);
  strbuf_addf(&c.src,
              "/* Generated by apigen --check-source from %s. DO NOT EDIT.\n"
              " * Compiles only if the model matches the headers of %s. */\n",
              model->path, s->path);
  /* The headers apigen parsed, by full path, so any C compiler finds the same files
   * (omp-tools.h, for one, lives in clang's own include folder). */
  struct tu_config cfg;
  if (tu_config_init(&cfg, s, d)) {
    tu_config_free(&cfg);
    strbuf_free(&c.src);
    strbuf_free(&c.runtime);
    return -1;
  }
  strbuf_add(&c.src, cfg.includes);
  tu_config_free(&cfg);
  strbuf_add(&c.src, prologue);
  check_functions(&c, root);
  check_named_types(&c, root, "typedefs", &c.typedefs);
  check_named_types(&c, root, "function_pointers", &c.function_pointers);
  check_enums(&c, root);
  check_records(&c, root);
  check_constants(&c, root);
  strbuf_addf(&c.src,
              "\nint main(void) {\n"
              "  int failures = 0;\n"
              "%s"
              "  printf(\"%s: %u/%u functions, %u typedefs, %u function pointer types, "
              "%u enum constants, %u records with %u fields (%u bit-fields), %u constants "
              "checked: %%s\\n\", failures ? \"MISMATCH\" : \"exact\");\n"
              "  return failures != 0;\n"
              "}\n",
              c.runtime.data, s->backend, c.functions, c.functions, c.typedefs,
              c.function_pointers, c.enum_constants, c.records, c.fields, c.bit_fields,
              c.constants);
  strbuf_free(&c.runtime);
  if (c.missing) {
    strbuf_free(&c.src);
    return -1;
  }
  *out = c.src;
  return 0;
}

int model_check_write_source(const struct spec *s, const char *model_path,
                             const char *out_path, struct diag *d) {
  struct yamldoc y;
  if (yamldoc_load(&y, model_path, d)) {
    yamldoc_free(&y);
    return diag_error(d, "Cannot read model: run `apigen --spec %s` first", s->path);
  }
  struct strbuf src;
  int rc = model_check_build_source(s, &y, &src, d);
  yamldoc_free(&y);
  if (rc)
    return -1;
  if (write_file_atomic(out_path, src.data, src.len))
    rc = diag_error(d, "Cannot write check source: path=%s: %s", out_path, strerror(errno));
  strbuf_free(&src);
  return rc;
}
