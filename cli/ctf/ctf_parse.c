/* ctf_parse.c: TSDL metadata text into a struct ctf_metadata: the trace, env, clock,
 * stream and event blocks, scoped type names, and the checks that need the whole text
 * (native byte order, clock names, which stream each event belongs to). */
#include "ctf_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Tokens ------------------------------------------------------------------------- */

const struct ctf_token *ctf_parse_peek(const struct ctf_parser *p, size_t ahead) {
  size_t at = p->at;
  /* Never look past the END token. */
  while (ahead-- && p->tokens[at].kind != CTF_TOKEN_END)
    at++;
  return &p->tokens[at];
}

const struct ctf_token *ctf_parse_take(struct ctf_parser *p) {
  const struct ctf_token *token = &p->tokens[p->at];
  if (token->kind != CTF_TOKEN_END)
    p->at++;
  return token;
}

bool ctf_parse_is_punct(const struct ctf_token *token, const char *punct) {
  return token->kind == CTF_TOKEN_PUNCT && !strcmp(token->text, punct);
}

bool ctf_parse_is_word(const struct ctf_token *token, const char *word) {
  return token->kind == CTF_TOKEN_IDENTIFIER && !strcmp(token->text, word);
}

bool ctf_parse_accept(struct ctf_parser *p, const char *punct) {
  if (!ctf_parse_is_punct(ctf_parse_peek(p, 0), punct))
    return false;
  p->at++;
  return true;
}

enum ctf_status ctf_parse_fail(struct ctf_parser *p, const struct ctf_token *token,
                               const char *format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  return ctf_metadata_fail(p->error, p->file, p->text, token->line, token->column, "%s",
                           message);
}

enum ctf_status ctf_parse_expect(struct ctf_parser *p, const char *punct, const char *context) {
  if (ctf_parse_accept(p, punct))
    return CTF_OK;
  const struct ctf_token *token = ctf_parse_peek(p, 0);
  return ctf_parse_fail(p, token, "Cannot parse %s: expected '%s', found '%s'", context,
                        punct, token->kind == CTF_TOKEN_INTEGER ? "integer" : token->text);
}

enum ctf_status ctf_parse_no_memory(struct ctf_parser *p) {
  return ctf_fail(p->error, CTF_ERR_NO_MEMORY, "Cannot parse metadata: file=%s: out of memory",
                  p->file);
}

/* ---- Scopes ------------------------------------------------------------------------- */

enum ctf_status ctf_parse_push_scope(struct ctf_parser *p) {
  struct ctf_scope *scope = ctf_arena_alloc(p->arena, sizeof *scope);
  if (!scope)
    return ctf_parse_no_memory(p);
  scope->parent = p->scope;
  p->scope = scope;
  return CTF_OK;
}

void ctf_parse_pop_scope(struct ctf_parser *p) {
  if (p->scope)
    p->scope = p->scope->parent;
}

enum ctf_status ctf_parse_define(struct ctf_parser *p, enum ctf_name_kind kind,
                                 const char *name, const struct ctf_type *type,
                                 const struct ctf_token *where) {
  struct ctf_scope *scope = p->scope;
  for (size_t i = 0; i < scope->count; i++)
    if (scope->names[i].kind == kind && !strcmp(scope->names[i].name, name))
      return ctf_parse_fail(p, where, "Cannot define type: name=%s is already defined here",
                            name);
  if (scope->count == scope->capacity) {
    size_t capacity = scope->capacity ? scope->capacity * 2 : 16;
    struct ctf_named_type *names =
        ctf_arena_grow(p->arena, scope->names, scope->count, capacity, sizeof *names);
    if (!names)
      return ctf_parse_no_memory(p);
    scope->names = names;
    scope->capacity = capacity;
  }
  scope->names[scope->count++] = (struct ctf_named_type){kind, name, type};
  return CTF_OK;
}

