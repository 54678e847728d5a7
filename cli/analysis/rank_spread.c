/* rank_spread: see rank_spread.h. */
#include "rank_spread.h"

#include <stdint.h>
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

void rank_spread_print_summary(const struct job_result *r, FILE *out) {
  /* The ranks that died, or whose end their tracer did not see, first. */
  for (size_t i = 0; i < r->failed_count; i++) {
    const struct job_rank_status *f = &r->failed[i];
    fprintf(out, "Rank %ld: the app%s %s%s: the tables count what it recorded until then.\n",
            f->rank, f->end_seen ? "" : "'s", strncmp(f->status, "killed", 6) == 0 ? "was " : "",
            f->status);
  }
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

void rank_spread_print_tables(const struct job_result *r, FILE *out) {
  for (size_t b = 0; b < r->tally.backend_count; b++) {
    const struct tracer_backend_desc *desc = tracer_backends[b];
    bool header = false;
    for (uint32_t f = 0; f < desc->function_count; f++) {
      const struct job_spread *s = &r->function_ns[b][f];
      if (!s->count)
        continue;
      if (!header) {
        char label[64];
        backends_title(desc, label, sizeof label);
        fprintf(out, "Per-rank time (%s) | %zu ranks |\n\n", label, r->rank_count);
        fprintf(out, "%-32s | %9s | %9s | %9s | %8s | %8s | %6s |\n", "Name", "Min", "Mean",
                "Max", "Min rank", "Max rank", "Ranks");
        header = true;
      }
      char mn[32], avg[32], mx[32];
      units_time(s->min, mn, sizeof mn);
      units_time((uint64_t)mean(s), avg, sizeof avg);
      units_time(s->max, mx, sizeof mx);
      fprintf(out, "%-32.32s | %9s | %9s | %9s | %8ld | %8ld | %6llu |\n",
              desc->functions[f].name, mn, avg, mx, s->min_rank, s->max_rank,
              (unsigned long long)s->count);
    }
    if (header)
      fputc('\n', out);
  }
}
