/* job_report: see job_report.h. */
#include "job_report.h"

#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "collectives.h"
#include "rank_spread.h"
#include "samples.h"
#include "stragglers.h"
#include "tally_print.h"
#include "units.h"

static void size_label(unsigned bucket, char *out, size_t size) {
  char limit[32];
  if (bucket == 0) {
    snprintf(out, size, "0B");
  } else if (bucket >= JOB_SIZE_BUCKETS - 1) {
    units_bytes(job_size_bucket_limit(bucket - 1), limit, sizeof limit);
    snprintf(out, size, "> %s", limit);
  } else {
    units_bytes(job_size_bucket_limit(bucket), limit, sizeof limit);
    snprintf(out, size, "<= %s", limit);
  }
}

/* Message sizes, beside the message-traffic table: per call name and size bucket. */
static void print_sizes(const struct job_result *r, FILE *out) {
  size_t b = SIZE_MAX;
  int width = 4; /* "Name" */
  for (size_t i = 0; i < r->size_count; i++) {
    const struct job_size_row *row = &r->sizes[i];
    int len = (int)strlen(tracer_backends[row->backend]->functions[row->function].name);
    width = len > width ? len : width;
  }
  for (size_t i = 0; i < r->size_count; i++) {
    const struct job_size_row *row = &r->sizes[i];
    const struct tracer_backend_desc *desc = tracer_backends[row->backend];
    if (row->backend != b) {
      if (b != SIZE_MAX)
        fputc('\n', out);
      b = row->backend;
      char title[64];
      backends_title(desc, title, sizeof title);
      fprintf(out, "Message sizes (%s)\n\n%-*s | %12s | %7s | %9s |\n", title, width, "Name",
              "Size", "Calls", "Bytes");
    }
    char label[48], bytes[32];
    size_label(row->bucket, label, sizeof label);
    units_bytes(row->bytes, bytes, sizeof bytes);
    fprintf(out, "%-*s | %12s | %7llu | %9s |\n", width, desc->functions[row->function].name,
            label, (unsigned long long)row->calls, bytes);
  }
  if (b != SIZE_MAX)
    fputc('\n', out);
}

static void print_job_json(const struct job_result *r, const struct node_gather_report *g,
                           const struct job_report_request *req, FILE *out) {
  fputs("  \"job\": {\n", out);
  if (req->rank_view)
    rank_spread_print_ranks_json(r, req->ranks_pct, out);
  fputs("    \"ranks\": [", out);
  for (size_t i = 0; i < r->rank_count; i++)
    fprintf(out, "%s%ld", i ? ", " : "", r->ranks[i]);
  fprintf(out, "],\n    \"nodes\": %zu, \"rank_results\": %zu, \"ranks_from_events\": %zu,"
               " \"ranks_missing\": %zu,\n    \"failed\": [",
          g->nodes, g->rank_results, g->from_events, g->missing_count);
  for (size_t i = 0; i < r->failed_count; i++) {
    fprintf(out,
            "%s{\"rank\": %ld, \"end_seen\": %s, \"running\": %s, \"ended_at_ns\": %llu, "
            "\"status\": ",
            i ? ", " : "", r->failed[i].rank, r->failed[i].end_seen ? "true" : "false",
            r->failed[i].running ? "true" : "false", (unsigned long long)r->failed[i].ended_at_ns);
    units_json_string(out, r->failed[i].status);
    fputc('}', out);
  }
  fputs("],\n", out);
  if (req->window) {
    char window[256];
    window_request_label(req->window, window, sizeof window);
    fputs("    \"window\": ", out);
    units_json_string(out, window);
    fputs(",\n", out);
  }
  fputs("    \"message_sizes\": [", out);
  for (size_t i = 0; i < r->size_count; i++) {
    const struct job_size_row *row = &r->sizes[i];
    const struct tracer_backend_desc *desc = tracer_backends[row->backend];
    fprintf(out, "%s\n      {\"backend\": ", i ? "," : "");
    units_json_string(out, desc->name);
    fputs(", \"name\": ", out);
    units_json_string(out, desc->functions[row->function].name);
    uint64_t limit = job_size_bucket_limit(row->bucket);
    if (limit == UINT64_MAX)
      fputs(", \"max_bytes\": null", out);
    else
      fprintf(out, ", \"max_bytes\": %llu", (unsigned long long)limit);
    fprintf(out, ", \"calls\": %llu, \"bytes\": %llu}", (unsigned long long)row->calls,
            (unsigned long long)row->bytes);
  }
  fputs("],\n    \"matrix\": [", out);
  for (size_t i = 0; i < r->matrix_count; i++) {
    const struct job_matrix_row *m = &r->matrix[i];
    fprintf(out, "%s\n      {\"from\": %ld, \"to\": %ld, \"bytes\": %llu, \"messages\": %llu}",
            i ? "," : "", m->from, m->to, (unsigned long long)m->bytes,
            (unsigned long long)m->messages);
  }
  fputs("]", out);
  if (r->untraced_peer_messages) /* sends to ranks no traced rank holds */
    fprintf(out, ",\n    \"matrix_untraced\": {\"bytes\": %llu, \"messages\": %llu}",
            (unsigned long long)r->untraced_peer_bytes,
            (unsigned long long)r->untraced_peer_messages);
  fputs("\n  }\n}\n", out);
}

