/* analyse: the reports and exports of a trace as the options ask (one read of the trace,
 * cli/outputs/analysis.h), or an MPI job's report from its ranks' results; and what
 * they say on standard error. Shared by running an app, replaying a trace and rank 0
 * of a job. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "backends.h"
#include "commands.h"
#include "flame.h"
#include "job_folder.h"
#include "job_report.h"
#include "job_steps.h"
#include "log.h"
#include "node_gather.h"
#include "rank_exports.h"
#include "run_record.h"
#include "window_build.h"

void report_errors(const struct diag *d, const char *prefix) {
  for (unsigned i = 0; i < d->count; i++) {
    if (prefix)
      log_error("%s: %s", prefix, d->causes[i].message);
    else
      log_error("%s", d->causes[i].message);
  }
}

/* -o FILE, or standard output; NULL (said) when FILE cannot be written. */
static FILE *open_output(const struct tracer_options *o) {
  FILE *out = o->output ? fopen(o->output, "w") : stdout;
  if (!out)
    log_error("Cannot write the analysis: file=%s: %s", o->output, strerror(errno));
  return out;
}

/* Closes -o's FILE; rc, or TRACER_EXIT_ANALYSIS when it could not be written whole. */
static int close_output(const struct tracer_options *o, FILE *out, int rc) {
  if (out != stdout && fclose(out) != 0) {
    log_error("Cannot write the analysis: file=%s: %s", o->output, strerror(errno));
    rc = TRACER_EXIT_ANALYSIS;
  }
  fflush(stdout);
  return rc;
}

int analyse_job(const struct tracer_options *o, const char *job_dir, const long *ranks,
                size_t n, unsigned timeout_s) {
  if (o->csv_path) {
    log_error("--csv writes the tally of one run: %s is an MPI job's folder, whose report has "
              "no CSV yet", job_dir);
    return TRACER_EXIT_USAGE;
  }
  FILE *out = open_output(o);
  if (!out)
    return TRACER_EXIT_ANALYSIS;
  struct window_request window = {o->window, o->skip_asked, o->skip_steps, o->from, o->to};
  struct job_report_request req = {.job_dir = job_dir,
                                   .ranks = ranks,
                                   .rank_count = n,
                                   .timeout_s = timeout_s,
                                   .threads = o->threads,
                                   .json = o->json,
                                   .extended = o->extended,
                                   .rank_view = o->ranks,
                                   .ranks_pct = o->ranks_pct,
                                   .full_names = o->full_names};
  /* A replay reduces each rank again through what it asks that the ranks' saved results
   * do not hold; a live job's ranks were reduced through it already. */
  if (window_requested(&window)) {
    req.window = &window;
    req.steps_pattern = o->steps_pattern;
    req.reduce_again = ranks == NULL;
  }
  if (o->runtime_calls && ranks == NULL) {
    req.runtime_calls = true;
    req.reduce_again = true;
  }
  struct job_steps_request steps = {job_dir, o->steps_pattern, req.window, o->threads};
  if (o->steps) /* each rank's steps, the slowest rank of each */
    req.steps = &steps;
  struct node_gather_report got;
  struct diag d;
  diag_init(&d);
  int rc = job_report_print(&req, out, &got, &d) ? TRACER_EXIT_ANALYSIS : 0;
  if (rc && d.count) { /* the steps asked for: bad input */
    char chain[1024];
    log_error("%s", diag_join(&d, chain, sizeof chain));
    diag_clear(&d);
    return close_output(o, out, TRACER_EXIT_USAGE);
  }
  diag_clear(&d);
  if (rc && got.window_error[0]) { /* no rank's window held anything: bad input */
    log_error("%s", got.window_error);
    return close_output(o, out, TRACER_EXIT_USAGE);
  }
  if (got.window_error[0])
    log_warn("some ranks were left out: %s", got.window_error);
  if (got.from_events)
    log_warn("ranks without a result%s, counted from their events: %s",
             ranks ? " in time" : "", got.late);
  if (got.missing_count)
    log_warn("ranks with neither a result nor a trace: %s", got.missing);
  if (rc)
    log_error("Cannot report on the job in %s: no rank's result or trace could be read",
              job_dir);
  return close_output(o, out, rc);
}

