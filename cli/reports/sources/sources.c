/* sources: see sources.h. */
#include "sources.h"

#include <stdlib.h>
#include <string.h>

#include "device_label.h"
#include "units.h"

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

/* ---- The table ------------------------------------------------------------------------ */

struct kernel_time {
  const char *name;
  uint64_t ns;
};

/* A source line: its entries' time, and its kernels. */
struct line {
  const struct trace_frame *source;
  uint64_t ns, commands;
  struct kernel_time *kernels;
  size_t kernel_count;
};

static bool same_source(const struct trace_frame *a, const struct trace_frame *b) {
  return a->kind == b->kind && a->line == b->line && strcmp(a->function, b->function) == 0 &&
         strcmp(a->file, b->file) == 0;
}

static int by_time(const void *a, const void *b) {
  uint64_t x = ((const struct line *)a)->ns, y = ((const struct line *)b)->ns;
  return x < y ? 1 : x > y ? -1 : 0;
}

static int kernel_by_time(const void *a, const void *b) {
  uint64_t x = ((const struct kernel_time *)a)->ns, y = ((const struct kernel_time *)b)->ns;
  return x < y ? 1 : x > y ? -1 : strcmp(((const struct kernel_time *)a)->name,
                                          ((const struct kernel_time *)b)->name);
}

static bool add_kernel(struct line *l, const char *name, uint64_t ns) {
  for (size_t i = 0; i < l->kernel_count; i++)
    if (strcmp(l->kernels[i].name, name) == 0) {
      l->kernels[i].ns += ns;
      return true;
    }
  struct kernel_time *grown = realloc(l->kernels, (l->kernel_count + 1) * sizeof *grown);
  if (!grown)
    return false;
  l->kernels = grown;
  l->kernels[l->kernel_count++] = (struct kernel_time){name, ns};
  return true;
}

void sources_print(const struct sources *s, unsigned rows, bool full_names, FILE *out) {
  if (!s || !s->stacked_ns)
    return;
  struct line *lines = calloc(s->count ? s->count : 1, sizeof *lines);
  size_t n = 0;
  if (!lines)
    return;
  for (size_t i = 0; i < s->cap; i++) {
    const struct entry *e = &s->entries[i];
    const struct trace_frame *source = e->stack ? trace_stack_source(e->stack) : NULL;
    if (!source)
      continue;
    size_t k = 0;
    while (k < n && !same_source(lines[k].source, source))
      k++;
    if (k == n)
      lines[n++] = (struct line){source, 0, 0, NULL, 0};
    lines[k].ns += e->ns;
    lines[k].commands += e->commands;
    add_kernel(&lines[k], e->kernel, e->ns);
  }
  qsort(lines, n, sizeof *lines, by_time);
  uint64_t all = s->stacked_ns + s->other_ns;
  char total[32];
  units_time(all, total, sizeof total);
  fprintf(out, "\nTop source lines, by the device time they launched | %s of device time",
          total);
  if (s->other_ns)
    fprintf(out, ", %.1f%% from calls without a stack", 100.0 * (double)s->other_ns / (double)all);
  fprintf(out, " |\n\n%-48s | %11s | %6s | %8s | %s\n", "Source", "Device time", "Share", "Commands",
          "Kernels (share of the line's time)");
  for (size_t i = 0; i < n && i < rows; i++) {
    struct line *l = &lines[i];
    char time[32], where[64];
    units_time(l->ns, time, sizeof time);
    const char *label = l->source->label;
    if (l->source->kind == TRACE_FRAME_NATIVE && l->source->line) {
      const char *slash = strrchr(l->source->file, '/');
      snprintf(where, sizeof where, " (%s:%d)", slash ? slash + 1 : l->source->file,
               l->source->line);
    } else {
      where[0] = 0;
    }
    char name[256];
    snprintf(name, sizeof name, "%s%s", label, where);
    fprintf(out, "%-48.48s | %11s | %5.1f%% | %8llu | ", name, time,
            100.0 * (double)l->ns / (double)all, (unsigned long long)l->commands);
    qsort(l->kernels, l->kernel_count, sizeof *l->kernels, kernel_by_time);
    for (size_t k = 0; k < l->kernel_count && k < 3; k++) {
      char kernel[256]; /* as the tally's tables show it (device_label.h) */
      if (full_names)
        snprintf(kernel, sizeof kernel, "%s", l->kernels[k].name);
      else
        device_kernel_short_name(l->kernels[k].name, kernel, sizeof kernel);
      fprintf(out, "%s%s (%.1f%%)", k ? ", " : "", kernel,
              100.0 * (double)l->kernels[k].ns / (double)l->ns);
    }
    if (l->kernel_count > 3)
      fprintf(out, ", %zu more", l->kernel_count - 3);
    fputc('\n', out);
  }
  if (n > rows)
    fprintf(out, "(%zu more lines)\n", n - rows);
  for (size_t i = 0; i < n; i++)
    free(lines[i].kernels);
  free(lines);
}
