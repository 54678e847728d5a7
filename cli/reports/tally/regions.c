/* regions: see regions.h. */
#include "regions.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static bool same(const char *s, const char *chars, size_t len) {
  return strlen(s) == len && strncmp(s, chars, len) == 0;
}

static struct region_row *row(struct regions *r, const char *backend, size_t backend_len,
                              const char *name, size_t name_len) {
  for (size_t i = 0; i < r->count; i++)
    if (same(r->rows[i].backend, backend, backend_len) && same(r->rows[i].name, name, name_len))
      return &r->rows[i];
  if (r->count == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 16;
    struct region_row *grown = realloc(r->rows, cap * sizeof *grown);
    if (!grown)
      return NULL;
    r->rows = grown;
    r->cap = cap;
  }
  struct region_row *w = &r->rows[r->count];
  memset(w, 0, sizeof *w);
  w->backend = strndup(backend, backend_len);
  w->name = strndup(name, name_len);
  if (!w->backend || !w->name) {
    free(w->backend);
    free(w->name);
    return NULL;
  }
  r->count++;
  return w;
}

static void add_stat(struct region_row *w, uint64_t calls, uint64_t total, uint64_t min,
                     uint64_t max) {
  if (!calls)
    return;
  if (w->calls == 0 || min < w->min)
    w->min = min;
  if (max > w->max)
    w->max = max;
  w->calls += calls;
  w->total += total;
}

int regions_add(struct regions *r, const char *backend, size_t backend_len, const char *name,
                size_t name_len, uint64_t ns) {
  struct region_row *w = row(r, backend, backend_len, name, name_len);
  if (!w)
    return -1;
  add_stat(w, 1, ns, ns, ns);
  return 0;
}

int regions_merge(struct regions *into, const struct regions *from) {
  for (size_t i = 0; i < from->count; i++) {
    const struct region_row *f = &from->rows[i];
    struct region_row *w =
        row(into, f->backend, strlen(f->backend), f->name, strlen(f->name));
    if (!w)
      return -1;
    add_stat(w, f->calls, f->total, f->min, f->max);
  }
  return 0;
}

void regions_free(struct regions *r) {
  for (size_t i = 0; i < r->count; i++) {
    free(r->rows[i].backend);
    free(r->rows[i].name);
  }
  free(r->rows);
  memset(r, 0, sizeof *r);
}

static int by_time_then_name(const void *a, const void *b) {
  const struct region_row *x = *(const struct region_row *const *)a;
  const struct region_row *y = *(const struct region_row *const *)b;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The backend's rows, sorted; *n of them. NULL when none (or out of memory). */
static const struct region_row **sorted(const struct regions *r, const char *backend,
                                        size_t *n) {
  *n = 0;
  const struct region_row **order = calloc(r->count + 1, sizeof *order);
  for (size_t i = 0; order && i < r->count; i++)
    if (strcmp(r->rows[i].backend, backend) == 0)
      order[(*n)++] = &r->rows[i];
  if (order && *n == 0) {
    free(order);
    return NULL;
  }
  if (order)
    qsort(order, *n, sizeof *order, by_time_then_name);
  return order;
}

void regions_print_text(const struct regions *r, const char *backend, const char *label,
                        FILE *out) {
  size_t n;
  const struct region_row **order = sorted(r, backend, &n);
  if (!order)
    return;
  int width = (int)strlen("Region");
  for (size_t i = 0; i < n; i++)
    if ((int)strlen(order[i]->name) > width)
      width = (int)strlen(order[i]->name);
  if (width > 48)
    width = 48;
  fprintf(out, "BACKEND_%s | %zu Regions |\n\n", label, n);
  fprintf(out, "%-*s | %9s | %5s | %9s | %9s | %9s |\n", width, "Region", "Time", "Calls",
          "Average", "Min", "Max");
  for (size_t i = 0; i < n; i++) {
    const struct region_row *w = order[i];
    char t[32], avg[32], mn[32], mx[32];
    units_time(w->total, t, sizeof t);
    units_time(w->total / w->calls, avg, sizeof avg);
    units_time(w->min, mn, sizeof mn);
    units_time(w->max, mx, sizeof mx);
    if ((int)strlen(w->name) <= width)
      fprintf(out, "%-*s", width, w->name);
    else
      fprintf(out, "%.*s...", width - 3, w->name);
    fprintf(out, " | %9s | %5llu | %9s | %9s | %9s |\n", t, (unsigned long long)w->calls, avg,
            mn, mx);
  }
  fputc('\n', out);
  free(order);
}

void regions_print_json(const struct regions *r, const char *backend, FILE *out) {
  size_t n;
  const struct region_row **order = sorted(r, backend, &n);
  fputc('[', out);
  for (size_t i = 0; order && i < n; i++) {
    const struct region_row *w = order[i];
    fputs(i ? ",\n       {\"name\": " : "\n       {\"name\": ", out);
    units_json_string(out, w->name);
    fprintf(out, ", \"calls\": %llu, \"time_ns\": %llu, \"min_ns\": %llu, \"max_ns\": %llu}",
            (unsigned long long)w->calls, (unsigned long long)w->total,
            (unsigned long long)w->min, (unsigned long long)w->max);
  }
  fputc(']', out);
  free(order);
}
