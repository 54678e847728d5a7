/* job_rank: one rank of an MPI job (`mpirun -n N tracer APP`, docs/multi-rank.md). The
 * job's trace folder holds one folder per traced rank; each rank records its app as
 * `tracer APP` would, reduces its trace into its result and, with -l, writes its own
 * timeline; each node's first rank merges the node's results (cli/job/node_gather.h);
 * rank 0, once its own app is done, waits for the others' and prints one report for the
 * job, joins the ranks' timelines and makes the job's OTF2 archive and folded stacks from
 * the ranks' parts (cli/job/rank_exports.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "job_folder.h"
#include "launch.h"
#include "log.h"
#include "window_build.h"
#include "node_gather.h"
#include "option_values.h"
#include "rank_timeline.h"

/* Rank 0: the job's timeline, the ranks' own joined; 0 or an exit status. */
static int join_rank_timelines(const struct tracer_options *o, const char *job_dir) {
  char path[PATH_MAX], chain[1024];
  snprintf(path, sizeof path, "%s", o->timeline_path ? o->timeline_path : "");
  if (!o->timeline_path)
    snprintf(path, sizeof path, "%s/timeline.pftrace", job_dir);
  unsigned ranks;
  uint64_t bytes;
  struct diag d;
  diag_init(&d);
  if (rank_timeline_join(job_dir, path, &ranks, &bytes, &d)) {
    log_error("Cannot write the timeline: %s", diag_join(&d, chain, sizeof chain));
    diag_clear(&d);
    return TRACER_EXIT_ANALYSIS;
  }
  log_info("timeline: %s (%u ranks, %.1f MiB)", path, ranks, (double)bytes / (1 << 20));
  if (o->timeline_json) /* --timeline-format json, or -l FILE.json */
    log_warn("timeline: a job's is written in Perfetto's format only, not as Chrome JSON");
  return 0;
}

