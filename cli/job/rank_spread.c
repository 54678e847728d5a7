/* rank_spread: see rank_spread.h. */
#include "rank_spread.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "units.h"

static double mean(const struct job_spread *s) {
  return s->count ? (double)s->sum / (double)s->count : 0;
}

/* Shares are kept in parts per million of a rank's wall time. */
static void print_share(FILE *out, const char *label, const char *what,
                        const struct job_spread *s) {
  fprintf(out,
          "  %-8s %-12s %5.1f%% of wall time (least %5.1f%% rank %ld, most %5.1f%% rank %ld)\n",
          label, what, mean(s) / 1e4, (double)s->min / 1e4, s->min_rank, (double)s->max / 1e4,
          s->max_rank);
}

/* The ranks whose end was seen by when it was, the earliest first; then the others. */
static int by_end(const void *a, const void *b) {
  const struct job_rank_status *x = a, *y = b;
  if (!x->ended_at_ns != !y->ended_at_ns)
    return x->ended_at_ns ? -1 : 1;
  if (x->ended_at_ns != y->ended_at_ns)
    return x->ended_at_ns < y->ended_at_ns ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The ranks that did not end cleanly, in the order they ended: which one failed first (a
 * rank that dies makes the launcher end the others), and of what. */
static void print_failed(const struct job_result *r, FILE *out) {
  if (!r->failed_count)
    return; /* r->failed is NULL */
  struct job_rank_status *f = malloc(r->failed_count * sizeof *f);
  if (!f)
    return;
  memcpy(f, r->failed, r->failed_count * sizeof *f);
  qsort(f, r->failed_count, sizeof *f, by_end);
  const struct job_rank_status *first = r->failed_count > 1 && f[0].ended_at_ns ? &f[0] : NULL;
  for (size_t i = 0; i < r->failed_count; i++) {
    const struct job_rank_status *s = &f[i];
    if (s->running) {
      fprintf(out,
              "Rank %ld: still running (its tracer has not ended): the tables count what "
              "it recorded so far.\n",
              s->rank);
      continue;
    }
    if (!s->end_seen) {
      fprintf(out,
              "Rank %ld: its tracer was killed before the app ended (as a launcher ending "
              "the job, or a time limit, kills it): the tables count what it recorded until "
              "then.\n",
              s->rank);
      continue;
    }
    char when[96] = "";
    if (s == first)
      snprintf(when, sizeof when, ", the first rank to end");
    else if (first && s->ended_at_ns >= first->ended_at_ns)
      snprintf(when, sizeof when, ", %.2f s after rank %ld's end",
               (double)(s->ended_at_ns - first->ended_at_ns) / 1e9, first->rank);
    fprintf(out, "Rank %ld: the app %s%s%s: the tables count what it recorded until then.\n",
            s->rank, strncmp(s->status, "killed", 6) == 0 ? "was " : "", s->status, when);
  }
  free(f);
}

void rank_spread_print_summary(const struct job_result *r, FILE *out) {
  print_failed(r, out); /* the ranks that died, or whose end their tracer did not see */
  fprintf(out,
          "Ranks: %zu traced; where each rank's wall time went (mean over the %zu whose wall "
          "time is known):\n",
          r->rank_count, r->ranks_timed);
  double best = 0;
  const char *best_what = NULL;
  char best_label[64] = "";
  for (size_t b = 0; b < r->tally.backend_count; b++) {
    char label[64];
    backends_title(tracer_backends[b], label, sizeof label);
    const struct job_spread *host = &r->host_share[b], *device = &r->device_share[b];
    if (host->count && host->max > 0) {
      print_share(out, label, "host calls", host);
      if (mean(host) / 1e4 > best) {
        best = mean(host) / 1e4, best_what = "host calls";
        snprintf(best_label, sizeof best_label, "%s", label);
      }
    }
    if (device->count && device->max > 0) {
      print_share(out, label, "device", device);
      if (mean(device) / 1e4 > best) {
        best = mean(device) / 1e4, best_what = "device work";
        snprintf(best_label, sizeof best_label, "%s", label);
      }
    }
  }
  if (best_what)
    fprintf(out, "Verdict: %s %s take the largest share, %.1f%% of the ranks' wall time%s\n\n",
            best_label, best_what, best,
            best < 50 ? " (under half: most time is in none of the traced APIs)" : "");
  else if (!r->ranks_timed)
    fputs("Verdict: none, no rank's wall time is known (their end was not seen)\n\n", out);
  else
    fputs("Verdict: no traced call took measurable time\n\n", out);
}

/* One rank's time in a function (or in every call of the backend: function -1). */
struct rank_time {
  int32_t function;
  long rank;
  uint64_t ns;
};

static int by_function_rank(const void *x, const void *y) {
  const struct rank_time *a = x, *b = y;
  if (a->function != b->function)
    return a->function < b->function ? -1 : 1;
  return (a->rank > b->rank) - (a->rank < b->rank);
}

static int by_ns_rank(const void *x, const void *y) {
  const struct rank_time *a = x, *b = y;
  if (a->ns != b->ns)
    return a->ns < b->ns ? -1 : 1;
  return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The per-rank times of backend b from the actors' rows: one entry per function and
 * rank, plus one per rank for all calls (function -1), sorted by function then rank. */
static struct rank_time *rank_times(const struct job_result *r, size_t b, size_t *n) {
  const struct actors *a = &r->tally.actors;
  struct rank_time *t = calloc(2 * a->row_count + 1, sizeof *t);
  *n = 0;
  if (!t)
    return NULL;
  for (size_t i = 0; i < a->row_count; i++) {
    const struct actor_row *w = &a->rows[i];
    if (w->backend != b || w->function < 0 || !w->time.calls || a->list[w->actor].rank < 0)
      continue; /* a rank < 0: a launcher's process in one trace with its ranks */
    long rank = a->list[w->actor].rank;
    t[(*n)++] = (struct rank_time){w->function, rank, w->time.total};
    t[(*n)++] = (struct rank_time){-1, rank, w->time.total};
  }
  qsort(t, *n, sizeof *t, by_function_rank);
  size_t k = 0; /* a rank's threads and processes add up */
  for (size_t i = 0; i < *n; i++) {
    if (k && t[k - 1].function == t[i].function && t[k - 1].rank == t[i].rank)
      t[k - 1].ns += t[i].ns;
    else
      t[k++] = t[i];
  }
  *n = k;
  return t;
}

struct rank_row {
  int32_t function;
  uint64_t floor; /* 1% of the median rank's time in all the backend's calls */
  struct rank_time *times; /* sorted by time; borrowed */
  size_t n;
  uint64_t sum, median;
  size_t max_at; /* the most, the lowest rank of ties */
};

static int by_sum(const void *x, const void *y) {
  const struct rank_row *a = x, *b = y;
  if ((a->function < 0) != (b->function < 0))
    return a->function < 0 ? -1 : 1;
  if (a->sum != b->sum)
    return a->sum > b->sum ? -1 : 1;
  return (a->function > b->function) - (a->function < b->function);
}

/* The rows of backend b: one per function and one for all calls (first), then by the
 * time of all ranks, longest first; *n of them (owned by the caller, with *times). */
static struct rank_row *rank_rows(const struct job_result *r, size_t b, size_t *n,
                                  struct rank_time **times) {
  size_t count;
  struct rank_time *t = rank_times(r, b, &count);
  struct rank_row *rows = calloc(count + 1, sizeof *rows);
  *n = 0;
  *times = t;
  if (!t || !rows) {
    free(rows);
    return NULL;
  }
  for (size_t i = 0; i < count;) {
    size_t end = i;
    while (end < count && t[end].function == t[i].function)
      end++;
    struct rank_row *row = &rows[(*n)++];
    row->function = t[i].function;
    row->times = t + i;
    row->n = end - i;
    qsort(row->times, row->n, sizeof *row->times, by_ns_rank);
    for (size_t k = 0; k < row->n; k++)
      row->sum += row->times[k].ns;
    row->median = row->n % 2 ? row->times[row->n / 2].ns
                             : (row->times[row->n / 2 - 1].ns + row->times[row->n / 2].ns) / 2;
    row->max_at = row->n - 1;
    while (row->max_at > 0 && row->times[row->max_at - 1].ns == row->times[row->n - 1].ns)
      row->max_at--;
    i = end;
  }
  qsort(rows, *n, sizeof *rows, by_sum);
  for (size_t i = 0; *n && i < *n; i++)
    rows[i].floor = rows[0].median / 100; /* rows[0]: all calls */
  return rows;
}

/* Over the median by more than pct percent, and by more than the floor: a call too short
 * to matter names no straggler. */
static bool straggler(const struct rank_row *row, const struct rank_time *t, unsigned pct) {
  return (double)t->ns > (double)row->median * (1.0 + pct / 100.0) &&
         t->ns - row->median > row->floor;
}

/* The stragglers of a row, in rank order, into out: "2, 5, 7 (+3)". */
static void stragglers_text(const struct rank_row *row, unsigned pct, char *out, size_t size) {
  long shown[5];
  size_t count = 0, more = 0;
  for (size_t k = 0; k < row->n; k++)
    if (straggler(row, &row->times[k], pct)) {
      if (count < 5)
        shown[count++] = row->times[k].rank;
      else
        more++;
    }
  /* in rank order: the times are sorted by time */
  for (size_t i = 1; i < count; i++)
    for (size_t k = i; k > 0 && shown[k] < shown[k - 1]; k--) {
      long x = shown[k];
      shown[k] = shown[k - 1];
      shown[k - 1] = x;
    }
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < count && used < size; i++)
    used += (size_t)snprintf(out + used, size - used, "%s%ld", i ? ", " : "", shown[i]);
  if (more && used < size)
    snprintf(out + used, size - used, " (+%zu)", more);
  if (!count)
    snprintf(out, size, "none");
}

static const char *row_name(const struct tracer_backend_desc *desc, const struct rank_row *row) {
  return row->function < 0 ? "All calls" : desc->functions[row->function].name;
}

void rank_spread_print_ranks(const struct job_result *r, unsigned pct, FILE *out) {
  bool any = false;
  for (size_t b = 0; b < r->tally.backend_count; b++) {
    const struct tracer_backend_desc *desc = tracer_backends[b];
    size_t n;
    struct rank_time *times;
    struct rank_row *rows = rank_rows(r, b, &n, &times);
    if (rows && n) {
      any = true;
      char label[64];
      backends_title(desc, label, sizeof label);
      fprintf(out,
              "Per-rank time (%s) | %zu ranks | stragglers: over the median by more than %u%% |"
              "\n\n",
              label, r->rank_count, pct);
      fprintf(out, "%-32s | %9s | %9s | %9s | %8s | %8s | %6s | %s\n", "Name", "Min", "Median",
              "Max", "Min rank", "Max rank", "Ranks", "Stragglers");
      for (size_t i = 0; i < n; i++) {
        const struct rank_row *row = &rows[i];
        char mn[32], md[32], mx[32], names[96];
        units_time(row->times[0].ns, mn, sizeof mn);
        units_time(row->median, md, sizeof md);
        units_time(row->times[row->n - 1].ns, mx, sizeof mx);
        stragglers_text(row, pct, names, sizeof names);
        fprintf(out, "%-32.32s | %9s | %9s | %9s | %8ld | %8ld | %6zu | %s\n",
                row_name(desc, row), mn, md, mx, row->times[0].rank,
                row->times[row->max_at].rank, row->n, names);
      }
      fputc('\n', out);
    }
    free(rows);
    free(times);
  }
  if (!any)
    fputs("Per-rank time: no rank's calls were counted per rank (their results lack the "
          "per-thread rows).\n\n", out);
}

void rank_spread_print_ranks_json(const struct job_result *r, unsigned pct, FILE *out) {
  fprintf(out, "    \"per_rank\": {\"straggler_over_median_pct\": %u, \"backends\": [", pct);
  bool first_backend = true;
  for (size_t b = 0; b < r->tally.backend_count; b++) {
    const struct tracer_backend_desc *desc = tracer_backends[b];
    size_t n;
    struct rank_time *times;
    struct rank_row *rows = rank_rows(r, b, &n, &times);
    if (rows && n) {
      fprintf(out, "%s\n      {\"name\": \"%s\", \"calls\": [", first_backend ? "" : ",",
              desc->name);
      first_backend = false;
      for (size_t i = 0; i < n; i++) {
        const struct rank_row *row = &rows[i];
        fprintf(out, "%s\n        {\"name\": ", i ? "," : "");
        if (row->function < 0)
          fputs("null", out);
        else
          units_json_string(out, desc->functions[row->function].name);
        fprintf(out,
                ", \"ranks\": %zu, \"min_ns\": %llu, \"min_rank\": %ld, \"median_ns\": %llu, "
                "\"max_ns\": %llu, \"max_rank\": %ld, \"stragglers\": [",
                row->n, (unsigned long long)row->times[0].ns, row->times[0].rank,
                (unsigned long long)row->median, (unsigned long long)row->times[row->n - 1].ns,
                row->times[row->max_at].rank);
        bool first = true;
        for (size_t k = 0; k < row->n; k++)
          if (straggler(row, &row->times[k], pct)) {
            fprintf(out, "%s{\"rank\": %ld, \"ns\": %llu}", first ? "" : ", ",
                    row->times[k].rank, (unsigned long long)row->times[k].ns);
            first = false;
          }
        fputs("]}", out);
      }
      fputs("]}", out);
    }
    free(rows);
    free(times);
  }
  fputs("]},\n", out);
}
