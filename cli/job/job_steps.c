/* job_steps: see job_steps.h. */
#include "job_steps.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job_folder.h"
#include "trace_reader.h"
#include "units.h"

/* Reads one rank's trace: its steps, their tables and its step times. */
static int one_rank(const struct job_steps_request *q, long rank, struct job_rank_steps *kept,
                    struct diag *d) {
  char folder[PATH_MAX];
  job_rank_folder(q->job_dir, rank, folder, sizeof folder);
  kept->rank = rank;
  struct trace_reader *reader;
  if (trace_reader_open(folder, &reader, d))
    return -1;
  struct trace_window window = {0};
  int rc = steps_find(reader, q->pattern, q->threads, &kept->steps, d);
  /* Its processes are the rank's, where the trace does not say (an MPI rank's). */
  for (size_t i = 0; rc == 0 && i < kept->steps.count; i++)
    if (kept->steps.processes[i].rank < 0)
      kept->steps.processes[i].rank = rank;
  if (rc == 0 && q->window) {
    rc = window_build(q->window, &kept->steps, &window, d);
    if (rc == 0)
      trace_reader_set_window(reader, &window);
  }
  struct steps_reading *reading = NULL;
  struct trace_consumer consumer;
  if (rc == 0)
    rc = steps_read_open(&kept->steps, &reading, &consumer, d);
  if (rc == 0) {
    const struct trace_consumer *list[] = {&consumer};
    struct trace_read_options options = {.threads = q->threads};
    enum trace_read_status st = trace_read(reader, list, 1, &options, d);
    rc = steps_read_close(reading, &kept->report, d);
    rc = rc || st == TRACE_READ_FAILED ? -1 : 0;
  }
  /* Its steps in the window (the first process with steps: the rank's app). */
  for (size_t i = 0; rc == 0 && i < kept->report.count; i++)
    if (kept->report.tables[i].count) {
      const struct steps_table *t = &kept->report.tables[i];
      kept->ns = calloc(t->count + 1, sizeof *kept->ns);
      for (size_t k = 0; kept->ns && k < t->count; k++)
        kept->ns[k] = t->rows[k].ns;
      kept->count = kept->ns ? t->count : 0;
      break;
    }
  trace_reader_close(reader);
  trace_window_free(&window);
  return rc;
}

