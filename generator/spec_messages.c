/* spec_messages: see spec_messages.h. */
#include "spec_messages.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "spec_yaml.h"

static const char *const message_keys[] = {
    "kind",     "count", "datatype", "peer",        "tag",        "comm", "request",
    "requests", "done",  "op",       "root",        "size_factor", "bus_factor",
    "index",    "indices", "indices_count", "recv", "status", "put", NULL};
static const char *const recv_keys[] = {"count", "datatype", "peer", "tag", "status", NULL};
static const char *const put_keys[] = {"count", "datatype", "unless", NULL};
static const char *const message_status_keys[] = {"type", "source", "bytes", NULL};
static const char *const group_call_keys[] = {"made", "from", "type", NULL};
static const char *const rma_sync_keys[] = {"sync", "win", "peer", "shared", NULL};
static const char *const communicator_keys[] = {"rank", "size", "id", NULL};
static const char *const handle_id_keys[] = {"handle", "from", "when", "parent", "salt", "forget",
                                             NULL};

/* ---- factors of the communicator's size ---- */

/* a*n + b while parsing. */
struct linear {
  long a, b;
};

struct factor_parser {
  const char *at;
  bool failed;
};

static void skip_spaces(struct factor_parser *p) {
  while (isspace((unsigned char)*p->at))
    p->at++;
}

static struct linear parse_sum(struct factor_parser *p);

static struct linear parse_primary(struct factor_parser *p) {
  skip_spaces(p);
  if (*p->at == '(') {
    p->at++;
    struct linear v = parse_sum(p);
    skip_spaces(p);
    if (*p->at != ')')
      p->failed = true;
    else
      p->at++;
    return v;
  }
  if (*p->at == 'n' && !isalnum((unsigned char)p->at[1]) && p->at[1] != '_') {
    p->at++;
    return (struct linear){1, 0};
  }
  if (isdigit((unsigned char)*p->at)) {
    char *end;
    long value = strtol(p->at, &end, 10);
    p->at = end;
    if (value > 1000)
      p->failed = true;
    return (struct linear){0, value};
  }
  p->failed = true;
  return (struct linear){0, 0};
}

static struct linear parse_unary(struct factor_parser *p) {
  skip_spaces(p);
  if (*p->at == '-') {
    p->at++;
    struct linear v = parse_unary(p);
    return (struct linear){-v.a, -v.b};
  }
  return parse_primary(p);
}

/* Products stay linear: one side of each must be a number. */
static struct linear parse_product(struct factor_parser *p) {
  struct linear v = parse_unary(p);
  for (;;) {
    skip_spaces(p);
    bool implicit = *p->at == '(' || (*p->at == 'n' && v.a == 0);
    if (*p->at != '*' && !implicit)
      return v;
    if (*p->at == '*')
      p->at++;
    struct linear w = parse_unary(p);
    if (v.a && w.a) {
      p->failed = true;
      return v;
    }
    v = (struct linear){v.a * w.b + w.a * v.b, v.b * w.b};
  }
}

static struct linear parse_sum(struct factor_parser *p) {
  struct linear v = parse_product(p);
  for (;;) {
    skip_spaces(p);
    if (*p->at != '+' && *p->at != '-')
      return v;
    int sign = *p->at++ == '-' ? -1 : 1;
    struct linear w = parse_product(p);
    v = (struct linear){v.a + sign * w.a, v.b + sign * w.b};
  }
}

static bool fits(long v) { return v >= -32768 && v <= 32767; }

int spec_rank_factor_parse(const char *text, struct spec_rank_factor *out) {
  struct factor_parser p = {text, false};
  struct linear num = parse_sum(&p), den = {0, 1};
  skip_spaces(&p);
  if (*p.at == '/') {
    p.at++;
    den = parse_sum(&p);
    skip_spaces(&p);
  }
  if (p.failed || *p.at || (den.a == 0 && den.b == 0) || !fits(num.a) || !fits(num.b) ||
      !fits(den.a) || !fits(den.b))
    return -1;
  *out = (struct spec_rank_factor){(int)num.a, (int)num.b, (int)den.a, (int)den.b};
  return 0;
}

/* ---- trace.messages ---- */

static int read_optional(struct yamldoc *y, yaml_node_t *map, const char *key, char **out,
                         struct diag *d) {
  return spec_read_string(y, map, key, false, out, d);
}

