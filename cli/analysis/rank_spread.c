/* rank_spread: see rank_spread.h. */
#include "rank_spread.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "ctf.h"
#include "event_map.h"
#include "job_folder.h"
#include "run_record.h"
#include "tally.h"
#include "units.h"

/* One rank's figures: per backend, per function, its total time; and its sums. */
struct rank_figures {
  long rank;
  bool read;
  uint64_t wall_ns;
  bool clean;          /* the app exited with status 0 */
  bool end_seen;       /* its tracer saw the app end */
  char status[128];    /* how it ended, as its run record says */
  uint64_t **function_ns;     /* [backend][function] */
  uint64_t *host_ns, *device_ns; /* [backend]: all host calls; kernels and transfers */
};

static int read_rank(const char *job_dir, unsigned threads, struct rank_figures *r) {
  char folder[4096];
  job_rank_folder(job_dir, r->rank, folder, sizeof folder);
  struct run_record run;
  run_record_read(folder, &run);
  r->wall_ns = run.wall_ns;
  r->clean = run.present && run.clean;
  r->end_seen = run.present && run.exit_code >= 0;
  snprintf(r->status, sizeof r->status, "%s", run.present ? run.status : "no run record");
  struct ctf_trace *trace;
  struct ctf_error err;
  if (ctf_trace_open(folder, &trace, &err) != CTF_OK)
    return -1;
  struct event_map map;
  struct tally tally;
  int rc = -1;
  if (event_map_build(trace, &map) == 0) {
    if (tally_trace(trace, &map, threads, false, &tally) == 0) {
      for (size_t b = 0; b < tally.backend_count; b++) {
        const struct tally_backend *tb = &tally.backends[b];
        for (uint32_t f = 0; f < tb->function_count; f++) {
          r->function_ns[b][f] = tb->host[f].total;
          r->host_ns[b] += tb->host[f].total;
        }
        for (size_t d = 0; d < tb->device_count; d++)
          r->device_ns[b] += tb->device[d].time.total;
      }
      r->read = true;
      rc = 0;
    }
    tally_free(&tally);
    event_map_free(&map);
  }
  ctf_trace_close(trace);
  return rc;
}

struct spread {
  double min, max, sum;
  long min_rank, max_rank;
  size_t count;
};

static void spread_add(struct spread *s, double v, long rank) {
  if (!s->count || v < s->min)
    s->min = v, s->min_rank = rank;
  if (!s->count || v > s->max)
    s->max = v, s->max_rank = rank;
  s->sum += v;
  s->count++;
}

static void print_share(FILE *out, const char *label, const char *what, const struct spread *s) {
  fprintf(out, "  %-8s %-12s %5.1f%% of wall time (least %5.1f%% rank %ld, most %5.1f%% rank %ld)\n",
          label, what, s->sum / (double)s->count, s->min, s->min_rank, s->max, s->max_rank);
}

struct rank_spread {
  struct rank_figures *figures; /* owned */
  size_t n, read, backends;
  long *ranks;                  /* owned */
};

struct rank_spread *rank_spread_load(const char *job_dir, unsigned threads) {
  struct rank_spread *rs = calloc(1, sizeof *rs);
  if (!rs)
    return NULL;
  size_t n = rs->n = job_folder_ranks(job_dir, &rs->ranks);
  long *ranks = rs->ranks;
  size_t backends = rs->backends = backends_count();
  struct rank_figures *figures = rs->figures = calloc(n + 1, sizeof *figures);
  size_t read = 0;
  for (size_t i = 0; figures && i < n; i++) {
    struct rank_figures *r = &figures[i];
    r->rank = ranks[i];
    r->function_ns = calloc(backends + 1, sizeof *r->function_ns);
    r->host_ns = calloc(backends + 1, sizeof *r->host_ns);
    r->device_ns = calloc(backends + 1, sizeof *r->device_ns);
    for (size_t b = 0; r->function_ns && b < backends; b++)
      r->function_ns[b] = calloc(tracer_backends[b]->function_count + 1, sizeof(uint64_t));
    if (r->host_ns && r->device_ns && r->function_ns && read_rank(job_dir, threads, r) == 0)
      read++;
  }
  rs->read = read;
  if (!read) {
    rank_spread_free(rs);
    return NULL;
  }
  return rs;
}

