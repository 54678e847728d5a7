/* job_steps: see job_steps.h. */
#include "job_steps.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job_folder.h"
#include "steps.h"
#include "steps_report.h"
#include "trace_reader.h"
#include "units.h"

/* One rank's step times, by step number. */
struct rank_steps {
  long rank;
  uint64_t *ns; /* owned */
  size_t count;
};

/* Reads one rank's trace: prints its tables and keeps its step times. */
static int one_rank(const struct job_steps_request *q, long rank, struct rank_steps *kept,
                    FILE *out, struct diag *d) {
  char folder[PATH_MAX];
  job_rank_folder(q->job_dir, rank, folder, sizeof folder);
  struct trace_reader *reader;
  if (trace_reader_open(folder, &reader, d))
    return -1;
  struct steps steps;
  struct trace_window window = {0};
  int rc = steps_find(reader, q->pattern, q->threads, &steps, d);
  if (rc == 0 && q->window) {
    rc = window_build(q->window, &steps, &window, d);
    if (rc == 0)
      trace_reader_set_window(reader, &window);
  }
  struct steps_reading *reading = NULL;
  struct trace_consumer consumer;
  struct steps_report report = {0};
  if (rc == 0)
    rc = steps_read_open(&steps, &reading, &consumer, d);
  if (rc == 0) {
    const struct trace_consumer *list[] = {&consumer};
    struct trace_read_options options = {.threads = q->threads};
    enum trace_read_status st = trace_read(reader, list, 1, &options, d);
    rc = steps_read_close(reading, &report, d);
    rc = rc || st == TRACE_READ_FAILED ? -1 : 0;
  }
  if (rc == 0) {
    if (report.count)
      steps_print_tables(&report, out);
    else
      fprintf(out, "\nRank %ld: no steps (no region repeats in its run)\n", rank);
    /* Its steps in the window (the first process with steps: the rank's app). */
    for (size_t i = 0; i < report.count; i++)
      if (report.tables[i].count) {
        const struct steps_table *t = &report.tables[i];
        kept->ns = calloc(t->count + 1, sizeof *kept->ns);
        for (size_t k = 0; kept->ns && k < t->count; k++)
          kept->ns[k] = t->rows[k].ns;
        kept->count = kept->ns ? t->count : 0;
        break;
      }
    kept->rank = rank;
  }
  steps_report_free(&report);
  steps_free(&steps);
  trace_reader_close(reader);
  trace_window_free(&window);
  return rc;
}

static int by_value(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* Per step number: the slowest and fastest rank and the median over the ranks. */
static void print_slowest(const struct rank_steps *r, size_t n, FILE *out) {
  size_t most = 0;
  for (size_t i = 0; i < n; i++)
    most = r[i].count > most ? r[i].count : most;
  if (!most || n < 2)
    return;
  uint64_t *ns = calloc(n, sizeof *ns);
  if (!ns)
    return;
  fputs("\nSlowest rank of each step (the Nth step of every rank) |\n\n", out);
  fprintf(out, "%6s | %12s | %10s | %10s | %12s | %10s | %5s |\n", "Step", "Slowest rank",
          "Its time", "Median", "Fastest rank", "Its time", "Ranks");
  for (size_t k = 0; k < most; k++) {
    size_t have = 0, slow = SIZE_MAX, fast = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
      if (k >= r[i].count)
        continue;
      ns[have++] = r[i].ns[k];
      if (slow == SIZE_MAX || r[i].ns[k] > r[slow].ns[k])
        slow = i;
      if (fast == SIZE_MAX || r[i].ns[k] < r[fast].ns[k])
        fast = i;
    }
    qsort(ns, have, sizeof *ns, by_value);
    uint64_t median = have % 2 ? ns[have / 2] : (ns[have / 2 - 1] + ns[have / 2]) / 2;
    char slow_t[32], med_t[32], fast_t[32];
    units_time(r[slow].ns[k], slow_t, sizeof slow_t);
    units_time(median, med_t, sizeof med_t);
    units_time(r[fast].ns[k], fast_t, sizeof fast_t);
    fprintf(out, "%6zu | %12ld | %10s | %10s | %12ld | %10s | %5zu |\n", k + 1, r[slow].rank,
            slow_t, med_t, r[fast].rank, fast_t, have);
  }
  free(ns);
}

int job_steps_print(const struct job_steps_request *q, FILE *out, struct diag *d) {
  long *ranks = NULL;
  size_t n = job_folder_ranks(q->job_dir, &ranks);
  struct rank_steps *kept = calloc(n + 1, sizeof *kept);
  size_t read = 0;
  char first_error[512] = "";
  fputs("\nSteps per rank (HTA's definitions over each step's time) | docs/steps.md |\n", out);
  for (size_t i = 0; kept && i < n; i++) {
    struct diag one;
    diag_init(&one);
    if (one_rank(q, ranks[i], &kept[read], out, &one) == 0)
      read++;
    else if (!first_error[0] && one.count)
      snprintf(first_error, sizeof first_error, "rank %ld: %s", ranks[i],
               one.causes[one.count - 1].message);
    diag_clear(&one);
  }
  if (read)
    print_slowest(kept, read, out);
  for (size_t i = 0; kept && i < read; i++)
    free(kept[i].ns);
  free(kept);
  free(ranks);
  if (!read)
    return diag_error(d, "Cannot find the job's steps: %s",
                      first_error[0] ? first_error : "no rank's trace could be read");
  return 0;
}