static int read_factor(struct yamldoc *y, yaml_node_t *body, const char *key,
                       const char *function, struct spec_rank_factor *out, struct diag *d) {
  char *text = NULL;
  if (spec_read_string(y, body, key, false, &text, d))
    return -1;
  int rc = 0;
  if (text && spec_rank_factor_parse(text, out))
    rc = yamldoc_error(y, yamldoc_get(y, body, key), d,
                       "Cannot read trace message: function=%s, %s=%s: expected an expression "
                       "in the communicator's size n, such as 2*(n-1)/n",
                       function, key, text);
  free(text);
  return rc;
}

static int read_message(struct yamldoc *y, yaml_node_t *key, yaml_node_t *body,
                        struct spec_trace *t, struct diag *d) {
  struct spec_message *m = xcalloc(1, sizeof *m);
  m->function = xstrdup(yamldoc_scalar(key) ? yamldoc_scalar(key) : "");
  m->loc = spec_loc_of(key);
  m->size_factor = (struct spec_rank_factor){0, 1, 0, 1};
  ptrvec_push(&t->messages, m);
  int rc = spec_read_string(y, body, "kind", true, &m->kind, d);
  struct {
    const char *key;
    char **value;
  } params[] = {{"count", &m->count},       {"datatype", &m->datatype}, {"peer", &m->peer},
                {"tag", &m->tag},           {"comm", &m->comm},         {"request", &m->request},
                {"requests", &m->requests}, {"done", &m->done},         {"op", &m->op},
                {"root", &m->root},         {"index", &m->index},       {"indices", &m->indices},
                {"indices_count", &m->indices_count}, {"status", &m->status}};
  for (size_t i = 0; i < sizeof params / sizeof *params; i++)
    rc |= read_optional(y, body, params[i].key, params[i].value, d);
  yaml_node_t *recv = yamldoc_get(y, body, "recv");
  if (recv && (recv->type != YAML_MAPPING_NODE ||
               yamldoc_check_keys(y, recv, recv_keys, "trace message recv", d)))
    rc = recv->type != YAML_MAPPING_NODE
             ? yamldoc_error(y, recv, d, "Cannot read trace message: function=%s: expected "
                             "recv: {count, datatype, peer, tag}", m->function)
             : -1;
  else if (recv) {
    rc |= read_optional(y, recv, "count", &m->recv_count, d);
    rc |= read_optional(y, recv, "datatype", &m->recv_datatype, d);
    rc |= read_optional(y, recv, "peer", &m->recv_peer, d);
    rc |= read_optional(y, recv, "tag", &m->recv_tag, d);
    rc |= read_optional(y, recv, "status", &m->recv_status, d);
    if (!m->kind || strcmp(m->kind, "send") != 0)
      rc = yamldoc_error(y, recv, d, "Cannot read trace message: function=%s: only a send "
                         "has a recv", m->function);
  }
  yaml_node_t *put = yamldoc_get(y, body, "put");
  if (put && (put->type != YAML_MAPPING_NODE ||
              yamldoc_check_keys(y, put, put_keys, "trace message put", d)))
    rc = put->type != YAML_MAPPING_NODE
             ? yamldoc_error(y, put, d, "Cannot read trace message: function=%s: expected "
                             "put: {count, datatype, unless}", m->function)
             : -1;
  else if (put) {
    rc |= spec_read_string(y, put, "count", true, &m->put_count, d);
    rc |= spec_read_string(y, put, "datatype", true, &m->put_datatype, d);
    rc |= read_optional(y, put, "unless", &m->put_unless, d);
    if (!m->kind || strcmp(m->kind, "get") != 0)
      rc = yamldoc_error(y, put, d, "Cannot read trace message: function=%s: only a get "
                         "has a put", m->function);
  }
  if (m->status && (!m->kind || (strcmp(m->kind, "recv") != 0 &&
                                 (strcmp(m->kind, "complete") != 0 ||
                                  (!m->request && !m->requests)))))
    rc = yamldoc_error(y, body, d, "Cannot read trace message: function=%s: only a recv, "
                       "or a complete call, has a status (a send's receive: "
                       "recv.status)", m->function);
  if ((m->index || m->indices) && !m->requests)
    rc = yamldoc_error(y, body, d, "Cannot read trace message: function=%s: index and "
                       "indices need requests", m->function);
  if (!m->indices != !m->indices_count || (m->index && m->indices))
    rc = yamldoc_error(y, body, d, "Cannot read trace message: function=%s: indices and "
                       "indices_count go together, without index", m->function);
  rc |= read_factor(y, body, "size_factor", m->function, &m->size_factor, d);
  rc |= read_factor(y, body, "bus_factor", m->function, &m->bus_factor, d);
  if ((m->requests || m->done) && (!m->kind || strcmp(m->kind, "complete") != 0))
    rc = yamldoc_error(y, body, d, "Cannot read trace message: function=%s: only complete "
                       "calls have requests or done", m->function);
  if (yamldoc_get(y, body, "size_factor") && !yamldoc_get(y, body, "bus_factor"))
    rc = yamldoc_error(y, body, d, "Cannot read trace message: function=%s: a size_factor "
                       "needs a bus_factor", m->function);
  static const char *const kinds[] = {"send", "recv", "collective", "put", "get", "complete"};
  bool known = false;
  for (size_t k = 0; m->kind && k < sizeof kinds / sizeof *kinds; k++)
    known |= strcmp(m->kind, kinds[k]) == 0;
  if (m->kind && !known)
    rc = yamldoc_error(y, yamldoc_get(y, body, "kind"), d,
                       "Cannot read message kind: expected send, recv, collective, put, get "
                       "or complete, got %s",
                       m->kind);
  return rc;
}

