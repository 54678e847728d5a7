/* view_rma_sync: see view_rma_sync.h. */
#include "view_rma_sync.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_record.h"
#include "view_expr.h"

/* The description of a call that synchronizes no window. */
#define NO_RMA_SYNC "{TRACER_RMA_SYNC_NONE, -1, -1, -1}"

struct spec_rma_sync *view_rma_sync_of(const struct spec *s, const struct model_function *f) {
  for (size_t i = 0; i < s->trace.rma_syncs.len; i++) {
    struct spec_rma_sync *r = s->trace.rma_syncs.items[i];
    if (fnmatch(r->function, f->name, 0) == 0) {
      r->matches++;
      return r;
    }
  }
  return NULL;
}

/* Whether the call frees its window (its param points to the handle). */
static bool frees(const struct spec_rma_sync *r) { return strcmp(r->sync, "free") == 0; }

static const struct model_param *param_of(const struct model_function *f, const char *name) {
  return name ? view_param_named(f, name, strlen(name)) : NULL;
}

int view_rma_sync_slots(const struct spec *s, const struct model_function *f,
                        const struct spec_rma_sync *r, struct view_record_extra *extra,
                        struct diag *d) {
  const struct model_param *win = param_of(f, r->win);
  if (!win || (r->peer && !param_of(f, r->peer)))
    return diag_error_at(d, s->path, r->loc.line, r->loc.column,
                         "Cannot describe RMA synchronization: function=%s, win=%s, peer=%s "
                         "names no param",
                         f->name, r->win, r->peer ? r->peer : "");
  /* A call that frees its window takes a pointer to it, reset by the call: its value as
   * passed names the window. */
  if (frees(r)) {
    if (extra->value_in && strcmp(extra->value_in, win->name) != 0)
      return diag_error_at(d, s->path, r->loc.line, r->loc.column,
                           "Cannot describe RMA synchronization: function=%s: its message "
                           "already keeps %s as passed",
                           f->name, extra->value_in);
    extra->value_in = win->name;
  }
  if (r->shared) {
    extra->lock_shared = view_value_expr(f, r->shared, "tracer_args.");
    if (!extra->lock_shared)
      return diag_error_at(d, s->path, r->loc.line, r->loc.column,
                           "Cannot describe RMA synchronization: function=%s, shared=%s names "
                           "no param",
                           f->name, r->shared);
  }
  return 0;
}

void view_rma_sync_describe(const struct spec_rma_sync *r, struct tree *fn) {
  if (!r) {
    tree_set_string(fn, "rma_sync", NO_RMA_SYNC);
    return;
  }
  char sync[32];
  size_t n = 0;
  for (const char *k = r->sync; *k && n + 1 < sizeof sync; k++)
    sync[n++] = (char)toupper((unsigned char)*k);
  sync[n] = '\0';
  char *win_slot = frees(r) ? xasprintf("%s_in", r->win) : xstrdup(r->win);
  tree_set(fn, "rma_sync",
           tree_stringf("{TRACER_RMA_SYNC_%s, %d, %d, %d}", sync,
                        view_record_slot_index(fn, win_slot), view_record_slot_index(fn, r->peer),
                        view_record_slot_index(fn, r->shared ? "lock_shared" : NULL)));
  free(win_slot);
}

int view_rma_sync_finish(const struct spec *s, struct tree *root, struct diag *d) {
  int rc = 0;
  tree_set_string(root, "no_rma_sync", NO_RMA_SYNC);
  for (size_t i = 0; i < s->trace.rma_syncs.len; i++) {
    const struct spec_rma_sync *r = s->trace.rma_syncs.items[i];
    if (r->matches == 0)
      rc = diag_error_at(d, s->path, r->loc.line, r->loc.column,
                         "Filter matches nothing: trace.rma_sync function=%s", r->function);
  }
  return rc;
}
