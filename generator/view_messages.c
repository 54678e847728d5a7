/* view_messages: see view_messages.h. */
#include "view_messages.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_record.h"
#include "view_expr.h"

struct spec_message *view_message_of(const struct spec *s, const struct model_function *f) {
  for (size_t i = 0; i < s->trace.messages.len; i++) {
    struct spec_message *m = s->trace.messages.items[i];
    if (fnmatch(m->function, f->name, 0) == 0) {
      m->matches++;
      return m;
    }
  }
  return NULL;
}

static const struct model_param *param_of(const struct model_function *f, const char *name) {
  for (size_t i = 0; name && i < f->params.len; i++) {
    const struct model_param *p = f->params.items[i];
    if (strcmp(p->name, name) == 0)
      return p;
  }
  return NULL;
}

/* The trace.world_rank entry for handles of type t, or NULL. */
static struct spec_world_rank *world_rank_of(const struct spec *s, const struct model_type *t) {
  for (size_t i = 0; t && i < s->trace.world_ranks.len; i++) {
    struct spec_world_rank *w = s->trace.world_ranks.items[i];
    if (strcmp(w->type, t->spelling) == 0)
      return w;
  }
  return NULL;
}

/* The trace.communicators entry for handles of type t, or NULL. */
static struct spec_communicator *communicator_of(const struct spec *s,
                                                 const struct model_type *t) {
  for (size_t i = 0; t && i < s->trace.communicators.len; i++) {
    struct spec_communicator *c = s->trace.communicators.items[i];
    if (strcmp(c->type, t->spelling) == 0)
      return c;
  }
  return NULL;
}