void rank_spread_print_summary(const struct rank_spread *rs, FILE *out) {
  const struct rank_figures *figures = rs->figures;
  size_t n = rs->n, read = rs->read, backends = rs->backends;
  /* The ranks that died, or whose end their tracer did not see, first. */
  for (size_t i = 0; i < n; i++)
    if (!figures[i].clean)
      fprintf(out, "Rank %ld: the app%s %s%s: the tables count what it recorded until then.\n",
              figures[i].rank, figures[i].end_seen ? "" : "'s",
              strncmp(figures[i].status, "killed", 6) == 0 ? "was " : "", figures[i].status);
  size_t timed = 0;
  for (size_t i = 0; i < n; i++)
    timed += figures[i].read && figures[i].wall_ns > 0;
  fprintf(out, "Ranks: %zu traced; where each rank's wall time went (mean over the %zu whose "
               "wall time is known):\n",
          read, timed);
  double best = 0;
  const char *best_label = NULL, *best_what = NULL;
  for (size_t b = 0; b < backends; b++) {
    struct spread host = {0}, device = {0};
    for (size_t i = 0; i < n; i++) {
      const struct rank_figures *r = &figures[i];
      if (!r->read || !r->wall_ns)
        continue;
      spread_add(&host, 100.0 * (double)r->host_ns[b] / (double)r->wall_ns, r->rank);
      spread_add(&device, 100.0 * (double)r->device_ns[b] / (double)r->wall_ns, r->rank);
    }
    const char *label = tracer_backends[b]->label;
    if (host.count && host.max > 0) {
      print_share(out, label, "host calls", &host);
      if (host.sum / (double)host.count > best)
        best = host.sum / (double)host.count, best_label = label, best_what = "host calls";
    }
    if (device.count && device.max > 0) {
      print_share(out, label, "device", &device);
      if (device.sum / (double)device.count > best)
        best = device.sum / (double)device.count, best_label = label, best_what = "device work";
    }
  }
  if (best_label)
    fprintf(out, "Verdict: %s %s take the largest share, %.1f%% of the ranks' wall time%s\n\n",
            best_label, best_what, best,
            best < 50 ? " (under half: most time is in none of the traced APIs)" : "");
  else if (!timed)
    fputs("Verdict: none, no rank's wall time is known (their end was not seen)\n\n", out);
  else
    fputs("Verdict: no traced call took measurable time\n\n", out);
}

void rank_spread_print_tables(const struct rank_spread *rs, FILE *out) {
  const struct rank_figures *figures = rs->figures;
  size_t n = rs->n, read = rs->read, backends = rs->backends;
  for (size_t b = 0; b < backends; b++) {
    const struct tracer_backend_desc *desc = tracer_backends[b];
    bool header = false;
    for (uint32_t f = 0; f < desc->function_count; f++) {
      struct spread s = {0};
      bool any = false;
      for (size_t i = 0; i < n; i++)
        if (figures[i].read) {
          spread_add(&s, (double)figures[i].function_ns[b][f], figures[i].rank);
          any |= figures[i].function_ns[b][f] > 0;
        }
      if (!any)
        continue;
      if (!header) {
        fprintf(out, "Per-rank time (%s) | %zu ranks |\n\n", desc->label, read);
        fprintf(out, "%-32s | %9s | %9s | %9s | %8s | %8s |\n", "Name", "Min", "Mean", "Max",
                "Min rank", "Max rank");
        header = true;
      }
      char mn[32], mean[32], mx[32];
      units_time((uint64_t)s.min, mn, sizeof mn);
      units_time((uint64_t)(s.sum / (double)s.count), mean, sizeof mean);
      units_time((uint64_t)s.max, mx, sizeof mx);
      fprintf(out, "%-32.32s | %9s | %9s | %9s | %8ld | %8ld |\n", desc->functions[f].name, mn,
              mean, mx, s.min_rank, s.max_rank);
    }
    if (header)
      fputc('\n', out);
  }
}

void rank_spread_free(struct rank_spread *rs) {
  if (!rs)
    return;
  struct rank_figures *figures = rs->figures;
  size_t n = rs->n, backends = rs->backends;
  for (size_t i = 0; figures && i < n; i++) {
    for (size_t b = 0; figures[i].function_ns && b < backends; b++)
      free(figures[i].function_ns[b]);
    free(figures[i].function_ns);
    free(figures[i].host_ns);
    free(figures[i].device_ns);
  }
  free(figures);
  free(rs->ranks);
  free(rs);
}
