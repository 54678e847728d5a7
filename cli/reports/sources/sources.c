/* sources: see sources.h. */
#include "sources.h"

#include <stdlib.h>
#include <string.h>

/* Device time by stack and kernel. */
struct entry {
  const struct trace_stack *stack; /* NULL: empty slot */
  char *kernel;                    /* owned */
  uint64_t ns, commands;
};

struct sources {
  struct entry *entries; /* open addressing */
  size_t cap, count;
  uint64_t stacked_ns, other_ns;
  bool failed;
};

static uint64_t hash_of(const struct trace_stack *s, const char *kernel, size_t len) {
  uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)kernel[i]) * 1099511628211u;
  return h;
}

static bool grow(struct sources *s) {
  size_t cap = s->cap ? 2 * s->cap : 256;
  struct entry *entries = calloc(cap, sizeof *entries);
  if (!entries)
    return false;
  for (size_t i = 0; i < s->cap; i++) {
    struct entry *e = &s->entries[i];
    if (!e->stack)
      continue;
    size_t k = hash_of(e->stack, e->kernel, strlen(e->kernel)) & (cap - 1);
    while (entries[k].stack)
      k = (k + 1) & (cap - 1);
    entries[k] = *e;
  }
  free(s->entries);
  s->entries = entries, s->cap = cap;
  return true;
}

static int add(struct sources *s, const struct trace_stack *stack, const char *kernel, size_t len,
               uint64_t ns, uint64_t commands) {
  if ((s->count + 1) * 4 > s->cap * 3 && !grow(s))
    return -1;
  size_t k = hash_of(stack, kernel, len) & (s->cap - 1);
  for (; s->entries[k].stack; k = (k + 1) & (s->cap - 1)) {
    struct entry *e = &s->entries[k];
    if (e->stack == stack && strlen(e->kernel) == len && memcmp(e->kernel, kernel, len) == 0) {
      e->ns += ns, e->commands += commands;
      return 0;
    }
  }
  char *copy = strndup(kernel, len);
  if (!copy)
    return -1;
  s->entries[k] = (struct entry){stack, copy, ns, commands};
  s->count++;
  return 0;
}

static int on_device(void *context, const struct trace_device *d) {
  struct sources *s = context;
  if (d->backend < 0) /* the tally counts no other */
    return 0;
  if (!d->stack) {
    s->other_ns += d->duration_ns;
    return 0;
  }
  s->stacked_ns += d->duration_ns;
  if (add(s, d->stack, d->name, d->name_len, d->duration_ns, 1))
    s->failed = true;
  return s->failed ? -1 : 0;
}

static void *fork_sources(void *context) {
  (void)context;
  return calloc(1, sizeof(struct sources));
}

static int join_sources(void *context, void *worker) {
  struct sources *s = context, *w = worker;
  for (size_t i = 0; i < w->cap && !s->failed; i++)
    if (w->entries[i].stack &&
        add(s, w->entries[i].stack, w->entries[i].kernel, strlen(w->entries[i].kernel),
            w->entries[i].ns, w->entries[i].commands))
      s->failed = true;
  s->stacked_ns += w->stacked_ns;
  s->other_ns += w->other_ns;
  s->failed |= w->failed;
  sources_free(w);
  return s->failed ? -1 : 0;
}

int sources_open(struct sources **out, struct trace_consumer *consumer, struct diag *d) {
  struct sources *s = calloc(1, sizeof *s);
  *out = s;
  if (!s)
    return diag_error(d, "Cannot find the source lines of device work: out of memory");
  *consumer = (struct trace_consumer){
      .name = "sources",
      .context = s,
      .fork = fork_sources,
      .join = join_sources,
      .device = on_device,
  };
  return 0;
}

void sources_free(struct sources *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->cap; i++)
    free(s->entries[i].kernel);
  free(s->entries);
  free(s);
}

int sources_name(const struct sources *s, struct sources_table *t) {
  t->stacked_ns += s->stacked_ns;
  t->other_ns += s->other_ns;
  for (size_t i = 0; i < s->cap; i++) {
    const struct entry *e = &s->entries[i];
    const struct trace_frame *f = e->stack ? trace_stack_source(e->stack) : NULL;
    if (!f)
      continue;
    struct sources_line *l = sources_table_line(t, f->kind, f->line, f->file, f->function,
                                                f->label);
    if (!l || sources_line_add(l, e->kernel, e->ns, e->commands))
      return -1;
  }
  return 0;
}

void sources_print(const struct sources *s, unsigned rows, bool full_names, FILE *out) {
  if (!s || !s->stacked_ns)
    return;
  struct sources_table t = {0};
  if (sources_name(s, &t) == 0)
    sources_table_print(&t, rows, full_names, false, out);
  sources_table_free(&t);
}