const struct ctf_type *ctf_parse_lookup(const struct ctf_parser *p, enum ctf_name_kind kind,
                                        const char *name) {
  for (const struct ctf_scope *scope = p->scope; scope; scope = scope->parent)
    for (size_t i = scope->count; i-- > 0;)
      if (scope->names[i].kind == kind && !strcmp(scope->names[i].name, name))
        return scope->names[i].type;
  return NULL;
}

/* ---- Attribute values --------------------------------------------------------------- */

enum ctf_status ctf_parse_attr_value(struct ctf_parser *p, struct ctf_attr_value *value) {
  enum ctf_status status = ctf_parse_expect(p, "=", "attribute");
  if (status != CTF_OK)
    return status;
  memset(value, 0, sizeof *value);
  value->token = ctf_parse_peek(p, 0);
  if (ctf_parse_accept(p, "-"))
    value->negative = true;
  else
    ctf_parse_accept(p, "+");
  const struct ctf_token *token = ctf_parse_peek(p, 0);
  if (token->kind == CTF_TOKEN_INTEGER) {
    ctf_parse_take(p);
    value->kind = CTF_ATTR_INTEGER;
    value->magnitude = token->integer;
    return CTF_OK;
  }
  if (value->negative)
    return ctf_parse_fail(p, token, "Cannot parse attribute: expected an integer after '-'");
  if (token->kind == CTF_TOKEN_STRING) {
    ctf_parse_take(p);
    value->kind = CTF_ATTR_STRING;
    value->text = token->text;
    return CTF_OK;
  }
  if (token->kind != CTF_TOKEN_IDENTIFIER)
    return ctf_parse_fail(p, token, "Cannot parse attribute: expected a value, found '%s'",
                          token->text);
  /* Dotted identifiers: clock.monotonic.value */
  size_t start = p->at, length = 0;
  for (;;) {
    length += strlen(ctf_parse_take(p)->text) + 1;
    if (!ctf_parse_is_punct(ctf_parse_peek(p, 0), ".") ||
        ctf_parse_peek(p, 1)->kind != CTF_TOKEN_IDENTIFIER)
      break;
    p->at++;
  }
  char *joined = ctf_arena_alloc(p->arena, length);
  if (!joined)
    return ctf_parse_no_memory(p);
  for (size_t i = start; i < p->at; i++)
    strcat(joined, p->tokens[i].text);
  value->kind = CTF_ATTR_IDENTIFIER;
  value->text = joined;
  return CTF_OK;
}

enum ctf_status ctf_parse_attr_bool(struct ctf_parser *p, const struct ctf_attr_value *value,
                                    bool *result) {
  if (value->kind == CTF_ATTR_INTEGER && !value->negative && value->magnitude <= 1) {
    *result = value->magnitude == 1;
    return CTF_OK;
  }
  if (value->kind == CTF_ATTR_IDENTIFIER) {
    if (!strcmp(value->text, "true") || !strcmp(value->text, "TRUE")) {
      *result = true;
      return CTF_OK;
    }
    if (!strcmp(value->text, "false") || !strcmp(value->text, "FALSE")) {
      *result = false;
      return CTF_OK;
    }
  }
  return ctf_parse_fail(p, value->token, "Cannot parse attribute: expected true or false");
}

enum ctf_status ctf_parse_attr_uint(struct ctf_parser *p, const struct ctf_attr_value *value,
                                    uint64_t *result) {
  if (value->kind != CTF_ATTR_INTEGER || value->negative)
    return ctf_parse_fail(p, value->token,
                          "Cannot parse attribute: expected a non-negative integer");
  *result = value->magnitude;
  return CTF_OK;
}