/* The app of a rank that is not traced: run as it is, at full speed. */
static int run_untraced(const struct tracer_options *o, int *app_status) {
  pid_t pid = fork();
  if (pid < 0) {
    log_error("Cannot run the app: %s", strerror(errno));
    return 127;
  }
  if (pid == 0) {
    execvp(o->app[0], o->app);
    log_error("Cannot run %s: %s", o->app[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  *app_status = status;
  return launch_exit_code(status);
}

/* TRACER_JOB_TIMEOUT, seconds (--help); 120 when unset, or when it is no number (said). */
static unsigned job_timeout(void) {
  const char *t = getenv("TRACER_JOB_TIMEOUT");
  uint64_t seconds = 120;
  char why[160];
  if (t && *t && !option_count(t, 0, 86400 * 365, &seconds, why, sizeof why)) {
    log_warn("TRACER_JOB_TIMEOUT=%s is no number of seconds (%s): 120 is used", t, why);
    seconds = 120;
  }
  return (unsigned)seconds;
}

/* One rank of an MPI job (docs/multi-rank.md): the job's trace folder holds one folder
 * per traced rank; rank 0, once its own app is done, waits for the others' and prints
 * one report for the job. */
int command_job_rank(const struct tracer_options *o, const struct rank_env *rank, int *app_status) {
  const char *bad = NULL;
  bool traced = !o->traced_ranks || rank_list_has(o->traced_ranks, rank->rank, &bad);
  if (bad) {
    log_error("Cannot read --traced-ranks %s: expected ranks and ranges such as 0,2-5, got '%s'",
              o->traced_ranks, bad);
    return TRACER_EXIT_USAGE;
  }
  if (rank->rank == 0) { /* it writes the job's report and exports */
    struct diag d;
    diag_init(&d);
    int rc = output_paths_check(o, &d);
    report_errors(&d, NULL);
    diag_clear(&d);
    if (rc) {
      log_error("Rank 0 did not run the app: the files above cannot be written");
      return TRACER_EXIT_ANALYSIS;
    }
  }
  char *job_dir = NULL;
  if (o->trace_output) {
    job_dir = strdup(o->trace_output);
  } else {
    char *home = traces_home();
    const char *base = strrchr(o->app[0], '/') ? strrchr(o->app[0], '/') + 1 : o->app[0];
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s-job-%s", home, base, rank->job_id);
    for (char *c = path + strlen(home) + 1; *c; c++)
      if (*c == '/')
        *c = '_';
    mkdir_parents(home, 0700);
    free(home);
    job_dir = strdup(path);
  }
  mkdir_parents(job_dir, 0700);
  struct tracer_options mine = *o;
  mine.job_member = true;
  char folder[PATH_MAX];
  job_rank_folder(job_dir, rank->rank, folder, sizeof folder);
  mine.trace_output = folder;
  /* Per-node results (cli/job/node_gather.h): each rank says where it runs, reduces
   * its own trace when its app has ended, and the node's first rank merges the node's. */
  node_gather_register(job_dir, rank->node, rank->rank, traced);
  /* Rank 0 speaks for the job; the others say only what went wrong. */
  enum log_level level = log_level();
  if (rank->rank != 0 && level > LOG_ERROR)
    log_setup("tracer", LOG_ERROR);
  int rc = traced ? command_run_app(&mine, app_status) : run_untraced(o, app_status);
  log_setup("tracer", level);
  if (*app_status != -1 && !(WIFEXITED(*app_status) && WEXITSTATUS(*app_status) == 0) &&
      rc != TRACER_EXIT_USAGE) {
    /* The launcher ends the job when a rank fails: this rank's tracer ends as its app did,
     * at once, with its trace saved; the other ranks' tracers save theirs as they end. */
    char how[128];
    launch_describe_status(*app_status, how, sizeof how);
    log_warn("rank %ld: the app %s%s; the job ends without its report: once every rank has "
             "ended, `tracer -r %s` gives it",
             rank->rank, strncmp(how, "killed", 6) == 0 ? "was " : "", how, job_dir);
    free(job_dir);
    return rc;
  }
  unsigned timeout = job_timeout();
  if (rc != TRACER_EXIT_USAGE) {
    struct window_request window = {o->window, o->skip_asked, o->skip_steps, o->from, o->to};
    if (traced && node_gather_rank(job_dir, rank->rank, 1,
                                   window_requested(&window) ? &window : NULL,
                                   o->steps_pattern))
      log_warn("cannot write the result of rank %ld: %s", rank->rank, strerror(errno));
    if (rank->local_rank == 0 && node_gather_node(job_dir, rank->node, rank->local_size,
                                                  timeout) < 0)
      log_warn("cannot write the result of node %s: %s", rank->node, strerror(errno));
  }
  if (rank->rank != 0 || rc == TRACER_EXIT_USAGE) {
    free(job_dir);
    return rc;
  }
  /* Rank 0 reports for the job once every traced rank's result is there. */
  long *ranks = calloc(rank->size > 0 ? (size_t)rank->size : 1, sizeof *ranks);
  size_t n = 0;
  for (long r = 0; ranks && r < (rank->size > 0 ? rank->size : 1); r++)
    if (!o->traced_ranks || rank_list_has(o->traced_ranks, r, &bad))
      ranks[n++] = r;
  mark_latest(job_dir);
  log_info("job of %ld rank%s (%s), trace saved in %s", rank->size, rank->size == 1 ? "" : "s",
           rank->launcher, job_dir);
  struct tracer_options report = *o;
  report.timeline = false; /* the ranks wrote theirs: joined, not built again */
  report.otf2_path = report.flame_path = NULL; /* likewise */
  int arc = o->text ? analyse_trace(&report, job_dir)
                    : analyse_job(&report, job_dir, ranks, n, timeout);
  free(ranks);
  if (o->timeline) {
    int jrc = join_rank_timelines(o, job_dir);
    arc = arc ? arc : jrc;
  }
  int erc = export_job(o, job_dir, rank->size, true); /* --otf2, --flame: the ranks' parts */
  arc = arc ? arc : erc;
  free(job_dir);
  return rc ? rc : arc;
}