int view_message_slots(const struct spec *s, const char *prefix, const struct model_function *f,
                       const struct spec_message *msg, struct view_record_extra *extra,
                       struct diag *d) {
  memset(extra, 0, sizeof *extra);
  const char *names[] = {msg->count,      msg->datatype,      msg->peer,      msg->tag,
                         msg->comm,       msg->request,       msg->requests,  msg->op,
                         msg->root,       msg->indices,       msg->recv_count, msg->recv_datatype,
                         msg->recv_peer,  msg->recv_tag,      msg->status,    msg->recv_status,
                         msg->put_count,  msg->put_datatype};
  const char *keys[] = {"count", "datatype", "peer",    "tag",        "comm",
                        "request", "requests", "op",    "root",       "indices",
                        "recv.count", "recv.datatype", "recv.peer", "recv.tag", "status",
                        "recv.status", "put.count", "put.datatype"};
  int rc = 0;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (names[i] && !param_of(f, names[i]))
      rc = diag_error_at(d, s->path, msg->loc.line, msg->loc.column,
                         "Cannot describe message: function=%s, %s=%s names no param", f->name,
                         keys[i], names[i]);
  if ((msg->status || msg->recv_status) && !s->trace.message_status_type)
    rc = diag_error_at(d, s->path, msg->loc.line, msg->loc.column,
                       "Cannot describe message: function=%s: a status needs "
                       "trace.message_status",
                       f->name);
  if (rc)
    return rc;
  const char *success = s->trace.status_success ? s->trace.status_success : "0";
  const char *status_source = s->trace.message_status_source;
  const char *status_bytes = s->trace.message_status_bytes;
  if (msg->count && msg->datatype && s->trace.element_size) {
    const char *c = msg->count;
    char *bytes = xasprintf("tracer_args.%s > 0 ? (uint64_t)tracer_args.%s * "
                            "%s_element_size(tracer_args.%s) : 0",
                            c, c, prefix, msg->datatype);
    /* A get that also writes: the bytes it reads and those it writes, unless it writes
     * none (MPI_NO_OP). */
    if (msg->put_count && msg->put_datatype) {
      char *unless = msg->put_unless ? view_value_expr(f, msg->put_unless, "tracer_args.")
                                     : xstrdup("0");
      if (!unless) {
        free(bytes);
        return diag_error_at(d, s->path, msg->loc.line, msg->loc.column,
                             "Cannot describe message: function=%s, put.unless=%s names no "
                             "param",
                             f->name, msg->put_unless);
      }
      char *sum = xasprintf("(%s) + (!(%s) && tracer_args.%s > 0 ? (uint64_t)tracer_args.%s * "
                            "%s_element_size(tracer_args.%s) : 0)",
                            bytes, unless, msg->put_count, msg->put_count, prefix,
                            msg->put_datatype);
      free(unless);
      free(bytes);
      bytes = sum;
    }
    /* A call that starts a request keeps its bytes for the call that completes it
     * (runtime/tracer_requests.h), by the request's value as the record holds it. */
    if (msg->request && strcmp(msg->kind, "complete") != 0) {
      extra->bytes = xasprintf("tracer_request_started(tracer_args.tracer_status == %s, "
                               "tracer_record.%s_val, %s)",
                               success, msg->request, bytes);
      free(bytes);
    } else if (msg->status) {
      /* What arrived, which may be less than the count allows. */
      extra->bytes = xasprintf("%s_%s(tracer_args.tracer_status, tracer_args.%s, %s)", prefix,
                               status_bytes, msg->status, bytes);
      free(bytes);
    } else {
      extra->bytes = bytes;
    }
  }
  /* A completion call's request is in-out: the value it completes is the one passed. The
   * bytes it completes are those the calls that started its requests kept: of its
   * request, of the array it completes (read before the call, which resets them), or
   * none (a call that completes some requests of an array, which only the library
   * knows). */
  if (strcmp(msg->kind, "complete") == 0) {
    extra->value_in = msg->request;
    const struct model_param *array = param_of(f, msg->requests);
    const struct model_type *element = array ? array->type->target : NULL;
    if (msg->requests && (!element || !msg->count))
      return diag_error_at(d, s->path, msg->loc.line, msg->loc.column,
                           "Cannot describe message: function=%s, requests=%s: an array of "
                           "requests and their count are needed",
                           f->name, msg->requests);
    char *completed = NULL;
    char *done = msg->done ? view_value_expr(f, msg->done, "tracer_args.") : NULL;
    if (msg->done && !done)
      rc = diag_error_at(d, s->path, msg->loc.line, msg->loc.column,
                         "Cannot describe message: function=%s, done=%s names no param",
                         f->name, msg->done);
    if (msg->request) {
      completed = xasprintf("tracer_request_completed(tracer_record.%s_in)", msg->request);
    } else if (element) {
      /* The array as passed (the call resets what it completes); after the call, the
       * runtime records which of them it completed (runtime/tracer_requests.h). */
      extra->before = xasprintf("tracer_requests_before(tracer_args.%s, sizeof *tracer_args.%s, "
                                "%s, (int64_t)tracer_args.%s);",
                                msg->requests, msg->requests,
                                element->is_signed ? "true" : "false", msg->count);
      char *ok = xasprintf("tracer_args.tracer_status == %s%s%s", success, done ? " && " : "",
                           done ? done : "");
      char *index = msg->index ? view_value_expr(f, msg->index, "tracer_args.") : NULL;
      char *count = msg->indices_count ? view_value_expr(f, msg->indices_count, "tracer_args.")
                                       : NULL;
      if ((msg->index && !index) || (msg->indices_count && !count))
        rc = diag_error_at(d, s->path, msg->loc.line, msg->loc.column,
                           "Cannot describe message: function=%s, index=%s, indices_count=%s: "
                           "names no param",
                           f->name, msg->index ? msg->index : "", 
                           msg->indices_count ? msg->indices_count : "");
      /* The statuses of those it completed, one each in the order named: the runtime
       * reads their senders and bytes through the generated reader (args.h). */
      char *statuses =
          msg->status ? xasprintf("tracer_args.%s, %s_%s_at", msg->status, prefix, status_source)
                      : xstrdup("NULL, NULL");
      if (index)
        completed = xasprintf("tracer_requests_after(tracer_args.tracer_start, %s, "
                              "TRACER_COMPLETED_INDEX, (int64_t)(%s), NULL, 0, %s)",
                              ok, index, statuses);
      else if (count)
        completed = xasprintf("tracer_requests_after(tracer_args.tracer_start, %s, "
                              "TRACER_COMPLETED_INDICES, (int64_t)(%s), tracer_args.%s, "
                              "sizeof *tracer_args.%s, %s)",
                              ok, count, msg->indices, msg->indices, statuses);
      else
        completed = xasprintf("tracer_requests_after(tracer_args.tracer_start, %s, "
                              "TRACER_COMPLETED_ALL, 0, NULL, 0, %s)",
                              ok, statuses);
      free(statuses);
      free(ok);
      free(index);
      free(count);
      free(done);
      done = NULL; /* in the runtime's verdict */
    } else {
      completed = xstrdup("0");
    }
    if (s->trace.element_size && done)
      extra->bytes = xasprintf("tracer_args.tracer_status == %s && %s ? %s : 0", success, done,
                               completed);
    else if (s->trace.element_size)
      extra->bytes = xstrdup(completed);
    /* The receive its request made, as its status says (-1: ignored, or not done: the
     * status is not filled then; the hooks check the call's status). Those of an array
     * go in the runtime's completed event instead. */
    if (msg->status && msg->request) {
      char *bytes = xasprintf("%s_%s(tracer_args.tracer_status, tracer_args.%s, 0)", prefix,
                              status_bytes, msg->status);
      char *source = xasprintf("%s_%s(tracer_args.tracer_status, tracer_args.%s, -1)", prefix,
                               status_source, msg->status);
      extra->recv_world_name = xstrdup("status_source");
      if (done) {
        extra->recv_bytes = xasprintf("%s ? %s : 0", done, bytes);
        extra->recv_world = xasprintf("(%s ? %s : -1)", done, source);
        free(bytes);
        free(source);
      } else {
        extra->recv_bytes = bytes;
        extra->recv_world = source;
      }
    }
    free(done);
    free(completed);
  }
  /* A peer named in a communicator other than the world's: the hooks translate it. */
  const struct model_param *comm = param_of(f, msg->comm);
  struct spec_world_rank *world = msg->peer && comm ? world_rank_of(s, comm->type) : NULL;
  if (world) {
    world->matches++;
    extra->world_name = xasprintf("%s_world", msg->peer);
    char *peer = msg->status ? xasprintf("%s_%s(tracer_args.tracer_status, tracer_args.%s, "
                                         "tracer_args.%s)",
                                         prefix, status_source, msg->status, msg->peer)
                             : xasprintf("tracer_args.%s", msg->peer);
    extra->world = xasprintf("%s_%s(tracer_args.tracer_status, tracer_args.%s, %s)", prefix,
                             world->function, msg->comm, peer);
    free(peer);
  }
  /* A send that also receives: the receive's bytes and its peer as a world rank. */
  if (msg->recv_count && msg->recv_datatype && s->trace.element_size) {
    char *named = xasprintf("tracer_args.%s > 0 ? (uint64_t)tracer_args.%s * "
                            "%s_element_size(tracer_args.%s) : 0",
                            msg->recv_count, msg->recv_count, prefix, msg->recv_datatype);
    extra->recv_bytes = msg->recv_status
                            ? xasprintf("%s_%s(tracer_args.tracer_status, tracer_args.%s, %s)",
                                        prefix, status_bytes, msg->recv_status, named)
                            : xstrdup(named);
    free(named);
  }
  if (world && msg->recv_peer) {
    char *peer = msg->recv_status
                     ? xasprintf("%s_%s(tracer_args.tracer_status, tracer_args.%s, "
                                 "tracer_args.%s)",
                                 prefix, status_source, msg->recv_status, msg->recv_peer)
                     : xasprintf("tracer_args.%s", msg->recv_peer);
    extra->recv_world_name = xasprintf("%s_world", msg->recv_peer);
    extra->recv_world = xasprintf("%s_%s(tracer_args.tracer_status, tracer_args.%s, %s)",
                                  prefix, world->function, msg->comm, peer);
    free(peer);
  }
  /* The communicator's rank and size, which the hooks read from its handle. */
  struct spec_communicator *communicator = comm ? communicator_of(s, comm->type) : NULL;
  if (communicator) {
    communicator->matches++;
    extra->comm_rank = xasprintf("%s_%s(tracer_args.%s)", prefix, communicator->rank, msg->comm);
    extra->comm_size = xasprintf("%s_%s(tracer_args.%s)", prefix, communicator->size, msg->comm);
    if (communicator->id)
      extra->comm_id = xasprintf("%s_%s(tracer_args.%s)", prefix, communicator->id, msg->comm);
  }
  if (msg->bus_factor.c == 0 && msg->bus_factor.d == 0)
    return rc;
  if (!communicator || !extra->bytes)
    rc = diag_error_at(d, s->path, msg->loc.line, msg->loc.column,
                       "Cannot describe message: function=%s: a bus_factor needs the bytes "
                       "(count, datatype and trace.element_size) and a comm whose type is "
                       "one of trace.communicators",
                       f->name);
  return rc;
}