enum ctf_status ctf_parse_attr_int(struct ctf_parser *p, const struct ctf_attr_value *value,
                                   int64_t *result) {
  if (value->kind != CTF_ATTR_INTEGER ||
      value->magnitude > (value->negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
    return ctf_parse_fail(p, value->token, "Cannot parse attribute: expected a 64-bit "
                                           "signed integer");
  *result = value->negative ? (int64_t)((uint64_t)0 - value->magnitude)
                            : (int64_t)value->magnitude;
  return CTF_OK;
}

static enum ctf_status attr_text(struct ctf_parser *p, const struct ctf_attr_value *value,
                                 const char **text) {
  if (value->kind == CTF_ATTR_INTEGER)
    return ctf_parse_fail(p, value->token, "Cannot parse attribute: expected a name or a "
                                           "string");
  *text = value->text;
  return CTF_OK;
}

static enum ctf_status attr_uuid(struct ctf_parser *p, const struct ctf_attr_value *value,
                                 uint8_t uuid[16]) {
  const char *text = value->kind == CTF_ATTR_STRING ? value->text : "";
  size_t byte = 0;
  for (const char *c = text; *c && byte < 16; c++) {
    if (*c == '-')
      continue;
    unsigned high, low;
    if (sscanf(c, "%1x%1x", &high, &low) != 2)
      break;
    uuid[byte++] = (uint8_t)(high << 4 | low);
    c++;
  }
  if (byte != 16 || strlen(text) != 36)
    return ctf_parse_fail(p, value->token, "Cannot parse uuid: expected "
                                           "\"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\"");
  return CTF_OK;
}

/* ---- Blocks ------------------------------------------------------------------------- */

struct block_entry {
  const char *name;                /* attribute name, dots included: "packet.header" */
  const struct ctf_token *where;
  bool is_type;                    /* `:=` */
  const struct ctf_type *type;
  struct ctf_attr_value value;
};

typedef enum ctf_status (*block_fn)(struct ctf_parser *p, const struct block_entry *entry,
                                    void *state);

static enum ctf_status require_struct(struct ctf_parser *p, const struct block_entry *entry) {
  if (!entry->is_type)
    return ctf_parse_fail(p, entry->where, "Cannot parse %s: expected ':=' and a struct",
                          entry->name);
  if (entry->type->kind != CTF_TYPE_STRUCT)
    return ctf_parse_fail(p, entry->where, "Cannot use %s: it is not a struct", entry->name);
  return CTF_OK;
}

static enum ctf_status require_value(struct ctf_parser *p, const struct block_entry *entry) {
  if (entry->is_type)
    return ctf_parse_fail(p, entry->where, "Cannot parse %s: expected '=' and a value",
                          entry->name);
  return CTF_OK;
}

/* `{ ... };` of a trace, env, clock, stream, event or callsite block. */
static enum ctf_status parse_block(struct ctf_parser *p, const char *what, block_fn handle,
                                   void *state) {
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
    const struct ctf_token *first = ctf_parse_peek(p, 0);
    const struct ctf_token *second = ctf_parse_peek(p, 1);
    bool is_attribute = first->kind == CTF_TOKEN_IDENTIFIER &&
                        (ctf_parse_is_punct(second, "=") || ctf_parse_is_punct(second, ":=") ||
                         ctf_parse_is_punct(second, "."));
    if (!is_attribute) {
      const struct ctf_type *ignored = NULL;
      if (first->kind == CTF_TOKEN_END)
        status = ctf_parse_fail(p, first, "Cannot parse %s: no closing '}'", what);
      else if (!ctf_parse_starts_type(p))
        status = ctf_parse_fail(p, first, "Cannot parse %s: expected an attribute, found "
                                          "'%s'", what, first->text);
      else
        status = ctf_parse_type_specifier(p, &ignored);
      if (status == CTF_OK)
        status = ctf_parse_expect(p, ";", what);
      continue;
    }
    char name[128] = "";
    size_t used = 0;
    for (;;) {
      const char *word = ctf_parse_take(p)->text;
      used += (size_t)snprintf(name + used, sizeof name - used, "%s", word);
      if (used >= sizeof name - 2 || !ctf_parse_is_punct(ctf_parse_peek(p, 0), ".") ||
          ctf_parse_peek(p, 1)->kind != CTF_TOKEN_IDENTIFIER)
        break;
      ctf_parse_take(p);
      name[used++] = '.';
      name[used] = '\0';
    }
    struct block_entry entry = {.name = name, .where = first};
    if (ctf_parse_accept(p, ":=")) {
      entry.is_type = true;
      status = ctf_parse_type_specifier(p, &entry.type);
    } else {
      status = ctf_parse_attr_value(p, &entry.value);
    }
    if (status == CTF_OK)
      status = handle(p, &entry, state);
    if (status == CTF_OK)
      status = ctf_parse_expect(p, ";", what);
  }
  ctf_parse_pop_scope(p);
  /* The ';' after '}' is required by TSDL; tolerate its absence. */
  if (status == CTF_OK)
    ctf_parse_accept(p, ";");
  return status;
}

static enum ctf_status trace_entry(struct ctf_parser *p, const struct block_entry *e,
                                   void *state) {
  (void)state;
  struct ctf_metadata *md = p->metadata;
  uint64_t number = 0;
  enum ctf_status status = CTF_OK;
  if (!strcmp(e->name, "packet.header")) {
    status = require_struct(p, e);
    md->packet_header = e->type;
    return status;
  }
  if ((status = require_value(p, e)) != CTF_OK)
    return status;
  if (!strcmp(e->name, "major")) {
    status = ctf_parse_attr_uint(p, &e->value, &number);
    md->major = (uint32_t)number;
  } else if (!strcmp(e->name, "minor")) {
    status = ctf_parse_attr_uint(p, &e->value, &number);
    md->minor = (uint32_t)number;
  } else if (!strcmp(e->name, "uuid")) {
    status = attr_uuid(p, &e->value, md->uuid);
    md->has_uuid = true;
  } else if (!strcmp(e->name, "byte_order")) {
    const char *text = e->value.kind == CTF_ATTR_IDENTIFIER ? e->value.text : "";
    if (!strcmp(text, "le"))
      md->byte_order = CTF_BYTE_ORDER_LE;
    else if (!strcmp(text, "be") || !strcmp(text, "network"))
      md->byte_order = CTF_BYTE_ORDER_BE;
    else
      return ctf_parse_fail(p, e->value.token, "Cannot parse trace byte_order: expected le, "
                                               "be or network");
    md->has_byte_order = true;
  }
  return status;
}

static enum ctf_status env_entry(struct ctf_parser *p, const struct block_entry *e,
                                 void *state) {
  (void)state;
  struct ctf_metadata *md = p->metadata;
  enum ctf_status status = require_value(p, e);
  if (status != CTF_OK)
    return status;
  struct ctf_env_entry entry = {.key = ctf_arena_strdup(p->arena, e->name)};
  if (!entry.key)
    return ctf_parse_no_memory(p);
  if (e->value.kind == CTF_ATTR_INTEGER) {
    status = ctf_parse_attr_int(p, &e->value, &entry.integer);
  } else {
    entry.is_string = true;
    entry.string = e->value.text;
  }
  for (size_t i = 0; i < md->env_count; i++)
    if (!strcmp(md->env[i].key, entry.key)) {
      md->env[i] = entry;   /* a later value replaces an earlier one */
      return status;
    }
  if (md->env_count == md->env_capacity) {
    md->env_capacity = md->env_capacity ? md->env_capacity * 2 : 16;
    md->env = ctf_arena_grow(p->arena, md->env, md->env_count, md->env_capacity,
                             sizeof *md->env);
    if (!md->env)
      return ctf_parse_no_memory(p);
  }
  md->env[md->env_count++] = entry;
  return status;
}

static enum ctf_status clock_entry(struct ctf_parser *p, const struct block_entry *e,
                                   void *state) {
  struct ctf_clock_class *clock = state;
  enum ctf_status status = require_value(p, e);
  if (status != CTF_OK)
    return status;
  if (!strcmp(e->name, "name"))
    status = attr_text(p, &e->value, &clock->name);
  else if (!strcmp(e->name, "uuid"))
    status = attr_text(p, &e->value, &clock->uuid);
  else if (!strcmp(e->name, "description"))
    status = attr_text(p, &e->value, &clock->description);
  else if (!strcmp(e->name, "freq"))
    status = ctf_parse_attr_uint(p, &e->value, &clock->frequency);
  else if (!strcmp(e->name, "offset_s"))
    status = ctf_parse_attr_int(p, &e->value, &clock->offset_seconds);
  else if (!strcmp(e->name, "offset"))
    status = ctf_parse_attr_int(p, &e->value, &clock->offset_cycles);
  else if (!strcmp(e->name, "precision"))
    status = ctf_parse_attr_uint(p, &e->value, &clock->precision);
  else if (!strcmp(e->name, "absolute"))
    status = ctf_parse_attr_bool(p, &e->value, &clock->absolute);
  if (status == CTF_OK && !strcmp(e->name, "freq") && clock->frequency == 0)
    return ctf_parse_fail(p, e->value.token, "Cannot use clock: freq is 0");
  return status;
}

static enum ctf_status stream_entry(struct ctf_parser *p, const struct block_entry *e,
                                    void *state) {
  struct ctf_stream_class_private *sc = state;
  enum ctf_status status = CTF_OK;
  if (!strcmp(e->name, "id")) {
    if ((status = require_value(p, e)) == CTF_OK)
      status = ctf_parse_attr_uint(p, &e->value, &sc->pub.id);
    sc->has_id = true;
  } else if (!strcmp(e->name, "event.header")) {
    status = require_struct(p, e);
    sc->pub.event_header = e->type;
  } else if (!strcmp(e->name, "event.context")) {
    status = require_struct(p, e);
    sc->pub.event_context = e->type;
  } else if (!strcmp(e->name, "packet.context")) {
    status = require_struct(p, e);
    sc->pub.packet_context = e->type;
  }
  return status;
}

static enum ctf_status event_entry(struct ctf_parser *p, const struct block_entry *e,
                                   void *state) {
  struct ctf_event_class_private *ec = state;
  enum ctf_status status = CTF_OK;
  if (!strcmp(e->name, "context")) {
    status = require_struct(p, e);
    ec->pub.context = e->type;
    return status;
  }
  if (!strcmp(e->name, "fields")) {
    /* `fields = VALUE` has no type to read the fields of (a NULL dereference found by
     * tests/fuzz/fuzz_ctf_metadata.c): stop at the error. */
    if ((status = require_struct(p, e)) != CTF_OK)
      return status;
    ec->pub.payload = e->type;
    ec->pub.fields = e->type->u.structure.fields;
    ec->pub.field_count = e->type->u.structure.field_count;
    return status;
  }
  if ((status = require_value(p, e)) != CTF_OK)
    return status;
  if (!strcmp(e->name, "name")) {
    status = attr_text(p, &e->value, &ec->pub.name);
  } else if (!strcmp(e->name, "id")) {
    status = ctf_parse_attr_uint(p, &e->value, &ec->pub.id);
    ec->has_id = true;
  } else if (!strcmp(e->name, "stream_id")) {
    status = ctf_parse_attr_uint(p, &e->value, &ec->stream_id);
    ec->has_stream_id = true;
  } else if (!strcmp(e->name, "loglevel")) {
    status = ctf_parse_attr_int(p, &e->value, &ec->pub.loglevel);
  } else if (!strcmp(e->name, "model.emf.uri")) {
    status = attr_text(p, &e->value, &ec->pub.emf_uri);
  }
  return status;
}

static enum ctf_status ignore_entry(struct ctf_parser *p, const struct block_entry *e,
                                    void *state) {
  (void)p, (void)e, (void)state;
  return CTF_OK;
}

static enum ctf_status append_pointer(struct ctf_parser *p, void ***items, size_t *count,
                                      size_t *capacity, void *item) {
  if (*count == *capacity) {
    *capacity = *capacity ? *capacity * 2 : 16;
    *items = ctf_arena_grow(p->arena, *items, *count, *capacity, sizeof **items);
    if (!*items)
      return ctf_parse_no_memory(p);
  }
  (*items)[(*count)++] = item;
  return CTF_OK;
}

static enum ctf_status parse_top_block(struct ctf_parser *p, bool *parsed) {
  struct ctf_metadata *md = p->metadata;
  const struct ctf_token *keyword = ctf_parse_peek(p, 0);
  *parsed = ctf_parse_is_punct(ctf_parse_peek(p, 1), "{");
  if (!*parsed)
    return CTF_OK;
  if (ctf_parse_is_word(keyword, "trace")) {
    ctf_parse_take(p);
    if (md->has_trace_block)
      return ctf_parse_fail(p, keyword, "Cannot parse trace: a second trace block");
    md->has_trace_block = true;
    return parse_block(p, "trace", trace_entry, NULL);
  }
  if (ctf_parse_is_word(keyword, "env")) {
    ctf_parse_take(p);
    return parse_block(p, "env", env_entry, NULL);
  }
  if (ctf_parse_is_word(keyword, "clock")) {
    ctf_parse_take(p);
    struct ctf_clock_class clock = {.frequency = 1000000000};
    enum ctf_status status = parse_block(p, "clock", clock_entry, &clock);
    if (status != CTF_OK)
      return status;
    if (!clock.name)
      return ctf_parse_fail(p, keyword, "Cannot use clock: it has no name");
    if (md->clock_count == md->clock_capacity) {
      md->clock_capacity = md->clock_capacity ? md->clock_capacity * 2 : 4;
      md->clocks = ctf_arena_grow(p->arena, md->clocks, md->clock_count, md->clock_capacity,
                                  sizeof *md->clocks);
      if (!md->clocks)
        return ctf_parse_no_memory(p);
    }
    md->clocks[md->clock_count++] = clock;
    return CTF_OK;
  }
  if (ctf_parse_is_word(keyword, "stream")) {
    ctf_parse_take(p);
    struct ctf_stream_class_private *sc = ctf_arena_alloc(p->arena, sizeof *sc);
    if (!sc)
      return ctf_parse_no_memory(p);
    enum ctf_status status = parse_block(p, "stream", stream_entry, sc);
    if (status == CTF_OK)
      status = append_pointer(p, (void ***)&md->stream_classes, &md->stream_class_count,
                              &md->stream_class_capacity, sc);
    return status;
  }
  if (ctf_parse_is_word(keyword, "event")) {
    ctf_parse_take(p);
    struct ctf_event_class_private *ec = ctf_arena_alloc(p->arena, sizeof *ec);
    if (!ec)
      return ctf_parse_no_memory(p);
    ec->pub.loglevel = INT64_MIN;
    enum ctf_status status = parse_block(p, "event", event_entry, ec);
    if (status == CTF_OK && !ec->pub.name)
      return ctf_parse_fail(p, keyword, "Cannot use event: it has no name");
    if (status == CTF_OK)
      status = append_pointer(p, (void ***)&md->event_classes, &md->event_class_count,
                              &md->event_class_capacity, ec);
    return status;
  }
  if (ctf_parse_is_word(keyword, "callsite")) {
    ctf_parse_take(p);
    return parse_block(p, "callsite", ignore_entry, NULL);
  }
  *parsed = false;
  return CTF_OK;
}

/* ---- Checks that need the whole text ------------------------------------------------- */

static enum ctf_status finish(struct ctf_parser *p) {
  struct ctf_metadata *md = p->metadata;
  const struct ctf_token *end = ctf_parse_peek(p, 0);
  if (!md->has_trace_block)
    return ctf_parse_fail(p, end, "Cannot use metadata: it has no trace block");
  if (!md->has_byte_order)
    return ctf_parse_fail(p, end, "Cannot use metadata: the trace block has no byte_order");
  if (md->major != 1)
    return ctf_parse_fail(p, end, "Cannot use metadata: CTF %u.%u (only 1.x supported)",
                          md->major, md->minor);
  for (size_t i = 0; i < md->type_note_count; i++) {
    struct ctf_type_note *note = &md->type_notes[i];
    if (note->native_byte_order) {
      if (note->type->kind == CTF_TYPE_INTEGER)
        note->type->u.integer.byte_order = md->byte_order;
      else
        note->type->u.floating.byte_order = md->byte_order;
    }
    if (!note->clock_name)
      continue;
    const struct ctf_clock_class *clock = NULL;
    for (size_t c = 0; c < md->clock_count && !clock; c++)
      if (!strcmp(md->clocks[c].name, note->clock_name))
        clock = &md->clocks[c];
    if (!clock)
      return ctf_metadata_fail(p->error, p->file, p->text, note->line, note->column,
                               "Cannot find clock: name=%s", note->clock_name);
    note->type->u.integer.mapped_clock = clock;
  }
  if (md->stream_class_count == 0 && md->event_class_count > 0) {
    /* No stream block: one implicit stream class with no header or contexts. */
    struct ctf_stream_class_private *sc = ctf_arena_alloc(p->arena, sizeof *sc);
    if (!sc)
      return ctf_parse_no_memory(p);
    enum ctf_status status = append_pointer(p, (void ***)&md->stream_classes,
                                            &md->stream_class_count,
                                            &md->stream_class_capacity, sc);
    if (status != CTF_OK)
      return status;
  }
  for (size_t i = 0; i < md->stream_class_count; i++) {
    struct ctf_stream_class_private *sc = md->stream_classes[i];
    if (!sc->has_id && md->stream_class_count > 1)
      return ctf_parse_fail(p, end, "Cannot use metadata: a stream block has no id and "
                                    "there are %zu of them", md->stream_class_count);
    for (size_t j = 0; j < i; j++)
      if (md->stream_classes[j]->pub.id == sc->pub.id)
        return ctf_parse_fail(p, end, "Cannot use metadata: two stream blocks with id=%llu",
                              (unsigned long long)sc->pub.id);
  }
  for (size_t i = 0; i < md->event_class_count; i++) {
    struct ctf_event_class_private *ec = md->event_classes[i];
    const struct ctf_stream_class_private *owner = NULL;
    if (ec->has_stream_id) {
      for (size_t j = 0; j < md->stream_class_count && !owner; j++)
        if (md->stream_classes[j]->pub.id == ec->stream_id)
          owner = md->stream_classes[j];
    } else if (md->stream_class_count == 1) {
      owner = md->stream_classes[0];
    }
    if (!owner)
      return ctf_parse_fail(p, end, "Cannot use event: name=%s, stream_id=%llu: no such "
                                    "stream", ec->pub.name, (unsigned long long)ec->stream_id);
    ec->pub.stream_class = &owner->pub;
    ec->pub.index = i;
  }
  return CTF_OK;
}

enum ctf_status ctf_parse_metadata(struct ctf_metadata *metadata, const char *text,
                                   struct ctf_error *error) {
  struct ctf_token_list tokens;
  enum ctf_status status = ctf_lex(metadata->arena, metadata->file, text, &tokens, error);
  if (status != CTF_OK)
    return status;
  struct ctf_parser parser = {
      .metadata = metadata, .arena = metadata->arena, .file = metadata->file, .text = text,
      .tokens = tokens.tokens, .error = error};
  struct ctf_parser *p = &parser;
  status = ctf_parse_push_scope(p);
  while (status == CTF_OK && ctf_parse_peek(p, 0)->kind != CTF_TOKEN_END) {
    bool parsed = false;
    status = ctf_parse_type_statement(p, &parsed);
    if (status == CTF_OK && !parsed)
      status = parse_top_block(p, &parsed);
    if (status != CTF_OK || parsed)
      continue;
    const struct ctf_token *token = ctf_parse_peek(p, 0);
    if (!ctf_parse_starts_type(p)) {
      status = ctf_parse_fail(p, token, "Cannot parse metadata: expected a block or a type "
                                        "definition, found '%s'", token->text);
      break;
    }
    const struct ctf_type *ignored = NULL;
    status = ctf_parse_type_specifier(p, &ignored);
    if (status == CTF_OK)
      status = ctf_parse_expect(p, ";", "type definition");
  }
  if (status == CTF_OK)
    status = finish(p);
  free(tokens.tokens);
  return status;
}
