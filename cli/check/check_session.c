/* check_session: whether a session daemon answers or can be started, proved by setting
 * up a session the way a run does (into a scratch folder where traces go, removed
 * afterwards), and the trace clock that session gives the app, with the reason. */
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_report.h"
#include "session.h"
#include "tracer_clock.h"

#define CLOCK_PLUGIN_ENTRY "LTTNG_UST_CLOCK_PLUGIN="

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  remove(path);
  return 0;
}

static double seconds_since(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static bool same_file(const char *a, const char *b) {
  char ra[PATH_MAX], rb[PATH_MAX];
  return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

/* The clock the app of this session stamps its events with: the plugin the serving
 * daemon runs with, which the session hands to the app, or none. */
static void report_clock(struct check_report *report, const struct check_request *request,
                         const struct session *session, bool daemon_was_running) {
  const char *plugin = NULL;
  const char *const *env = session_app_environment(session);
  for (size_t i = 0; env && env[i]; i++)
    if (strncmp(env[i], CLOCK_PLUGIN_ENTRY, strlen(CLOCK_PLUGIN_ENTRY)) == 0)
      plugin = env[i] + strlen(CLOCK_PLUGIN_ENTRY);
  char *ours = request->find_library("clock");
  char source[32] = "?";
  tracer_clock_kernel_clocksource(source, sizeof source);
  const char *why_not = NULL;
  if (plugin && ours && same_file(plugin, ours)) {
    if (tracer_clock_tsc_usable(&why_not))
      check_say(report, CHECK_OK, "trace clock",
                "tsc: the job's session daemon loads the tracer's clock plugin, the TSC is "
                "invariant and the kernel's clocksource is tsc");
    else
      check_say(report, CHECK_OK, "trace clock",
                "monotonic: the tracer's clock plugin is loaded, but %s (clocksource %s)",
                why_not, source);
  } else if (plugin) {
    check_say(report, CHECK_INFO, "trace clock",
              "the clock of the plugin %s (LTTNG_UST_CLOCK_PLUGIN of the session daemon)",
              plugin);
  } else {
    const char *why;
    if (request->monotonic_clock)
      why = "--clock monotonic";
    else if (daemon_was_running)
      why = "a session daemon was already running without the tracer's clock plugin, and a "
            "daemon keeps its clock";
    else if (geteuid() == 0)
      why = "as root the session daemon is the machine's, shared with every LTTng user, so "
            "it keeps LTTng's clock";
    else if (!ours)
      why = "libtracer_clock.so is not beside the tracer";
    else
      why = "the session daemon runs without the tracer's clock plugin";
    check_say(report, CHECK_OK, "trace clock", "monotonic (CLOCK_MONOTONIC): %s", why);
  }
  free(ours);
}

void check_session_and_clock(struct check_report *report, const struct check_request *request,
                             const char *trace_dir) {
  bool daemon_was_running = session_daemon_alive();
  const char *lttng_home = getenv("LTTNG_HOME");
  char scratch[PATH_MAX];
  snprintf(scratch, sizeof scratch, "%s/.tracer-check-%ld", trace_dir, (long)getpid());
  const char *patterns[] = {"lttng_ust_tracer:*", NULL};
  struct session_options options = {
      .output_dir = scratch,
      .event_patterns = patterns,
      .clock_plugin = request->clock_plugin,
      .no_id_contexts = true,
  };
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  struct session *session = NULL;
  struct session_error error;
  if (session_begin(&options, &session, &error) != SESSION_OK) {
    check_say(report, CHECK_FAIL, "session", "%s", error.message);
    check_say(report, CHECK_INFO, "trace clock", "unknown: the session daemon decides it");
    nftw(scratch, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    return;
  }
  double took = seconds_since(&start);
  if (session_daemon_trouble(session))
    check_say(report, CHECK_WARN, "session daemon", "%s", session_daemon_trouble(session));
  else if (daemon_was_running)
    check_say(report, CHECK_OK, "session daemon",
              "one is running and answers (%s): jobs use it and leave it running",
              geteuid() == 0 ? "root's, in /var/run/lttng"
              : lttng_home   ? "LTTNG_HOME's"
                             : "this user's, in ~/.lttng");
  else
    check_say(report, CHECK_OK, "session daemon",
              "none running; the check started one and set up a session in %.1f s, as each "
              "job does (%s)",
              took,
              geteuid() == 0 ? "as root: the machine's, shared by the jobs running at once"
                             : "private to the job, in a folder under TMPDIR or /tmp");
  report_clock(report, request, session, daemon_was_running);
  struct session_end_report end;
  if (session_end(session, &end, &error) != SESSION_OK)
    check_say(report, CHECK_WARN, "session daemon", "the check's session did not end cleanly: %s",
              error.message);
  session_free(session);
  nftw(scratch, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}
