/* result_sources: see result_sources.h. */
#include "result_sources.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long ull;

/* A name on one field: tabs and line breaks as spaces. */
static void put_name(FILE *f, const char *name) {
  for (const char *s = name; *s; s++)
    fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/* Lines by file, line, function and kind; kernels by name: a file is the same whatever
 * order the results merged in. */
static int by_source(const void *a, const void *b) {
  const struct sources_line *x = *(const struct sources_line *const *)a;
  const struct sources_line *y = *(const struct sources_line *const *)b;
  int c = strcmp(x->file, y->file);
  if (c)
    return c;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  c = strcmp(x->function, y->function);
  return c ? c : (x->kind > y->kind) - (x->kind < y->kind);
}

static int by_name(const void *a, const void *b) {
  return strcmp((*(const struct sources_kernel *const *)a)->name,
                (*(const struct sources_kernel *const *)b)->name);
}

int result_sources_write(FILE *f, const struct sources_table *t) {
  if (!t->stacked_ns && !t->other_ns && !t->count)
    return 0;
  size_t most = 0;
  for (size_t i = 0; i < t->count; i++)
    most = t->lines[i].kernel_count > most ? t->lines[i].kernel_count : most;
  const struct sources_line **lines = calloc(t->count + 1, sizeof *lines);
  const struct sources_kernel **kernels = calloc(most + 1, sizeof *kernels);
  if (!lines || !kernels) {
    free(lines);
    free(kernels);
    return -1;
  }
  for (size_t i = 0; i < t->count; i++)
    lines[i] = &t->lines[i];
  qsort(lines, t->count, sizeof *lines, by_source);
  fprintf(f, "st %llu %llu\n", (ull)t->stacked_ns, (ull)t->other_ns);
  for (size_t i = 0; i < t->count; i++) {
    const struct sources_line *l = lines[i];
    fprintf(f, "sl %d %d %llu %llu %llu %llu %ld %llu %ld\t", l->kind, l->line, (ull)l->ns,
            (ull)l->commands, (ull)l->ranks, (ull)l->least_ns, l->least_rank, (ull)l->most_ns,
            l->most_rank);
    put_name(f, l->file);
    fputc('\t', f);
    put_name(f, l->function);
    fputc('\t', f);
    put_name(f, l->label);
    fputc('\n', f);
    for (size_t k = 0; k < l->kernel_count; k++)
      kernels[k] = &l->kernels[k];
    qsort(kernels, l->kernel_count, sizeof *kernels, by_name);
    for (size_t k = 0; k < l->kernel_count; k++) {
      fprintf(f, "sk %llu %llu ", (ull)kernels[k]->ns, (ull)kernels[k]->commands);
      put_name(f, kernels[k]->name);
      fputc('\n', f);
    }
  }
  free(lines);
  free(kernels);
  return 0;
}

/* Reads n unsigned numbers, each after a space; false when one is missing. */
static bool numbers(char **p, uint64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char *end;
    errno = 0;
    if (**p != ' ' || (*p)[1] == '-')
      return false;
    v[i] = strtoull(*p + 1, &end, 10);
    if (end == *p + 1 || errno)
      return false;
    *p = end;
  }
  return true;
}

static bool signed_number(char **p, long long *v) {
  char *end;
  errno = 0;
  if (**p != ' ')
    return false;
  *v = strtoll(*p + 1, &end, 10);
  if (end == *p + 1 || errno)
    return false;
  *p = end;
  return true;
}

/* The next field up to a tab (or the line's end when last), cut off in place. */
static char *field(char **p, bool last) {
  char *start = *p;
  size_t n = strcspn(start, last ? "\n" : "\t\n");
  if (!last && start[n] != '\t')
    return NULL;
  start[n] = '\0';
  *p = start + n + (last ? 0 : 1);
  return start;
}

bool result_sources_read(struct result_sources_reader *rd, const char *word, char *p) {
  struct sources_table *t = rd->into;
  uint64_t v[6];
  if (strcmp(word, "st") == 0) {
    if (!numbers(&p, v, 2))
      return false;
    t->stacked_ns += v[0];
    t->other_ns += v[1];
    return true;
  }
  if (strcmp(word, "sl") == 0) {
    long long kind, line, least_rank, most_rank;
    if (!signed_number(&p, &kind) || !signed_number(&p, &line) || !numbers(&p, v, 4) ||
        !signed_number(&p, &least_rank) || !numbers(&p, v + 4, 1) ||
        !signed_number(&p, &most_rank) || *p++ != '\t')
      return false;
    char *file = field(&p, false), *function = file ? field(&p, false) : NULL;
    char *label = function ? field(&p, true) : NULL;
    if (!label)
      return false;
    struct sources_line *l = sources_table_line(t, (int)kind, (int)line, file, function, label);
    if (!l)
      return false;
    /* NS and COMMANDS are its kernels' (the `sk` lines add them); the ranks' spread
     * merges as another result's line would. */
    struct sources_line spread = {.ranks = v[2],
                                  .least_ns = v[3],
                                  .least_rank = least_rank,
                                  .most_ns = v[4],
                                  .most_rank = most_rank};
    sources_line_merge_spread(l, &spread);
    rd->line = (size_t)(l - t->lines) + 1;
    return true;
  }
  if (strcmp(word, "sk") == 0) {
    if (!rd->line || !numbers(&p, v, 2) || *p++ != ' ')
      return false;
    const char *name = field(&p, true);
    return sources_line_add(&t->lines[rd->line - 1], name, v[0], v[1]) == 0;
  }
  return false;
}
