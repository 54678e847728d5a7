/* replay: `tracer -r [DIR]`: the reports and exports of a saved trace, or of an MPI job's
 * folder (default: the latest trace, ~/tracer-traces/latest). A trace whose tracer was
 * killed may still have its last events in a session: those are flushed first. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include <lttng/lttng.h>

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
  if (lttng_session_daemon_alive() == 1)
    session_reap_stale();
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
  int rc = analyse_trace(o, dir);
  free(latest);
  return rc;
}