/* The description of a call that is no message. */
#define NO_MESSAGE                                                                               \
  "{TRACER_MESSAGE_NONE, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, {0, 0, 0, 0}, "    \
  "{0, 0, 0, 0}}"

void view_message_describe(const struct spec_message *msg, struct tree *fn) {
  if (!msg) {
    tree_set_string(fn, "message", NO_MESSAGE);
    return;
  }
  char kind[32];
  size_t n = 0;
  for (const char *k = msg->kind; *k && n + 1 < sizeof kind; k++)
    kind[n++] = (char)toupper((unsigned char)*k);
  kind[n] = '\0';
  int request = -1;
  if (msg->request) {
    char *name = xasprintf("%s_%s", msg->request, strcmp(msg->kind, "complete") ? "val" : "in");
    request = view_record_slot_index(fn, name);
    free(name);
  }
  /* The peer as a world rank when the record has it, else as the call named it. */
  int peer = -1;
  if (msg->peer) {
    char *world = xasprintf("%s_world", msg->peer);
    peer = view_record_slot_index(fn, world);
    free(world);
  }
  if (peer < 0)
    peer = view_record_slot_index(fn, msg->peer);
  int recv_peer = -1;
  if (msg->recv_peer) {
    char *world = xasprintf("%s_world", msg->recv_peer);
    recv_peer = view_record_slot_index(fn, world);
    free(world);
    if (recv_peer < 0)
      recv_peer = view_record_slot_index(fn, msg->recv_peer);
  } else if (msg->status && msg->request && strcmp(msg->kind, "complete") == 0) {
    recv_peer = view_record_slot_index(fn, "status_source");
  }
  const struct spec_rank_factor *size = &msg->size_factor, *bus = &msg->bus_factor;
  tree_set(fn, "message",
           tree_stringf(
               "{TRACER_MESSAGE_%s, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, "
               "{%d, %d, %d, %d}, {%d, %d, %d, %d}}",
               kind, view_record_slot_index(fn, "bytes"), peer,
               view_record_slot_index(fn, msg->tag), view_record_slot_index(fn, msg->comm), request,
               view_record_slot_index(fn, msg->op), view_record_slot_index(fn, msg->root),
               view_record_slot_index(fn, "comm_rank"), view_record_slot_index(fn, "comm_size"),
               view_record_slot_index(fn, "comm_id"), view_record_slot_index(fn, "recv_bytes"),
               recv_peer, view_record_slot_index(fn, msg->recv_tag), size->a, size->b, size->c,
               size->d, bus->a, bus->b, bus->c, bus->d));
}

