/* calibrate: see calibrate.h. */
#include "calibrate.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "session.h"
#include "tally.h"

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  return remove(path);
}

/* Runs `true` with the runtime preloaded and TRACER_CALIBRATE=1 under a session recording
 * the runtime's events into trace_dir. */
static bool record_calibration(const char *clock_plugin, const char *runtime_library,
                               const char *trace_dir, char *why, size_t why_size) {
  const char *patterns[] = {"lttng_ust_tracer:calibration*", NULL};
  struct session_options so = {
      .clock_plugin = clock_plugin,
      .output_dir = trace_dir,
      .event_patterns = patterns,
      .blocking = true, /* every sample counts */
      .no_id_contexts = true,
  };
  struct session *session = NULL;
  struct session_error serr;
  if (session_begin(&so, &session, &serr) != SESSION_OK) {
    snprintf(why, why_size, "%s", serr.message);
    return false;
  }
  const char *const *session_env = session_app_environment(session);
  size_t count = 0;
  while (session_env && session_env[count])
    count++;
  const char **env = calloc(count + 2, sizeof *env);
  for (size_t i = 0; env && i < count; i++)
    env[i] = session_env[i];
  if (env)
    env[count] = "TRACER_CALIBRATE=1";
  const char *argv[] = {"true", NULL};
  const char *preload[] = {runtime_library, NULL};
  struct launch_request req = {
      .argv = argv,
      .preload_libraries = preload,
      .extra_environment = env,
      .removed_environment = session_app_environment_removed(session),
  };
  struct launch_process *process = NULL;
  struct launch_error lerr;
  enum launch_status ls = env ? launch_start(&req, &process, &lerr) : LAUNCH_ERR_SYSTEM;
  if (ls == LAUNCH_OK && session_track_process(session, launch_pid(process), &serr) != SESSION_OK) {
    snprintf(lerr.message, sizeof lerr.message, "%.900s", serr.message);
    ls = LAUNCH_ERR_SYSTEM;
  }
  if (ls == LAUNCH_OK)
    ls = launch_release(process, &lerr);
  int status = 0;
  if (ls == LAUNCH_OK)
    ls = launch_wait(process, &status, &lerr);
  launch_free(process);
  free(env);
  struct session_end_report report = {0};
  bool ended = session_end(session, &report, &serr) == SESSION_OK;
  session_free(session);
  if (ls != LAUNCH_OK)
    snprintf(why, why_size, "%s", env ? lerr.message : "out of memory");
  else if (!ended)
    snprintf(why, why_size, "%s", serr.message);
  return ls == LAUNCH_OK && ended;
}

static bool read_calibration(const char *trace_dir, struct tracing_cost *cost, bool *tsc,
                             char *why, size_t why_size) {
  struct trace_reader *reader;
  struct diag d;
  diag_init(&d);
  if (trace_reader_open(trace_dir, &reader, &d)) {
    diag_join(&d, why, why_size);
    diag_clear(&d);
    return false;
  }
  struct tally tally;
  bool found = false;
  struct trace_read_options one_thread = {.threads = 1};
  if (tally_trace(reader, &one_thread, false, &tally, &d) == 0 && tally.has_calibration) {
    *cost = (struct tracing_cost){tally.calibration_event_ps, tally.calibration_byte_ps,
                                  tally.calibration_call_ps};
    *tsc = tally.clock_is_tsc;
    found = true;
  }
  tally_free(&tally);
  diag_clear(&d);
  trace_reader_close(reader);
  if (!found)
    snprintf(why, why_size, "the calibration recorded no result");
  return found;
}

static bool measure(const char *clock_plugin, const char *runtime_library,
                    struct tracing_cost *cost, char *why, size_t why_size);

bool calibrate_cost(const char *clock_plugin, const char *runtime_library,
                    struct tracing_cost *cost, char *why, size_t why_size) {
  /* The TSC plugin keeps the monotonic clock where the TSC is not the kernel's
   * clocksource: then only a monotonic calibration exists. */
  if ((clock_plugin && tracing_cost_cached("tsc", cost)) || tracing_cost_cached("monotonic", cost))
    return true;
  /* The ranks of a job on a fresh node: the first measures, the others wait for it and
   * read what it measured. */
  int lock = tracing_cost_lock();
  bool cached = lock >= 0 && ((clock_plugin && tracing_cost_cached("tsc", cost)) ||
                              tracing_cost_cached("monotonic", cost));
  bool ok = cached || measure(clock_plugin, runtime_library, cost, why, why_size);
  tracing_cost_unlock(lock);
  return ok;
}

static bool measure(const char *clock_plugin, const char *runtime_library,
                    struct tracing_cost *cost, char *why, size_t why_size) {
  if (!runtime_library) {
    snprintf(why, why_size, "libtracer_runtime.so not found");
    return false;
  }
  char dir[] = "/tmp/tracer-calibration-XXXXXX";
  if (!mkdtemp(dir)) {
    snprintf(why, why_size, "cannot create a folder in /tmp");
    return false;
  }
  char trace_dir[sizeof dir + 8];
  snprintf(trace_dir, sizeof trace_dir, "%s/trace", dir);
  bool tsc = false;
  bool ok = record_calibration(clock_plugin, runtime_library, trace_dir, why, why_size) &&
            read_calibration(trace_dir, cost, &tsc, why, why_size);
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (ok)
    tracing_cost_save(tsc ? "tsc" : "monotonic", cost);
  return ok;
}
