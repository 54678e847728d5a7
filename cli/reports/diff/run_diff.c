/* run_diff: see run_diff.h. */
#include "run_diff.h"

#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "device_label.h"
#include "tracer_device.h"
#include "units.h"

enum row_kind { ROW_HOST, ROW_KERNEL, ROW_TRANSFER };
static const char *const kind_names[] = {"host", "kernel", "transfer"};

struct row {
  size_t backend;
  enum row_kind kind;
  const char *name; /* borrowed from a tally or a desc */
  uint64_t a_ns, b_ns, a_calls, b_calls, a_bytes, b_bytes;
  bool in_a, in_b;
};

struct rows {
  struct row *at;
  size_t count, cap;
  uint64_t whole; /* the sum of |b - a| over every row */
};

static int by_value(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

void diff_run_steps(struct diff_run *run, uint64_t *ns, size_t n, const char *what) {
  run->step_count = n;
  snprintf(run->steps_what, sizeof run->steps_what, "%s", what ? what : "");
  if (!n)
    return;
  qsort(ns, n, sizeof *ns, by_value);
  run->step_median = n % 2 ? ns[n / 2] : (ns[n / 2 - 1] + ns[n / 2]) / 2;
  uint64_t *dev = malloc(n * sizeof *dev);
  if (!dev)
    return;
  for (size_t i = 0; i < n; i++)
    dev[i] = ns[i] > run->step_median ? ns[i] - run->step_median : run->step_median - ns[i];
  qsort(dev, n, sizeof *dev, by_value);
  uint64_t mad = n % 2 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;
  run->step_spread = run->step_median ? (double)mad / (double)run->step_median : 0;
  free(dev);
}

static struct row *row_of(struct rows *r, size_t backend, enum row_kind kind, const char *name) {
  for (size_t i = 0; i < r->count; i++)
    if (r->at[i].backend == backend && r->at[i].kind == kind && strcmp(r->at[i].name, name) == 0)
      return &r->at[i];
  if (r->count == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 256;
    struct row *grown = realloc(r->at, cap * sizeof *grown);
    if (!grown)
      return NULL;
    r->at = grown;
    r->cap = cap;
  }
  struct row *row = &r->at[r->count++];
  *row = (struct row){.backend = backend, .kind = kind, .name = name};
  return row;
}

/* Adds one run's rows (side: 0 for A, 1 for B). */
static void add_run(struct rows *r, const struct tally *t, int side) {
  for (size_t b = 0; b < t->backend_count; b++) {
    const struct tally_backend *tb = &t->backends[b];
    for (uint32_t f = 0; f < tb->function_count; f++) {
      const struct tally_stat *s = &tb->host[f];
      if (!s->calls)
        continue;
      struct row *row = row_of(r, b, ROW_HOST, tb->desc->functions[f].name);
      if (!row)
        continue;
      *(side ? &row->b_ns : &row->a_ns) += s->total;
      *(side ? &row->b_calls : &row->a_calls) += s->calls;
      *(side ? &row->b_bytes : &row->a_bytes) += tb->message_bytes[f];
      *(side ? &row->in_b : &row->in_a) = true;
    }
    for (size_t i = 0; i < tb->device_count; i++) { /* summed over the devices */
      const struct tally_device *d = &tb->device[i];
      if (d->kind != TRACER_COMMAND_KERNEL && d->kind != TRACER_COMMAND_TRANSFER)
        continue;
      struct row *row =
          row_of(r, b, d->kind == TRACER_COMMAND_KERNEL ? ROW_KERNEL : ROW_TRANSFER, d->name);
      if (!row)
        continue;
      *(side ? &row->b_ns : &row->a_ns) += d->time.total;
      *(side ? &row->b_calls : &row->a_calls) += d->time.calls;
      *(side ? &row->b_bytes : &row->a_bytes) += d->bytes;
      *(side ? &row->in_b : &row->in_a) = true;
    }
  }
}

static uint64_t magnitude(const struct row *row) {
  return row->b_ns > row->a_ns ? row->b_ns - row->a_ns : row->a_ns - row->b_ns;
}

static int by_change(const void *x, const void *y) {
  const struct row *a = x, *b = y;
  if (a->backend != b->backend)
    return a->backend < b->backend ? -1 : 1;
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  uint64_t ma = magnitude(a), mb = magnitude(b);
  if (ma != mb)
    return ma > mb ? -1 : 1;
  if (a->a_calls + a->b_calls != b->a_calls + b->b_calls) /* counts changed: next */
    return a->a_calls + a->b_calls > b->a_calls + b->b_calls ? -1 : 1;
  return strcmp(a->name, b->name);
}

static void collect(const struct diff_run *a, const struct diff_run *b, struct rows *r) {
  memset(r, 0, sizeof *r);
  add_run(r, a->tally, 0);
  add_run(r, b->tally, 1);
  for (size_t i = 0; i < r->count; i++)
    r->whole += magnitude(&r->at[i]);
  if (r->count)
    qsort(r->at, r->count, sizeof *r->at, by_change);
}

bool diff_comparable(const struct diff_run *a, const struct diff_run *b) {
  struct rows r;
  collect(a, b, &r);
  bool common = false;
  for (size_t i = 0; i < r.count && !common; i++)
    for (size_t k = 0; k < r.count && !common; k++)
      common = r.at[i].backend == r.at[k].backend && r.at[i].in_a && r.at[k].in_b;
  free(r.at);
  return common;
}

/* The noise threshold: the larger step-to-step spread of the two runs, when both have
 * steps; else none (0). */
static double noise_of(const struct diff_run *a, const struct diff_run *b) {
  if (!a->step_count || !b->step_count)
    return 0;
  return a->step_spread > b->step_spread ? a->step_spread : b->step_spread;
}

static bool is_noise(const struct row *row, double noise) {
  if (!noise || !row->in_a || !row->in_b || row->a_calls != row->b_calls ||
      row->a_bytes != row->b_bytes)
    return false;
  return (double)magnitude(row) <= noise * (double)row->a_ns;
}

static bool changed(const struct row *row) {
  return row->a_ns != row->b_ns || row->a_calls != row->b_calls || row->a_bytes != row->b_bytes ||
         row->in_a != row->in_b;
}

static void signed_time(int64_t ns, char *out, size_t size) {
  char m[32];
  units_time((uint64_t)(ns < 0 ? -ns : ns), m, sizeof m);
  if (size > 1) {
    out[0] = ns < 0 ? '-' : '+';
    size_t len = strlen(m) < size - 2 ? strlen(m) : size - 2;
    memcpy(out + 1, m, len);
    out[1 + len] = '\0';
  }
}

/* The text fits 100 columns, as the tally's tables: a name cut to NAME_WIDTH (a C++
 * kernel's shortened first, as the device tables show it), the note under its row when
 * bytes changed, the steps on lines of their own. -j has the names whole. */
enum { ROWS_SHOWN = 10, NAME_WIDTH = 25, STEPS_WHAT_WIDTH = 40 };

static void cell_name(const struct row *row, char *out, size_t size) {
  char shortened[512];
  const char *name = row->name;
  if (row->kind == ROW_KERNEL) {
    device_kernel_short_name(row->name, shortened, sizeof shortened);
    name = shortened;
  }
  if (strlen(name) > NAME_WIDTH)
    snprintf(out, size, "%.*s...", NAME_WIDTH - 3, name);
  else
    snprintf(out, size, "%s", name);
}

static void print_steps(const struct diff_run *a, const struct diff_run *b, FILE *out) {
  if (!a->step_count || !b->step_count) {
    fprintf(out, "Steps: %s (no noise marking without both runs' steps)\n",
            a->step_count   ? "only A has steps"
            : b->step_count ? "only B has steps"
                            : "none");
    return;
  }
  const struct diff_run *runs[] = {a, b};
  for (int k = 0; k < 2; k++) {
    char median[32];
    units_time(runs[k]->step_median, median, sizeof median);
    fprintf(out, "Steps of %c: %zu x %.*s%s, median %s, step-to-step spread %.1f%%\n",
            k ? 'B' : 'A', runs[k]->step_count, STEPS_WHAT_WIDTH, runs[k]->steps_what,
            strlen(runs[k]->steps_what) > STEPS_WHAT_WIDTH ? "..." : "", median,
            100 * runs[k]->step_spread);
  }
  char ch[40];
  signed_time((int64_t)b->step_median - (int64_t)a->step_median, ch, sizeof ch);
  fprintf(out,
          "Median step change: %s (%+.1f%%); changes within %.1f%% (the larger spread) "
          "are noise\n",
          ch,
          a->step_median
              ? 100.0 * ((double)b->step_median - (double)a->step_median) / (double)a->step_median
              : 0.0,
          100 * noise_of(a, b));
}

static void print_row(const struct row *row, uint64_t whole, double noise, FILE *out) {
  char name[NAME_WIDTH + 1], ta[32] = "-", tb[32] = "-", ch[40];
  cell_name(row, name, sizeof name);
  if (row->in_a)
    units_time(row->a_ns, ta, sizeof ta);
  if (row->in_b)
    units_time(row->b_ns, tb, sizeof tb);
  signed_time((int64_t)row->b_ns - (int64_t)row->a_ns, ch, sizeof ch);
  const char *note = !row->in_a             ? "only in B"
                     : !row->in_b           ? "only in A"
                     : is_noise(row, noise) ? "noise"
                                            : "";
  fprintf(out, "%-*s | %8s | %8s | %9s | %5.1f%% | %7llu | %7llu |%s%s\n", NAME_WIDTH, name, ta, tb,
          ch, whole ? 100.0 * (double)magnitude(row) / (double)whole : 0.0,
          (unsigned long long)row->a_calls, (unsigned long long)row->b_calls, *note ? " " : "",
          note);
  if (row->a_bytes != row->b_bytes) {
    char ba[32], bb[32];
    units_bytes(row->a_bytes, ba, sizeof ba);
    units_bytes(row->b_bytes, bb, sizeof bb);
    fprintf(out, "%-*s   bytes: A %s, B %s\n", NAME_WIDTH, "", ba, bb);
  }
}

void diff_print_text(const struct diff_run *a, const struct diff_run *b, FILE *out) {
  struct rows r;
  collect(a, b, &r);
  double noise = noise_of(a, b);
  fprintf(out, "Comparing A: %s\n      with B: %s\n", a->path, b->path);
  print_steps(a, b, out);
  char whole[32];
  units_time(r.whole, whole, sizeof whole);
  fprintf(out, "The whole difference: %s of time changed in all rows\n", whole);
  for (size_t i = 0; i < r.count;) {
    size_t end = i, shown = 0, changes = 0;
    while (end < r.count && r.at[end].backend == r.at[i].backend && r.at[end].kind == r.at[i].kind)
      changes += changed(&r.at[end]), end++;
    if (!changes) {
      i = end;
      continue;
    }
    char title[64];
    backends_title(tracer_backends[r.at[i].backend], title, sizeof title);
    fprintf(out, "\n%s | %s | the largest changes first |\n\n", title,
            r.at[i].kind == ROW_HOST     ? "host calls"
            : r.at[i].kind == ROW_KERNEL ? "kernels"
                                         : "transfers");
    fprintf(out, "%-*s | %8s | %8s | %9s | %6s | %7s | %7s | Note\n", NAME_WIDTH, "Name", "A time",
            "B time", "Change", "Share", "A count", "B count");
    for (size_t k = i; k < end && shown < ROWS_SHOWN; k++) {
      if (!changed(&r.at[k]))
        continue;
      shown++;
      print_row(&r.at[k], r.whole, noise, out);
    }
    if (changes > shown)
      fprintf(out, "(%zu more changed rows; -j lists them all)\n", changes - shown);
    i = end;
  }
  free(r.at);
}

void diff_print_json(const struct diff_run *a, const struct diff_run *b, FILE *out) {
  struct rows r;
  collect(a, b, &r);
  double noise = noise_of(a, b);
  fputs("{\n  \"a\": ", out);
  units_json_string(out, a->path);
  fputs(",\n  \"b\": ", out);
  units_json_string(out, b->path);
  const struct diff_run *runs[] = {a, b};
  for (int k = 0; k < 2; k++) {
    fprintf(out, ",\n  \"%s_steps\": ", k ? "b" : "a");
    if (!runs[k]->step_count) {
      fputs("null", out);
      continue;
    }
    fputs("{\"what\": ", out);
    units_json_string(out, runs[k]->steps_what);
    fprintf(out, ", \"count\": %zu, \"median_ns\": %llu, \"spread\": %.6f}", runs[k]->step_count,
            (unsigned long long)runs[k]->step_median, runs[k]->step_spread);
  }
  fprintf(out, ",\n  \"noise\": %.6f,\n  \"whole_ns\": %llu,\n  \"rows\": [", noise,
          (unsigned long long)r.whole);
  size_t n = 0;
  for (size_t i = 0; i < r.count; i++) {
    const struct row *row = &r.at[i];
    if (!changed(row))
      continue;
    fprintf(out, "%s\n    {\"backend\": \"%s\", \"kind\": \"%s\", \"name\": ", n++ ? "," : "",
            tracer_backends[row->backend]->name, kind_names[row->kind]);
    units_json_string(out, row->name);
    fprintf(out,
            ", \"a_ns\": %llu, \"b_ns\": %llu, \"change_ns\": %lld, \"share\": %.6f, "
            "\"a_count\": %llu, \"b_count\": %llu, \"a_bytes\": %llu, \"b_bytes\": %llu, "
            "\"only\": %s, \"noise\": %s}",
            (unsigned long long)row->a_ns, (unsigned long long)row->b_ns,
            (long long)row->b_ns - (long long)row->a_ns,
            r.whole ? (double)magnitude(row) / (double)r.whole : 0.0,
            (unsigned long long)row->a_calls, (unsigned long long)row->b_calls,
            (unsigned long long)row->a_bytes, (unsigned long long)row->b_bytes,
            !row->in_a   ? "\"b\""
            : !row->in_b ? "\"a\""
                         : "null",
            is_noise(row, noise) ? "true" : "false");
  }
  fputs("\n  ]\n}\n", out);
  free(r.at);
}