int view_group_call(const struct spec *s, const char *prefix, const struct model_function *f,
                    struct tree *fn, struct diag *d) {
  struct spec_group_call *g = NULL;
  for (size_t i = 0; !g && i < s->trace.group_calls.len; i++)
    if (fnmatch(((struct spec_group_call *)s->trace.group_calls.items[i])->function, f->name,
                0) == 0)
      g = s->trace.group_calls.items[i];
  if (!g)
    return 0;
  g->matches++;
  /* With `type`, made and from are predefined handles of that type (MPI_COMM_SELF), the
   * hooks function given a pointer to a copy of made. */
  const struct model_param *made = g->type ? NULL : param_of(f, g->made);
  const struct model_param *from = g->type ? NULL : param_of(f, g->from);
  const char *type = g->type ? g->type
                     : made && made->type->kind == MODEL_KIND_POINTER
                         ? made->type->target->spelling
                         : NULL;
  struct spec_world_rank *hook = NULL;
  for (size_t i = 0; type && !hook && i < s->trace.group_made.len; i++)
    if (strcmp(((struct spec_world_rank *)s->trace.group_made.items[i])->type, type) == 0)
      hook = s->trace.group_made.items[i];
  if ((!from && !g->type) || !hook)
    return diag_error_at(d, s->path, g->loc.line, g->loc.column,
                         "Cannot describe group: function=%s: made=%s must name a pointer to a "
                         "type of trace.group_made (or, with type, a handle of it), from=%s a "
                         "param",
                         f->name, g->made, g->from);
  hook->matches++;
  /* One declaration per hooks function, from the first call that names a param. */
  if (!hook->from_type && from)
    hook->from_type = from->type->spelling;
  if (g->type) {
    /* A predefined handle's group is recorded in every mode: no later call makes it. */
    tree_set_bool(fn, "group_predefined", true);
    tree_set(fn, "group_call",
             tree_stringf("%s_%s(tracer_args.tracer_status, tracer_args.tracer_start, %s, "
                          "&(%s){%s});",
                          prefix, hook->function, g->from, g->type, g->made));
  } else {
    tree_set(fn, "group_call",
             tree_stringf("%s_%s(tracer_args.tracer_status, tracer_args.tracer_start, "
                          "tracer_args.%s, tracer_args.%s);",
                          prefix, hook->function, g->from, g->made));
  }
  return 0;
}

