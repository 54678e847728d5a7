/* line_order: see line_order.h. */
#include "line_order.h"

#include <stdlib.h>

struct line {
  uint64_t at, seq; /* seq keeps lines of equal time in the order they were added */
  char *text;
};

struct lines {
  struct line *items;
  size_t count, cap;
};

/* A thread whose outermost call has not returned yet, with its nested calls' lines. */
struct waiting_thread {
  uint64_t thread;
  uint64_t earliest;
  struct lines lines;
};

struct line_order {
  FILE *out;
  struct lines heap; /* min-heap by (at, seq) */
  struct waiting_thread *waiting;
  size_t waiting_count, waiting_cap;
  uint64_t seq;
};

static int lines_push(struct lines *l, struct line line) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    struct line *grown = realloc(l->items, cap * sizeof *grown);
    if (!grown)
      return -1;
    l->items = grown;
    l->cap = cap;
  }
  l->items[l->count++] = line;
  return 0;
}

static int before(const struct line *a, const struct line *b) {
  return a->at != b->at ? a->at < b->at : a->seq < b->seq;
}

static int heap_push(struct line_order *o, struct line line) {
  if (lines_push(&o->heap, line))
    return -1;
  struct line *h = o->heap.items;
  for (size_t i = o->heap.count - 1; i > 0;) {
    size_t parent = (i - 1) / 2;
    if (!before(&h[i], &h[parent]))
      break;
    struct line tmp = h[i];
    h[i] = h[parent];
    h[parent] = tmp;
    i = parent;
  }
  return 0;
}

static struct line heap_pop(struct line_order *o) {
  struct line *h = o->heap.items, top = h[0];
  h[0] = h[--o->heap.count];
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < o->heap.count && before(&h[l], &h[m]))
      m = l;
    if (r < o->heap.count && before(&h[r], &h[m]))
      m = r;
    if (m == i)
      break;
    struct line tmp = h[i];
    h[i] = h[m];
    h[m] = tmp;
    i = m;
  }
  return top;
}

struct line_order *line_order_new(FILE *out) {
  struct line_order *o = calloc(1, sizeof *o);
  if (o)
    o->out = out;
  return o;
}

static int add(struct line_order *o, uint64_t at, char *text) {
  struct line line = {at, o->seq++, text};
  if (heap_push(o, line)) {
    free(text);
    return -1;
  }
  return 0;
}

int line_order_add(struct line_order *o, uint64_t at, char *text) { return add(o, at, text); }

static struct waiting_thread *waiting_for(struct line_order *o, uint64_t thread, int create) {
  for (size_t i = 0; i < o->waiting_count; i++)
    if (o->waiting[i].thread == thread)
      return &o->waiting[i];
  if (!create)
    return NULL;
  if (o->waiting_count == o->waiting_cap) {
    size_t cap = o->waiting_cap ? 2 * o->waiting_cap : 8;
    struct waiting_thread *grown = realloc(o->waiting, cap * sizeof *grown);
    if (!grown)
      return NULL;
    o->waiting = grown;
    o->waiting_cap = cap;
  }
  struct waiting_thread *w = &o->waiting[o->waiting_count++];
  *w = (struct waiting_thread){thread, UINT64_MAX, {0}};
  return w;
}

int line_order_add_call(struct line_order *o, uint64_t thread, unsigned depth, uint64_t start,
                        char *entry, uint64_t exit_at, char *exit) {
  struct line lines[2] = {{start, o->seq++, entry}, {exit_at, o->seq++, exit}};
  struct waiting_thread *w = waiting_for(o, thread, depth > 0);
  if (depth > 0) {
    if (!w || lines_push(&w->lines, lines[0]) || lines_push(&w->lines, lines[1])) {
      free(entry);
      free(exit);
      return -1;
    }
    if (start < w->earliest)
      w->earliest = start;
    return 0;
  }
  int rc = heap_push(o, lines[0]) | heap_push(o, lines[1]);
  if (w) {
    /* The outermost call returned: its nested calls' lines can be ordered now. */
    for (size_t i = 0; i < w->lines.count; i++)
      rc |= heap_push(o, w->lines.items[i]);
    free(w->lines.items);
    *w = o->waiting[--o->waiting_count];
  }
  return rc;
}

void line_order_flush(struct line_order *o, uint64_t now) {
  uint64_t limit = now;
  for (size_t i = 0; i < o->waiting_count; i++)
    if (o->waiting[i].earliest < limit)
      limit = o->waiting[i].earliest;
  while (o->heap.count && o->heap.items[0].at <= limit) {
    struct line line = heap_pop(o);
    fputs(line.text, o->out);
    free(line.text);
  }
}

void line_order_finish(struct line_order *o) {
  if (!o)
    return;
  /* Calls whose outermost caller never returned (the process ended in them). */
  for (size_t i = 0; i < o->waiting_count; i++) {
    for (size_t k = 0; k < o->waiting[i].lines.count; k++)
      heap_push(o, o->waiting[i].lines.items[k]);
    free(o->waiting[i].lines.items);
  }
  o->waiting_count = 0;
  line_order_flush(o, UINT64_MAX);
  free(o->heap.items);
  free(o->waiting);
  free(o);
}