static void collectives_text(const void *table, size_t backend, FILE *out) {
  collectives_print_text(table, backend, out);
}

static void collectives_json(const void *table, FILE *out) {
  collectives_print_json(table, out);
}

static void stragglers_text(const void *arrivals, size_t backend, FILE *out) {
  stragglers_print_text(arrivals, backend, out);
}

static void stragglers_json(const void *arrivals, FILE *out) {
  stragglers_print_json(arrivals, out);
}

static void samples_json(const void *report, FILE *out) { samples_print_json(report, out); }

static void steps_json(const void *steps, FILE *out) { job_steps_print_json(steps, out); }

static void slowest_json(const void *steps, FILE *out) {
  job_steps_print_slowest_json(steps, out);
}

/* What the job adds to the tally's tables: the collectives over all ranks, and their
 * stragglers, when any; in JSON the sampling ranks' device counters and the ranks' steps
 * (the text prints them after the tables). room has space for ADDITIONS. */
enum { ADDITIONS = 5 };
static struct tally_additions additions_of(const struct job_result *r,
                                           const struct job_steps *steps,
                                           struct tally_addition *room) {
  size_t n = 0;
  if (r->collectives.count)
    room[n++] = (struct tally_addition){"collectives", collectives_json, collectives_text,
                                       &r->collectives};
  if (r->stragglers.count)
    room[n++] = (struct tally_addition){"stragglers", stragglers_json, stragglers_text,
                                       &r->stragglers};
  if (r->samples.device_count || r->samples.unavailable_count)
    room[n++] = (struct tally_addition){"samples", samples_json, NULL, &r->samples};
  if (steps) {
    room[n++] = (struct tally_addition){"steps", steps_json, NULL, steps};
    room[n++] = (struct tally_addition){"slowest_ranks", slowest_json, NULL, steps};
  }
  return (struct tally_additions){room, n};
}

/* The tally's JSON (tally_print.c), with the job's object added as its last member. */
static int print_json(const struct job_result *r, const struct node_gather_report *g,
                      const struct job_report_request *req, const struct job_steps *steps,
                      FILE *out) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem)
    return -1;
  struct tally_addition room[ADDITIONS];
  struct tally_additions more = additions_of(r, steps, room);
  tally_print_json(&r->tally, req->job_dir, NULL, req->extended, &more, mem);
  if (fclose(mem) != 0) {
    free(text);
    return -1;
  }
  /* It ends with "\n}\n": the job's object goes before the closing brace (only that
   * one: the last member may end in braces of its own). */
  if (len >= 3 && strcmp(text + len - 3, "\n}\n") == 0)
    len -= 3;
  fwrite(text, 1, len, out);
  fputs(",\n", out);
  print_job_json(r, g, req, out);
  free(text);
  return 0;
}

int job_report_print(const struct job_report_request *req, FILE *out,
                     struct node_gather_report *gathered, struct diag *d) {
  struct job_result r;
  if (job_result_init(&r)) {
    job_result_free(&r);
    return -1;
  }
  r.want_actors = req->extended || req->rank_view;
  if (req->reduce_again) { /* a replay: each rank from its trace */
    r.reduce_again = true;
    r.window = req->window;
    r.steps_pattern = req->steps_pattern;
    r.runtime_calls = req->runtime_calls;
  }
  int rc = node_gather_job(req->job_dir, req->ranks, req->rank_count, req->timeout_s,
                           req->threads, &r, gathered);
  if (rc == 0 && r.peers.send_count) {
    rc = job_result_resolve_peers(&r);
    job_result_sort(&r);
  }
  struct job_steps steps = {0};
  if (rc == 0 && req->steps && job_steps_read(req->steps, &steps, d))
    rc = -1;
  if (rc == 0) {
    samples_sort(&r.samples);
    char window[256] = "";
    if (req->window)
      window_request_label(req->window, window, sizeof window);
    if (req->json) {
      rc = print_json(&r, gathered, req, req->steps ? &steps : NULL, out);
    } else {
      if (window[0]) /* the report's first line names the window */
        fprintf(out, "Window: %s of each rank's run (every table below counts only this "
                     "part)\n",
                window);
      rank_spread_print_summary(&r, out);
      struct tally_addition room[ADDITIONS];
      struct tally_additions more = additions_of(&r, NULL, room);
      struct tally_print_options how = {req->extended, req->full_names};
      tally_print_text(&r.tally, NULL, &how, &more, out);
      hta_sort(&r.hta);
      hta_print_text(&r.hta, out);
      samples_print_text(&r.samples, out);
      sources_table_print(&r.sources, SOURCES_TABLE_ROWS, req->full_names, true, out);
      fputc('\n', out);
      print_sizes(&r, out);
      if (req->rank_view)
        rank_spread_print_ranks(&r, req->ranks_pct, out);
      else if (r.rank_count > 1)
        fputs("Per-rank times of each call, with the median and the straggler ranks: "
              "--ranks\n", out);
      if (req->steps)
        job_steps_print_text(&steps, out);
    }
  }
  job_steps_free(&steps);
  job_result_free(&r);
  return rc;
}