static int read_messages(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t,
                         struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read trace.messages: expected FUNCTION: {kind: ...}");
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *body = yamldoc_map_value(y, n, i);
    if (yamldoc_check_keys(y, body, message_keys, "trace message", d))
      rc = -1;
    else
      rc |= read_message(y, yamldoc_map_key(y, n, i), body, t, d);
  }
  return rc;
}

/* ---- trace.world_rank and trace.communicators ---- */

/* TYPE: FUNCTION entries (trace.world_rank, trace.group_made) into out. */
static int read_world_ranks(struct yamldoc *y, yaml_node_t *n, const char *what,
                            struct ptrvec *out, struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read %s: expected TYPE: FUNCTION", what);
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *key = yamldoc_map_key(y, n, i);
    yaml_node_t *value = yamldoc_map_value(y, n, i);
    const char *type = yamldoc_scalar(key), *function = yamldoc_scalar(value);
    if (!type || !*type || !function || !*function) {
      rc = yamldoc_error(y, value, d, "Cannot read %s: expected TYPE: FUNCTION", what);
      continue;
    }
    struct spec_world_rank *w = xcalloc(1, sizeof *w);
    w->type = xstrdup(type);
    w->function = xstrdup(function);
    w->loc = spec_loc_of(key);
    ptrvec_push(out, w);
  }
  return rc;
}

static int read_communicators(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t,
                              struct diag *d) {
  static const char expected[] =
      "Cannot read trace.communicators: expected TYPE: {rank: FUNCTION, size: FUNCTION, id: "
      "FUNCTION}";
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, expected);
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *key = yamldoc_map_key(y, n, i);
    yaml_node_t *body = yamldoc_map_value(y, n, i);
    const char *type = yamldoc_scalar(key);
    if (!type || !*type || body->type != YAML_MAPPING_NODE) {
      rc = yamldoc_error(y, body, d, expected);
      continue;
    }
    if (yamldoc_check_keys(y, body, communicator_keys, "trace.communicators entry", d)) {
      rc = -1;
      continue;
    }
    struct spec_communicator *c = xcalloc(1, sizeof *c);
    c->type = xstrdup(type);
    c->loc = spec_loc_of(key);
    ptrvec_push(&t->communicators, c);
    rc |= spec_read_string(y, body, "rank", true, &c->rank, d);
    rc |= spec_read_string(y, body, "size", true, &c->size, d);
    rc |= spec_read_string(y, body, "id", false, &c->id, d);
  }
  return rc;
}

/* ---- trace.element_sizes and trace.handle_ids ---- */

/* One pair of trace.element_sizes: CONSTANT: BYTES. */
static int add_element_size(struct yamldoc *y, yaml_node_t *key, yaml_node_t *value,
                            const char *constant, const char *bytes, struct spec_trace *t,
                            struct diag *d) {
  (void)value;
  if (strspn(bytes, "0123456789") != strlen(bytes))
    return yamldoc_error(y, key, d, "Cannot read trace.element_sizes: expected CONSTANT: BYTES");
  struct spec_element_size *e = xcalloc(1, sizeof *e);
  e->constant = xstrdup(constant);
  e->bytes = xstrdup(bytes);
  e->loc = spec_loc_of(key);
  ptrvec_push(&t->element_sizes, e);
  return 0;
}