int view_messages_finish(const struct spec *s, struct tree *root, struct diag *d) {
  int rc = 0;
  struct tree *made = tree_set(root, "group_hooks", tree_list());
  for (size_t i = 0; i < s->trace.group_made.len; i++) {
    const struct spec_world_rank *w = s->trace.group_made.items[i];
    if (w->matches == 0) {
      rc = diag_error_at(d, s->path, w->loc.line, w->loc.column,
                         "Filter matches nothing: trace.group_made type=%s is made by no "
                         "trace.groups entry",
                         w->type);
      continue;
    }
    struct tree *item = tree_push(made, tree_map());
    tree_set_string(item, "type", w->type);
    tree_set_string(item, "function", w->function);
    tree_set_string(item, "from_type", w->from_type ? w->from_type : w->type);
  }
  for (size_t i = 0; i < s->trace.group_calls.len; i++) {
    const struct spec_group_call *g = s->trace.group_calls.items[i];
    if (g->matches == 0)
      rc = diag_error_at(d, s->path, g->loc.line, g->loc.column,
                         "Filter matches nothing: trace.groups function=%s", g->function);
  }
  tree_set_string(root, "no_message", NO_MESSAGE);
  if (s->trace.element_size)
    tree_set_string(tree_set(root, "element_size", tree_map()), "type", s->trace.element_size);
  if (s->trace.message_status_type) {
    struct tree *status = tree_set(root, "message_status", tree_map());
    tree_set_string(status, "type", s->trace.message_status_type);
    tree_set_string(status, "source", s->trace.message_status_source);
    tree_set_string(status, "bytes", s->trace.message_status_bytes);
    tree_set_string(status, "success", s->trace.status_success ? s->trace.status_success : "0");
  }
  struct tree *world_ranks = tree_set(root, "world_ranks", tree_list());
  for (size_t i = 0; i < s->trace.world_ranks.len; i++) {
    const struct spec_world_rank *w = s->trace.world_ranks.items[i];
    struct tree *item = tree_push(world_ranks, tree_map());
    tree_set_string(item, "type", w->type);
    tree_set_string(item, "function", w->function);
    if (w->matches == 0)
      rc = diag_error_at(d, s->path, w->loc.line, w->loc.column,
                         "Filter matches nothing: trace.world_rank type=%s is the comm of no "
                         "trace.messages entry with a peer",
                         w->type);
  }
  struct tree *communicators = tree_set(root, "communicators", tree_list());
  for (size_t i = 0; i < s->trace.communicators.len; i++) {
    const struct spec_communicator *c = s->trace.communicators.items[i];
    struct tree *item = tree_push(communicators, tree_map());
    tree_set_string(item, "type", c->type);
    tree_set_string(item, "rank", c->rank);
    tree_set_string(item, "size", c->size);
    tree_set_string(item, "id", c->id ? c->id : "");
    if (c->matches == 0)
      rc = diag_error_at(d, s->path, c->loc.line, c->loc.column,
                         "Filter matches nothing: trace.communicators type=%s is the comm of no "
                         "trace.messages entry",
                         c->type);
  }
  for (size_t i = 0; i < s->trace.messages.len; i++) {
    const struct spec_message *m = s->trace.messages.items[i];
    if (m->matches == 0)
      rc = diag_error_at(d, s->path, m->loc.line, m->loc.column,
                         "Filter matches nothing: trace.messages function=%s", m->function);
  }
  tree_set_string(root, "symbol_group", s->trace.symbol_group ? s->trace.symbol_group : "");
  return rc;
}