/* The progress line, on a terminal, while the trace is read. */
static void draw_progress(void *context, uint64_t done, uint64_t total, bool finished) {
  (void)context;
  double pct = total ? 100.0 * (double)done / (double)total : 100.0;
  fprintf(stderr, "\rtracer: analysing the trace: %5.1f%%%s", pct > 100 ? 100 : pct,
          finished ? "\n" : "");
  fflush(stderr);
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The app's name from the run record's command: its first word, without its folder. */
static void app_name(const struct run_record *run, char *out, size_t size) {
  out[0] = '\0';
  if (!run->present || !run->command[0])
    return;
  const char *end = strchr(run->command, ' ');
  size_t len = end ? (size_t)(end - run->command) : strlen(run->command);
  const char *slash = memrchr(run->command, '/', len);
  const char *name = slash ? slash + 1 : run->command;
  snprintf(out, size, "%.*s", (int)(run->command + len - name), name);
}

static void say_timeline(const char *path, const char *json, const struct analysis_result *r) {
  size_t stem = has_suffix(path, ".pftrace") ? strlen(path) - 8 : strlen(path);
  log_info("timeline: %s (%llu slices, %llu flows, %llu counter values, %.1f MiB)%s%s", path,
           (unsigned long long)r->slices, (unsigned long long)r->flows,
           (unsigned long long)r->counter_values, (double)r->bytes / (1 << 20),
           r->parts > 1 ? "; split into parts and a summary: " : "",
           r->parts > 1 ? "see --timeline-split" : "");
  if (r->parts > 1)
    log_info("timeline: %u parts (%.*s.partN.pftrace) and %.*s.summary.pftrace", r->parts,
             (int)stem, path, (int)stem, path);
  if (json)
    log_info("timeline: %s (Chrome trace-event JSON)", json);
  if (r->timeline_left_out[0])
    log_warn("timeline: it holds every event that could be read, and leaves out what the read "
             "skipped: %s", r->timeline_left_out);
}

/* The packets the trace misses, a line each: errors when the trace lost them since it
 * was written, warnings when the run record says the recording lost them. */
static void say_missing(const struct analysis_result *r) {
  if (r->missing_warning[0])
    log_warn("%s", r->missing_warning);
  void (*say)(const char *, ...) = r->missing_unexplained ? log_error : log_warn;
  for (const char *line = r->missing_text; *line;) {
    size_t len = strcspn(line, "\n");
    say("%.*s", (int)len, line);
    line += len + (line[len] == '\n');
  }
  if (r->missing_unexplained)
    log_error("The trace misses %llu packet%s (above): the report counts what the files hold "
              "(exit status %d)",
              (unsigned long long)r->missing_unexplained, r->missing_unexplained == 1 ? "" : "s",
              TRACER_EXIT_INCOMPLETE);
}

int export_job(const struct tracer_options *o, const char *job_dir, long size,
               bool parts_written) {
  if (!o->otf2_path && !o->flame_path)
    return 0;
  struct diag d;
  diag_init(&d);
  if (!parts_written) { /* a replay: each rank's part from its trace, one after another */
    long *ranks = NULL;
    size_t n = job_folder_ranks(job_dir, &ranks);
    for (size_t i = 0; i < n; i++) {
      char folder[PATH_MAX];
      job_rank_folder(job_dir, ranks[i], folder, sizeof folder);
      log_debug("rank %ld: writing its part of the job's exports", ranks[i]);
      struct window_request window = {o->window, o->skip_asked, o->skip_steps, o->from, o->to};
      if (rank_exports_write(folder, o->otf2_path != NULL, o->flame_path != NULL, o->threads,
                             window_requested(&window) ? &window : NULL, o->steps_pattern,
                             &d)) {
        char chain[1024];
        log_warn("rank %ld: %s", ranks[i], diag_join(&d, chain, sizeof chain));
        diag_clear(&d);
      }
    }
    free(ranks);
  }
  struct rank_exports_stats stats;
  int rc = rank_exports_join(job_dir, size, o->otf2_path, o->flame_path, &stats, &d)
               ? TRACER_EXIT_ANALYSIS
               : 0;
  report_errors(&d, NULL);
  diag_clear(&d);
  if (o->otf2_path && stats.otf2_ranks && !rc)
    log_info("OTF2 archive: %s/traces.otf2 (%u ranks, %llu locations, %llu events)",
             o->otf2_path, stats.otf2_ranks, (unsigned long long)stats.otf2_locations,
             (unsigned long long)stats.otf2_events);
  if (o->flame_path && stats.flame_ranks && !rc) {
    char host[PATH_MAX];
    flame_host_path(o->flame_path, host, sizeof host);
    log_info("folded stacks: %s (device time, %llu stacks), %s (host time, %llu stacks), %u "
             "ranks",
             o->flame_path, (unsigned long long)stats.flame_device_lines, host,
             (unsigned long long)stats.flame_host_lines, stats.flame_ranks);
  }
  return rc;
}

int analyse_trace(const struct tracer_options *o, const char *trace_dir) {
  if (job_folder_is_job(trace_dir) && (o->otf2_path || o->flame_path)) {
    /* A job's exports are made per rank and joined, the reports as for any job. */
    struct tracer_options reports = *o;
    reports.otf2_path = reports.flame_path = NULL;
    int rc = analyse_trace(&reports, trace_dir);
    int erc = export_job(o, trace_dir, 0, false);
    return rc ? rc : erc;
  }
  if (!o->text && !o->timeline && job_folder_is_job(trace_dir))
    return analyse_job(o, trace_dir, NULL, 0, 0);
  struct run_record run;
  struct diag record_problems;
  diag_init(&record_problems);
  run_record_load(trace_dir, &run, &record_problems);
  for (unsigned i = 0; i < record_problems.count; i++)
    log_warn("%s", record_problems.causes[i].message);
  if (record_problems.count)
    log_warn("the report leaves those lines of %s out and goes by what the trace says",
             RUN_RECORD_FILE);
  diag_clear(&record_problems);
  FILE *out = open_output(o);
  if (!out)
    return TRACER_EXIT_ANALYSIS;
  /* -l: the timeline beside the trace, or FILE; its JSON as FILE with .json. */
  char path[PATH_MAX], json[PATH_MAX + 8], app[256];
  snprintf(path, sizeof path, "%s", o->timeline_path ? o->timeline_path : "");
  if (!o->timeline_path)
    snprintf(path, sizeof path, "%s/timeline.pftrace", trace_dir);
  size_t stem = has_suffix(path, ".pftrace") ? strlen(path) - 8 : strlen(path);
  snprintf(json, sizeof json, "%.*s.json", (int)stem, path);
  app_name(&run, app, sizeof app);
  bool progress = !o->text && log_enabled(LOG_INFO) && isatty(STDERR_FILENO);
  struct analysis_request request = {
      .trace_dir = trace_dir,
      .out = out,
      .run = &run,
      .text = o->text,
      .json = o->json,
      .extended = o->extended,
      .full_names = o->full_names,
      .rank_view = o->ranks,
      .ranks_pct = o->ranks_pct,
      .threads = o->threads,
      .timeline_path = o->timeline ? path : NULL,
      .timeline_json_path = o->timeline && o->timeline_json ? json : NULL,
      .timeline_split = o->timeline_split,
      .app_name = app[0] ? app : NULL,
      .csv_path = o->csv_path,
      .otf2_path = o->otf2_path,
      .flame_path = o->flame_path,
      .runtime_calls = o->runtime_calls || run.runtime_calls,
      .window = o->window,
      .skip_asked = o->skip_asked,
      .skip_steps = o->skip_steps,
      .from = o->from,
      .to = o->to,
      .steps = o->steps,
      .steps_pattern = o->steps_pattern,
      .progress = progress ? draw_progress : NULL,
  };
  struct analysis_result result;
  struct diag d;
  diag_init(&d);
  for (size_t i = 0; outputs[i]; i++)
    if (outputs[i]->asked(&request))
      log_debug("%s %s (option %s): reads %s",
                outputs[i]->kind == OUTPUT_REPORT ? "report" : "export", outputs[i]->name,
                outputs[i]->option, outputs[i]->reads);
  enum analysis_status status = analysis_run(&request, &result, &d);
  int rc = status == ANALYSIS_OK            ? 0
           : status == ANALYSIS_BAD_WINDOW ? TRACER_EXIT_USAGE
                                           : TRACER_EXIT_ANALYSIS;
  if (result.read.threads)
    log_debug("read the trace %s on %u thread%s%s%s",
              result.read.ordered ? "in time order" : "stream by stream", result.read.threads,
              result.read.threads > 1 ? "s" : "",
              result.read.beside ? "; on one more: " : "", result.read.beside_names);
  report_errors(&d, NULL);
  diag_clear(&d);
  if (result.run_record_note[0])
    log_warn("%s", result.run_record_note);
  say_missing(&result);
  if (!rc && result.missing_unexplained)
    rc = TRACER_EXIT_INCOMPLETE;
  if (result.unknown_backends[0]) {
    char looked[1024];
    backends_where(looked, sizeof looked, true);
    log_warn("Cannot decode the calls of backend %s: the trace has its events, but it is "
             "neither built in nor found on the backend path (looked in: %s). Give its "
             "folder (scripts/build-backend.sh's output) with --backend-path DIR or "
             "TRACER_BACKEND_PATH",
             result.unknown_backends, looked);
  }
  if (result.timeline)
    say_timeline(path, request.timeline_json_path, &result);
  if (result.csv)
    log_info("tally as CSV: %s", o->csv_path);
  if (result.otf2)
    log_info("OTF2 archive: %s/traces.otf2 (%llu locations, %llu events)", o->otf2_path,
             (unsigned long long)result.otf2_locations, (unsigned long long)result.otf2_events);
  if (result.flame) {
    char host[PATH_MAX];
    flame_host_path(o->flame_path, host, sizeof host);
    log_info("folded stacks: %s (device time, %llu stacks), %s (host time, %llu stacks)",
             o->flame_path, (unsigned long long)result.flame_device_lines, host,
             (unsigned long long)result.flame_host_lines);
  }
  return close_output(o, out, rc);
}