static int read_handle_id(struct yamldoc *y, const char *function, struct spec_loc loc,
                          yaml_node_t *body, struct spec_trace *t, struct diag *d) {
  struct spec_handle_id *h = xcalloc(1, sizeof *h);
  h->function = xstrdup(function);
  h->loc = loc;
  ptrvec_push(&t->handle_ids, h);
  int rc = 0;
  struct {
    const char *key;
    char **value;
  } keys[] = {{"handle", &h->handle}, {"from", &h->from},  {"when", &h->when},
              {"parent", &h->parent}, {"salt", &h->salt}, {"forget", &h->forget}};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    rc |= read_optional(y, body, keys[i].key, keys[i].value, d);
  bool made = h->handle && h->from && !h->parent && !h->salt && !h->forget;
  bool derived = h->handle && h->parent && h->salt && !h->from && !h->forget;
  bool forget = h->forget && !h->handle && !h->from && !h->parent && !h->salt && !h->when;
  if (!rc && !made && !derived && !forget)
    rc = yamldoc_error(y, body, d,
                       "Cannot read trace.handle_ids.%s: expected {handle, from}, {handle, "
                       "parent, salt} or {forget}",
                       function);
  return rc;
}

/* ---- trace.groups ---- */

static int read_group_calls(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t,
                            struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read trace.groups: expected FUNCTION: {made, from}");
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *key = yamldoc_map_key(y, n, i);
    yaml_node_t *body = yamldoc_map_value(y, n, i);
    if (yamldoc_check_keys(y, body, group_call_keys, "trace.groups entry", d)) {
      rc = -1;
      continue;
    }
    struct spec_group_call *g = xcalloc(1, sizeof *g);
    g->function = xstrdup(yamldoc_scalar(key) ? yamldoc_scalar(key) : "");
    g->loc = spec_loc_of(key);
    ptrvec_push(&t->group_calls, g);
    rc |= spec_read_string(y, body, "made", true, &g->made, d);
    rc |= spec_read_string(y, body, "from", true, &g->from, d);
    rc |= spec_read_string(y, body, "type", false, &g->type, d);
  }
  return rc;
}

/* ---- trace.rma_sync ---- */

static int read_rma_syncs(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t,
                          struct diag *d) {
  static const char *const syncs[] = {"fence", "lock", "unlock", "lock_all", "unlock_all",
                                      "flush", "free"};
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return yamldoc_error(y, n, d, "Cannot read trace.rma_sync: expected FUNCTION: {sync, win}");
  int rc = 0;
  for (int i = 0; i < yamldoc_map_length(n); i++) {
    yaml_node_t *key = yamldoc_map_key(y, n, i);
    yaml_node_t *body = yamldoc_map_value(y, n, i);
    if (yamldoc_check_keys(y, body, rma_sync_keys, "trace.rma_sync entry", d)) {
      rc = -1;
      continue;
    }
    struct spec_rma_sync *r = xcalloc(1, sizeof *r);
    r->function = xstrdup(yamldoc_scalar(key) ? yamldoc_scalar(key) : "");
    r->loc = spec_loc_of(key);
    ptrvec_push(&t->rma_syncs, r);
    rc |= spec_read_string(y, body, "sync", true, &r->sync, d);
    rc |= spec_read_string(y, body, "win", true, &r->win, d);
    rc |= read_optional(y, body, "peer", &r->peer, d);
    rc |= read_optional(y, body, "shared", &r->shared, d);
    bool known = false;
    for (size_t k = 0; r->sync && k < sizeof syncs / sizeof *syncs; k++)
      known |= strcmp(r->sync, syncs[k]) == 0;
    if (r->sync && !known)
      rc = yamldoc_error(y, yamldoc_get(y, body, "sync"), d,
                         "Cannot read trace.rma_sync: function=%s: expected sync fence, lock, "
                         "unlock, lock_all, unlock_all, flush or free, got %s",
                         r->function, r->sync);
    bool ranked = r->sync && (strcmp(r->sync, "lock") == 0 || strcmp(r->sync, "unlock") == 0 ||
                              strcmp(r->sync, "flush") == 0);
    if (r->sync && ranked != (r->peer != NULL))
      rc = yamldoc_error(y, body, d, "Cannot read trace.rma_sync: function=%s: lock, unlock and "
                         "flush name their target rank (peer), the others none", r->function);
    if (r->shared && (!r->sync || strcmp(r->sync, "lock") != 0))
      rc = yamldoc_error(y, body, d, "Cannot read trace.rma_sync: function=%s: only a lock is "
                         "shared", r->function);
  }
  return rc;
}

/* trace.message_status: {type, source, bytes}, all three. */
static int read_message_status(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t,
                               struct diag *d) {
  if (!n)
    return 0;
  if (n->type != YAML_MAPPING_NODE ||
      yamldoc_check_keys(y, n, message_status_keys, "trace.message_status", d))
    return n->type != YAML_MAPPING_NODE
               ? yamldoc_error(y, n, d, "Cannot read trace.message_status: expected "
                               "{type, source, bytes}")
               : -1;
  int rc = spec_read_string(y, n, "type", true, &t->message_status_type, d);
  rc |= spec_read_string(y, n, "source", true, &t->message_status_source, d);
  rc |= spec_read_string(y, n, "bytes", true, &t->message_status_bytes, d);
  return rc;
}

