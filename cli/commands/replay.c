/* replay: `tracer -r [DIR]`: the reports and exports of a saved trace, or of an MPI job's
 * folder (default: the latest trace, ~/tracer-traces/latest). A trace whose tracer was
 * killed may still have its last events in a session: those are flushed first. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "commands.h"
#include "daemon_orphans.h"
#include "job_folder.h"
#include "log.h"
#include "run_record.h"
#include "session.h"

/* The tracer of this run (or of a rank) was killed: its session may still hold the last
 * events, in root's daemon or in the daemon private to its run. */
static void flush_orphans(const char *trace_dir) {
  struct run_record run;
  run_record_read(trace_dir, &run);
  bool killed = (run.present && run.exit_code < 0) || job_folder_has_unfinished(trace_dir);
  if (!killed)
    return;
  job_folder_wait_apps(trace_dir, 5000);
  struct run_record *orphans;
  size_t n = job_folder_orphans(trace_dir, &orphans);
  for (size_t i = 0; i < n; i++)
    daemon_orphan_flush(orphans[i].daemon_home, (pid_t)orphans[i].tracer_pid);
  free(orphans);
  if (session_daemon_alive())
    session_reap_stale();
}

enum { RUNS_LISTED = 20, NAME_WIDTH = 36, APP_WIDTH = 12 };

/* "812B", "41K", "1.8M", "12G": a few columns. */
static void short_size(uint64_t bytes, char *out, size_t size) {
  const char *units = "BKMGT";
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  if (u == 0)
    snprintf(out, size, "%lluB", (unsigned long long)bytes);
  else
    snprintf(out, size, v < 10 ? "%.1f%c" : "%.0f%c", v, units[u]);
}

/* The runs of a folder, newest first, a line each within 80 columns. */
static void list_runs(const char *dir, const struct trace_run *runs, size_t count) {
  log_error("Cannot read %s as one trace: it holds %zu runs, and a report is of one run (or of "
            "the ranks of one job); give one of them:",
            dir, count);
  fprintf(stderr, "  %-*s  %-16s  %-*s  %8s\n", NAME_WIDTH, "NAME", "ENDED", APP_WIDTH, "APP",
          "SIZE");
  for (size_t i = 0; i < count && i < RUNS_LISTED; i++) {
    const struct trace_run *r = &runs[i];
    char when[32] = "?", size[32], name[NAME_WIDTH + 1];
    struct tm tm;
    if (r->when && localtime_r(&r->when, &tm))
      strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    short_size(r->bytes, size, sizeof size);
    size_t len = strlen(r->name);
    if (len > NAME_WIDTH) /* its end, which tells runs apart (date, pid) */
      snprintf(name, sizeof name, "...%s", r->name + len - (NAME_WIDTH - 3));
    else
      snprintf(name, sizeof name, "%s", r->name);
    fprintf(stderr, "  %-*s  %-16s  %-*.*s  %8s\n", NAME_WIDTH, name, when, APP_WIDTH,
            APP_WIDTH, r->app[0] ? r->app : "-", size);
  }
  if (count > RUNS_LISTED)
    fprintf(stderr, "  ... and %zu older\n", count - RUNS_LISTED);
  if (runs[0].name[0] == '/')
    fprintf(stderr, "  e.g. tracer -r %s\n", runs[0].name);
  else
    fprintf(stderr, "  e.g. tracer -r %s/%s\n", dir, runs[0].name);
}

int command_replay(const struct tracer_options *o) {
  const char *dir = o->replay_dir;
  char *latest = NULL;
  if (!dir) {
    char *home = traces_home();
    char link[PATH_MAX];
    snprintf(link, sizeof link, "%s/latest", home);
    free(home);
    latest = realpath(link, NULL);
    if (!latest) {
      log_error("No trace to replay: give a folder (tracer -r DIR)");
      return TRACER_EXIT_USAGE;
    }
    dir = latest;
  }
  log_debug("replaying %s", dir);
  flush_orphans(dir);
  /* One run at a time: a folder of several (~/tracer-traces) is listed, not merged. */
  struct trace_run *runs;
  size_t count;
  struct diag d;
  diag_init(&d);
  if (trace_runs_find(dir, &runs, &count, &d)) {
    log_diag(&d, "Cannot read the trace");
    diag_clear(&d);
    free(latest);
    return TRACER_EXIT_ANALYSIS;
  }
  if (count > 1) {
    list_runs(dir, runs, count);
    free(runs);
    free(latest);
    return TRACER_EXIT_USAGE;
  }
  /* A folder above the one run it holds: that run's folder (its run record, its job). */
  char real[PATH_MAX], one[PATH_MAX] = "";
  if (count == 1 && realpath(dir, real) && strncmp(runs[0].path, real, strlen(real)) == 0 &&
      runs[0].path[strlen(real)] == '/') {
    snprintf(one, sizeof one, "%s", runs[0].path);
    log_info("reading the one run in %s: %s", dir, runs[0].name);
    dir = one;
    flush_orphans(dir);
  }
  free(runs);
  int rc = analyse_trace(o, dir);
  free(latest);
  return rc;
}