static int by_value(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* Per step number: the slowest and fastest rank and the median over the ranks. */
static int over_ranks(struct job_steps *s) {
  size_t most = 0;
  for (size_t i = 0; i < s->count; i++)
    most = s->ranks[i].count > most ? s->ranks[i].count : most;
  if (!most)
    return 0;
  uint64_t *ns = calloc(s->count, sizeof *ns);
  s->by_step = calloc(most, sizeof *s->by_step);
  if (!ns || !s->by_step) {
    free(ns);
    return -1;
  }
  for (size_t k = 0; k < most; k++) {
    struct job_step_ranks *at = &s->by_step[k];
    size_t have = 0, slow = SIZE_MAX, fast = SIZE_MAX;
    for (size_t i = 0; i < s->count; i++) {
      const struct job_rank_steps *r = &s->ranks[i];
      if (k >= r->count)
        continue;
      ns[have++] = r->ns[k];
      if (slow == SIZE_MAX || r->ns[k] > s->ranks[slow].ns[k])
        slow = i;
      if (fast == SIZE_MAX || r->ns[k] < s->ranks[fast].ns[k])
        fast = i;
    }
    qsort(ns, have, sizeof *ns, by_value);
    at->median_ns = have % 2 ? ns[have / 2] : (ns[have / 2 - 1] + ns[have / 2]) / 2;
    at->slowest_rank = s->ranks[slow].rank;
    at->slowest_ns = s->ranks[slow].ns[k];
    at->fastest_rank = s->ranks[fast].rank;
    at->fastest_ns = s->ranks[fast].ns[k];
    at->ranks = have;
  }
  s->step_count = most;
  free(ns);
  return 0;
}

int job_steps_read(const struct job_steps_request *q, struct job_steps *s, struct diag *d) {
  memset(s, 0, sizeof *s);
  long *ranks = NULL;
  size_t n = job_folder_ranks(q->job_dir, &ranks);
  s->ranks = calloc(n + 1, sizeof *s->ranks);
  char first_error[512] = "";
  for (size_t i = 0; s->ranks && i < n; i++) {
    struct diag one;
    diag_init(&one);
    if (one_rank(q, ranks[i], &s->ranks[s->count], &one) == 0) {
      s->count++;
    } else {
      struct job_rank_steps *r = &s->ranks[s->count];
      steps_report_free(&r->report);
      steps_free(&r->steps);
      free(r->ns);
      memset(r, 0, sizeof *r);
      if (!first_error[0] && one.count)
        snprintf(first_error, sizeof first_error, "rank %ld: %s", ranks[i],
                 one.causes[one.count - 1].message);
    }
    diag_clear(&one);
  }
  free(ranks);
  for (size_t i = 0; i < s->count && !s->what[0]; i++)
    for (size_t p = 0; p < s->ranks[i].steps.count && !s->what[0]; p++)
      if (s->ranks[i].steps.processes[p].count)
        snprintf(s->what, sizeof s->what, "%s", s->ranks[i].steps.processes[p].what);
  if (!s->count)
    return diag_error(d, "Cannot find the job's steps: %s",
                      first_error[0] ? first_error : "no rank's trace could be read");
  if (over_ranks(s))
    return diag_error(d, "Cannot find the job's steps: out of memory");
  return 0;
}

void job_steps_print_text(const struct job_steps *s, FILE *out) {
  fputs("\nSteps per rank (HTA's definitions over each step's time) | docs/steps.md |\n", out);
  for (size_t i = 0; i < s->count; i++) {
    if (s->ranks[i].report.count)
      steps_print_tables(&s->ranks[i].report, out);
    else
      fprintf(out, "\nRank %ld: no steps (no region repeats in its run)\n", s->ranks[i].rank);
  }
  if (!s->step_count || s->count < 2)
    return;
  fputs("\nSlowest rank of each step (the Nth step of every rank) |\n\n", out);
  fprintf(out, "%6s | %12s | %10s | %10s | %12s | %10s | %5s |\n", "Step", "Slowest rank",
          "Its time", "Median", "Fastest rank", "Its time", "Ranks");
  for (size_t k = 0; k < s->step_count; k++) {
    const struct job_step_ranks *at = &s->by_step[k];
    char slow_t[32], med_t[32], fast_t[32];
    units_time(at->slowest_ns, slow_t, sizeof slow_t);
    units_time(at->median_ns, med_t, sizeof med_t);
    units_time(at->fastest_ns, fast_t, sizeof fast_t);
    fprintf(out, "%6zu | %12ld | %10s | %10s | %12ld | %10s | %5zu |\n", k + 1, at->slowest_rank,
            slow_t, med_t, at->fastest_rank, fast_t, at->ranks);
  }
}

void job_steps_print_json(const struct job_steps *s, FILE *out) {
  fputc('[', out);
  size_t printed = 0;
  for (size_t i = 0; i < s->count; i++)
    steps_print_json_tables(&s->ranks[i].report, &printed, out);
  fputs("\n  ]", out);
}

void job_steps_print_slowest_json(const struct job_steps *s, FILE *out) {
  fputc('[', out);
  for (size_t k = 0; k < s->step_count; k++) {
    const struct job_step_ranks *at = &s->by_step[k];
    fprintf(out,
            "%s\n    {\"step\": %zu, \"rank\": %ld, \"ns\": %llu, \"median_ns\": %llu, "
            "\"fastest_rank\": %ld, \"fastest_ns\": %llu, \"ranks\": %zu}",
            k ? "," : "", k + 1, at->slowest_rank, (unsigned long long)at->slowest_ns,
            (unsigned long long)at->median_ns, at->fastest_rank,
            (unsigned long long)at->fastest_ns, at->ranks);
  }
  fputs("\n  ]", out);
}

void job_steps_free(struct job_steps *s) {
  for (size_t i = 0; s->ranks && i < s->count; i++) {
    steps_report_free(&s->ranks[i].report);
    steps_free(&s->ranks[i].steps);
    free(s->ranks[i].ns);
  }
  free(s->ranks);
  free(s->by_step);
  memset(s, 0, sizeof *s);
}