int spec_read_messages(struct yamldoc *y, yaml_node_t *n, struct spec_trace *t, struct diag *d) {
  int rc = read_messages(y, yamldoc_get(y, n, "messages"), t, d);
  rc |= read_optional(y, n, "element_size", &t->element_size, d);
  rc |= read_message_status(y, yamldoc_get(y, n, "message_status"), t, d);
  rc |= read_world_ranks(y, yamldoc_get(y, n, "world_rank"), "trace.world_rank",
                         &t->world_ranks, d);
  rc |= read_world_ranks(y, yamldoc_get(y, n, "group_made"), "trace.group_made",
                         &t->group_made, d);
  rc |= read_group_calls(y, yamldoc_get(y, n, "groups"), t, d);
  rc |= read_rma_syncs(y, yamldoc_get(y, n, "rma_sync"), t, d);
  rc |= read_communicators(y, yamldoc_get(y, n, "communicators"), t, d);
  rc |= spec_read_pairs(y, yamldoc_get(y, n, "element_sizes"), "element_sizes", "BYTES",
                        add_element_size, t, d);
  rc |= spec_read_entries(y, yamldoc_get(y, n, "handle_ids"), "handle_ids", "trace handle id",
                          handle_id_keys, read_handle_id, t, d);
  return rc;
}

void spec_free_messages(struct spec_trace *t) {
  for (size_t i = 0; i < t->messages.len; i++) {
    struct spec_message *m = t->messages.items[i];
    char *strings[] = {m->function,   m->kind,          m->count,      m->datatype,
                       m->peer,       m->tag,           m->comm,       m->request,
                       m->requests,   m->done,          m->op,         m->root,
                       m->index,      m->indices,       m->indices_count, m->recv_count,
                       m->recv_datatype, m->recv_peer,  m->recv_tag,    m->status,
                       m->recv_status,   m->put_count,  m->put_datatype, m->put_unless};
    for (size_t k = 0; k < sizeof strings / sizeof *strings; k++)
      free(strings[k]);
    free(m);
  }
  ptrvec_free(&t->messages);
  free(t->element_size);
  free(t->message_status_type);
  free(t->message_status_source);
  free(t->message_status_bytes);
  for (size_t i = 0; i < t->world_ranks.len; i++) {
    struct spec_world_rank *w = t->world_ranks.items[i];
    free(w->type);
    free(w->function);
    free(w);
  }
  ptrvec_free(&t->world_ranks);
  for (size_t i = 0; i < t->group_made.len; i++) {
    struct spec_world_rank *w = t->group_made.items[i];
    free(w->type);
    free(w->function);
    free(w);
  }
  ptrvec_free(&t->group_made);
  for (size_t i = 0; i < t->group_calls.len; i++) {
    struct spec_group_call *g = t->group_calls.items[i];
    free(g->function);
    free(g->made);
    free(g->from);
    free(g->type);
    free(g);
  }
  ptrvec_free(&t->group_calls);
  for (size_t i = 0; i < t->rma_syncs.len; i++) {
    struct spec_rma_sync *r = t->rma_syncs.items[i];
    free(r->function);
    free(r->sync);
    free(r->win);
    free(r->peer);
    free(r->shared);
    free(r);
  }
  ptrvec_free(&t->rma_syncs);
  for (size_t i = 0; i < t->communicators.len; i++) {
    struct spec_communicator *c = t->communicators.items[i];
    free(c->type);
    free(c->rank);
    free(c->size);
    free(c->id);
    free(c->rank_query);
    free(c->size_query);
    free(c);
  }
  ptrvec_free(&t->communicators);
  for (size_t i = 0; i < t->element_sizes.len; i++) {
    struct spec_element_size *e = t->element_sizes.items[i];
    free(e->constant);
    free(e->bytes);
    free(e);
  }
  ptrvec_free(&t->element_sizes);
  for (size_t i = 0; i < t->handle_ids.len; i++) {
    struct spec_handle_id *h = t->handle_ids.items[i];
    char *strings[] = {h->function, h->handle, h->from, h->when, h->parent, h->salt, h->forget};
    for (size_t k = 0; k < sizeof strings / sizeof *strings; k++)
      free(strings[k]);
    free(h);
  }
  ptrvec_free(&t->handle_ids);
}
