/* sources_table: see sources_table.h. */
#include "sources_table.h"

#include <stdlib.h>
#include <string.h>

#include "device_label.h"
#include "trace_stacks.h"
#include "units.h"

static uint64_t source_hash(int kind, int line, const char *file, const char *function) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)(unsigned)kind;
  h = (h ^ (uint64_t)(unsigned)line) * 1099511628211ull;
  for (const char *s = file; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull;
  for (const char *s = function; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static bool same_source(const struct sources_line *l, int kind, int line, const char *file,
                        const char *function) {
  return l->kind == kind && l->line == line && strcmp(l->function, function) == 0 &&
         strcmp(l->file, file) == 0;
}

/* The index: slots hold a line's position + 1, 0 when empty; at most half of them full. */
static void index_put(struct sources_table *t, size_t at) {
  const struct sources_line *l = &t->lines[at];
  size_t k = source_hash(l->kind, l->line, l->file, l->function) & (t->slot_cap - 1);
  while (t->slots[k])
    k = (k + 1) & (t->slot_cap - 1);
  t->slots[k] = at + 1;
}

static int reserve(struct sources_table *t, size_t need) {
  if (need > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 16;
    while (cap < need)
      cap *= 2;
    struct sources_line *lines = realloc(t->lines, cap * sizeof *lines);
    if (!lines)
      return -1;
    t->lines = lines, t->cap = cap;
  }
  if (need * 2 <= t->slot_cap)
    return 0;
  size_t cap = t->slot_cap ? 2 * t->slot_cap : 64;
  while (need * 2 > cap)
    cap *= 2;
  size_t *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return -1;
  free(t->slots);
  t->slots = slots, t->slot_cap = cap;
  for (size_t i = 0; i < t->count; i++)
    index_put(t, i);
  return 0;
}

struct sources_line *sources_table_line(struct sources_table *t, int kind, int line,
                                        const char *file, const char *function, const char *label) {
  if (reserve(t, t->count + 1))
    return NULL;
  size_t k = source_hash(kind, line, file, function) & (t->slot_cap - 1);
  for (; t->slots[k]; k = (k + 1) & (t->slot_cap - 1))
    if (same_source(&t->lines[t->slots[k] - 1], kind, line, file, function))
      return &t->lines[t->slots[k] - 1];
  struct sources_line *l = &t->lines[t->count];
  memset(l, 0, sizeof *l);
  l->kind = kind, l->line = line;
  l->file = strdup(file);
  l->function = strdup(function);
  l->label = strdup(label);
  if (!l->file || !l->function || !l->label) {
    free(l->file);
    free(l->function);
    free(l->label);
    return NULL;
  }
  t->slots[k] = ++t->count;
  return l;
}

int sources_line_add(struct sources_line *l, const char *name, uint64_t ns, uint64_t commands) {
  l->ns += ns, l->commands += commands;
  for (size_t i = 0; i < l->kernel_count; i++)
    if (strcmp(l->kernels[i].name, name) == 0) {
      l->kernels[i].ns += ns, l->kernels[i].commands += commands;
      return 0;
    }
  struct sources_kernel *grown = realloc(l->kernels, (l->kernel_count + 1) * sizeof *grown);
  if (!grown)
    return -1;
  l->kernels = grown;
  char *copy = strdup(name);
  if (!copy)
    return -1;
  l->kernels[l->kernel_count++] = (struct sources_kernel){copy, ns, commands};
  return 0;
}

void sources_table_set_rank(struct sources_table *t, long rank) {
  for (size_t i = 0; i < t->count; i++) {
    struct sources_line *l = &t->lines[i];
    l->ranks = 1;
    l->least_ns = l->most_ns = l->ns;
    l->least_rank = l->most_rank = rank;
  }
}

/* The ranks' spread of from's line, into into's (job_spread's rule: job_result.h). */
void sources_line_merge_spread(struct sources_line *into, const struct sources_line *from) {
  if (!from->ranks)
    return;
  if (!into->ranks || from->least_ns < into->least_ns ||
      (from->least_ns == into->least_ns && from->least_rank < into->least_rank))
    into->least_ns = from->least_ns, into->least_rank = from->least_rank;
  if (!into->ranks || from->most_ns > into->most_ns ||
      (from->most_ns == into->most_ns && from->most_rank < into->most_rank))
    into->most_ns = from->most_ns, into->most_rank = from->most_rank;
  into->ranks += from->ranks;
}

int sources_table_merge(struct sources_table *into, const struct sources_table *from) {
  into->stacked_ns += from->stacked_ns;
  into->other_ns += from->other_ns;
  for (size_t i = 0; i < from->count; i++) {
    const struct sources_line *f = &from->lines[i];
    struct sources_line *l =
        sources_table_line(into, f->kind, f->line, f->file, f->function, f->label);
    if (!l)
      return -1;
    sources_line_merge_spread(l, f);
    for (size_t k = 0; k < f->kernel_count; k++)
      if (sources_line_add(l, f->kernels[k].name, f->kernels[k].ns, f->kernels[k].commands))
        return -1;
  }
  return 0;
}

void sources_table_free(struct sources_table *t) {
  for (size_t i = 0; i < t->count; i++) {
    struct sources_line *l = &t->lines[i];
    for (size_t k = 0; k < l->kernel_count; k++)
      free(l->kernels[k].name);
    free(l->kernels);
    free(l->file);
    free(l->function);
    free(l->label);
  }
  free(t->lines);
  free(t->slots);
  memset(t, 0, sizeof *t);
}

/* ---- The table ------------------------------------------------------------------------ */

/* The longest first; equal times by name, so the table is the same whatever the order
 * the lines came in (a job's ranks merge in any order). */
static int by_time(const void *a, const void *b) {
  const struct sources_line *x = *(const struct sources_line *const *)a;
  const struct sources_line *y = *(const struct sources_line *const *)b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  int c = strcmp(x->label, y->label);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int kernel_by_time(const void *a, const void *b) {
  const struct sources_kernel *x = *(const struct sources_kernel *const *)a;
  const struct sources_kernel *y = *(const struct sources_kernel *const *)b;
  return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->name, y->name);
}

/* A line as the table names it: its label, and a native function's file and line. */
static void line_name(const struct sources_line *l, char *out, size_t size) {
  if (l->kind == TRACE_FRAME_NATIVE && l->line) {
    const char *slash = strrchr(l->file, '/');
    snprintf(out, size, "%s (%s:%d)", l->label, slash ? slash + 1 : l->file, l->line);
  } else {
    snprintf(out, size, "%s", l->label);
  }
}

/* The line's three biggest kernels, with their shares of its time. */
static void print_kernels(const struct sources_line *l, bool full_names, FILE *out) {
  const struct sources_kernel **kernels = calloc(l->kernel_count + 1, sizeof *kernels);
  if (!kernels)
    return;
  for (size_t k = 0; k < l->kernel_count; k++)
    kernels[k] = &l->kernels[k];
  qsort(kernels, l->kernel_count, sizeof *kernels, kernel_by_time);
  for (size_t k = 0; k < l->kernel_count && k < 3; k++) {
    char kernel[256]; /* as the tally's tables show it (device_label.h) */
    if (full_names)
      snprintf(kernel, sizeof kernel, "%s", kernels[k]->name);
    else
      device_kernel_short_name(kernels[k]->name, kernel, sizeof kernel);
    fprintf(out, "%s%s (%.1f%%)", k ? ", " : "", kernel,
            l->ns ? 100.0 * (double)kernels[k]->ns / (double)l->ns : 0.0);
  }
  if (l->kernel_count > 3)
    fprintf(out, ", %zu more", l->kernel_count - 3);
  free(kernels);
}

void sources_table_print(const struct sources_table *t, unsigned rows, bool full_names,
                         bool per_rank, FILE *out) {
  if (!t->stacked_ns || !t->count)
    return;
  const struct sources_line **lines = calloc(t->count, sizeof *lines);
  if (!lines)
    return;
  for (size_t i = 0; i < t->count; i++)
    lines[i] = &t->lines[i];
  qsort(lines, t->count, sizeof *lines, by_time);
  uint64_t all = t->stacked_ns + t->other_ns;
  char total[32];
  units_time(all, total, sizeof total);
  fprintf(out, "\nTop source lines, by the device time they launched | %s of device time", total);
  if (t->other_ns)
    fprintf(out, ", %.1f%% from calls without a stack", 100.0 * (double)t->other_ns / (double)all);
  /* A job's table is as wide as a run's: its source names are cut shorter, for the ranks. */
  int width = per_rank ? 36 : 48;
  fprintf(out, " |\n\n%-*s | %11s | %6s | %8s | ", width, "Source", "Device time", "Share",
          "Commands");
  if (per_rank)
    fprintf(out, "%5s | %-16s | ", "Ranks", "Most (rank)");
  fputs("Kernels (share of the line's time)\n", out);
  for (size_t i = 0; i < t->count && i < rows; i++) {
    const struct sources_line *l = lines[i];
    char time[32], name[320];
    units_time(l->ns, time, sizeof time);
    line_name(l, name, sizeof name);
    fprintf(out, "%-*.*s | %11s | %5.1f%% | %8llu | ", width, width, name, time,
            100.0 * (double)l->ns / (double)all, (unsigned long long)l->commands);
    if (per_rank) {
      char most[32], spread[48];
      units_time(l->most_ns, most, sizeof most);
      snprintf(spread, sizeof spread, "%s (%ld)", most, l->most_rank);
      fprintf(out, "%5llu | %-16s | ", (unsigned long long)l->ranks, spread);
    }
    print_kernels(l, full_names, out);
    fputc('\n', out);
  }
  if (t->count > rows)
    fprintf(out, "(%zu more lines)\n", t->count - rows);
  free(lines);
}
