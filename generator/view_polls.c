/* view_polls: see view_polls.h. */
#include "view_polls.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>

#include "util.h"
#include "view_expr.h"

static struct spec_poll *poll_of(const struct spec *s, const struct model_function *f) {
  for (size_t i = 0; i < s->trace.polls.len; i++) {
    struct spec_poll *p = s->trace.polls.items[i];
    if (fnmatch(p->function, f->name, 0) == 0) {
      p->matches++;
      return p;
    }
  }
  return NULL;
}

/* Whether f's not-ready values are its own: the first status rule matching it has some. */
static bool own_not_ready(const struct spec *s, const struct model_function *f) {
  for (size_t i = 0; i < s->trace.status_rules.len; i++) {
    const struct spec_status_rule *r = s->trace.status_rules.items[i];
    if (fnmatch(r->function, f->name, 0) == 0)
      return r->not_ready.len > 0;
  }
  return false;
}

/* "(S == v1 || S == v2)" over the values; "0" without any. */
static void any_of(struct strbuf *out, const char *status, const struct ptrvec *values) {
  if (!values->len) {
    strbuf_add(out, "0");
    return;
  }
  strbuf_add(out, "(");
  for (size_t i = 0; i < values->len; i++)
    strbuf_addf(out, "%s%s == INT64_C(%" PRId64 ")", i ? " || " : "", status,
                *(int64_t *)values->items[i]);
  strbuf_add(out, ")");
}

/* The condition of a poll that found nothing, with the status and the args as named. */
static char *not_ready(const struct model_function *f, const char *status, const char *done) {
  struct strbuf c;
  strbuf_init(&c);
  if (done && f->status) {
    any_of(&c, status, &f->status->success);
    strbuf_addf(&c, " && !(%s)", done);
  } else if (done) {
    strbuf_addf(&c, "!(%s)", done);
  } else {
    any_of(&c, status, &f->status->not_ready);
  }
  return strbuf_release(&c);
}

int view_poll_function(const struct spec *s, const char *backend, const struct model_function *f,
                       const char *lean_status, bool counted, struct view_record_extra *extra,
                       struct tree *fn, struct diag *d) {
  struct spec_poll *p = poll_of(s, f);
  if (counted || (!p && (!f->status || !f->status->not_ready.len)))
    return 0;
  char *done = p ? view_value_expr(f, p->done, "tracer_args.") : NULL;
  char *lean_done = p ? view_value_expr(f, p->done, "") : NULL;
  if (p && (!done || !lean_done)) {
    free(done);
    free(lean_done);
    return diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Cannot trace poll: function=%s, done=%s names no param", f->name,
                         p->done);
  }
  struct tree *poll = tree_set(fn, "poll", tree_map());
  char *counter = xasprintf("%s_polls_%s", backend, f->name);
  tree_set_string(poll, "counter", counter);
  char *full = not_ready(f, "tracer_args.tracer_status", done);
  char *lean = not_ready(f, lean_status, lean_done);
  tree_set_string(poll, "not_ready", full);
  tree_set_string(poll, "lean_not_ready", lean);
  if (p || own_not_ready(s, f)) {
    struct tree *sampled = tree_set(fn, "sampled_poll", tree_map());
    char *state = xasprintf("%s_poll_%s", backend, f->name);
    tree_set_string(sampled, "state", state);
    tree_set_string(sampled, "not_ready", full);
    tree_set_string(sampled, "lean_not_ready", lean);
    extra->polls = xasprintf("tracer_poll_take(&%s)", state);
    free(state);
  } else {
    extra->polls = xasprintf("tracer_polls_take(&%s)", counter);
  }
  free(counter);
  free(full);
  free(lean);
  free(done);
  free(lean_done);
  return 0;
}

int view_polls_finish(const struct spec *s, struct diag *d) {
  int rc = 0;
  for (size_t i = 0; i < s->trace.polls.len; i++) {
    const struct spec_poll *p = s->trace.polls.items[i];
    if (p->matches == 0)
      rc = diag_error_at(d, s->path, p->loc.line, p->loc.column,
                         "Filter matches nothing: trace.polls function=%s", p->function);
  }
  return rc;
}
