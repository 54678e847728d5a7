/* run_app: `tracer [options] APP`: runs the app under an LTTng session with the chosen
 * backends' interposers preloaded (cli/control/), records how it ended beside the trace
 * (tracer-run.txt), then analyses the trace (analyse.c). */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app_libraries.h"
#include "backends.h"
#include "calibrate.h"
#include "commands.h"
#include "descendants.h"
#include "fork_listener.h"
#include "launch.h"
#include "rank_exports.h"
#include "rank_timeline.h"
#include "log.h"
#include "window_build.h"
#include "rank_env.h"
#include "run_record.h"
#include "sampler_launch.h"
#include "session.h"
#include "trace_budget.h"
#include "tracing_cost.h"

/* LTTng's consumer writes the trace's folders 0770 and files 0660 (group "tracing"):
 * nobody but the user may change a trace. */
static int drop_group_write(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)type;
  (void)ftw;
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    chmod(path, st->st_mode & ~(mode_t)(S_IWGRP | S_IWOTH) & 07777);
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* The event patterns of the chosen mode for each selected backend, NULL-terminated. */
static char **event_patterns(const struct tracer_options *o, char **backends, size_t n) {
  size_t extra = 0;
  for (const char *e = o->events; e && *e; e++)
    extra += *e == ',';
  char **p = calloc(2 * n + extra + 5, sizeof *p);
  size_t k = 0;
  for (size_t i = 0; p && i < n; i++) {
    const char *b = backends[i];
    char buf[256];
    switch (o->mode) {
    case MODE_MINIMAL:
      snprintf(buf, sizeof buf, "lttng_ust_%s:call", b);
      p[k++] = strdup(buf);
      break;
    case MODE_DEFAULT:
      /* Every function's own event F, but neither `call` nor F__full (session.h). */
      snprintf(buf, sizeof buf, "lttng_ust_%s:*!lttng_ust_%s:call,lttng_ust_%s:*__full", b, b, b);
      p[k++] = strdup(buf);
      break;
    case MODE_FULL:
      snprintf(buf, sizeof buf, "lttng_ust_%s:*__full", b);
      p[k++] = strdup(buf);
      break;
    }
  }
  if (p) {
    /* The runtime's own events, the counted entries in their own channel (session.h). */
    /* --no-stacks: the runtime records a stack only when its event is enabled. */
    p[k++] = strdup(o->no_stacks ? "lttng_ust_tracer:*!" SESSION_COUNTED_EVENT
                                   ",lttng_ust_tracer:stack,lttng_ust_tracer:object"
                                 : "lttng_ust_tracer:*!" SESSION_COUNTED_EVENT);
    p[k++] = strdup(SESSION_COUNTED_EVENT);
  }
  if (p && o->sample_ms)
    p[k++] = strdup("lttng_ust_sampler:*");
  if (p && o->events) {
    char *copy = strdup(o->events), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
      p[k++] = strdup(t);
    free(copy);
  }
  return p;
}

static void free_strings(char **v) {
  for (size_t i = 0; v && v[i]; i++)
    free(v[i]);
  free(v);
}

/* The launcher variable of d that is set in this environment, or NULL. */
static const char *launcher_variable_set(const struct tracer_backend_desc *d) {
  for (size_t i = 0; d->launcher_variables && d->launcher_variables[i]; i++)
    if (getenv(d->launcher_variables[i]))
      return d->launcher_variables[i];
  return NULL;
}

/* Whether a backend of d's group is among kept[0..count). */
static bool group_taken(const struct tracer_backend_desc *const *kept, size_t count,
                        const struct tracer_backend_desc *d) {
  for (size_t k = 0; k < count; k++)
    if (strcmp(kept[k]->symbol_group, d->symbol_group) == 0)
      return true;
  return false;
}

/* Backends of one symbol group (MPICH's and Open MPI's MPI_*) wrap the same function
 * names for different libraries: of those selected, only one is kept, and the tracer says
 * which and why. The one whose library the app links wins; an app that links none of them
 * (python3, which loads MPI later through mpi4py or ctypes) gets the one whose launcher
 * started it (trace.launcher_variables). */
static void pick_symbol_groups(const struct tracer_options *o, char **names, char **libs,
                               size_t *n) {
  const struct tracer_backend_desc *group[64], *kept[64];
  const char *wanted[65];
  size_t count = 0, kept_count = 0;
  for (size_t i = 0; i < *n && count < sizeof group / sizeof *group; i++) {
    const struct tracer_backend_desc *d = backends_find(names[i]);
    if (d && d->symbol_group[0]) {
      wanted[count] = d->library;
      group[count++] = d;
    }
  }
  if (count == 0)
    return;
  wanted[count] = NULL;
  /* The group's libraries: the app's own list settles it without ldd when it can. */
  char *linked = app_libraries_for(o->app[0], wanted);
  for (size_t i = 0; i < count; i++)
    if (!group_taken(kept, kept_count, group[i]) && linked &&
        app_libraries_has(linked, group[i]->library)) {
      log_info("%s: %s links %s, traced as %s", group[i]->symbol_group, o->app[0],
               group[i]->library, group[i]->name);
      kept[kept_count++] = group[i];
    }
  for (size_t i = 0; i < count; i++) {
    const char *variable =
        group_taken(kept, kept_count, group[i]) ? NULL : launcher_variable_set(group[i]);
    if (variable) {
      log_info("%s: %s links none of the %s libraries%s; %s is set by the launcher of %s: "
               "traced as %s",
               group[i]->symbol_group, o->app[0], group[i]->symbol_group,
               linked ? "" : " that ldd can see", variable, group[i]->library, group[i]->name);
      kept[kept_count++] = group[i];
    }
  }
  /* Said under an MPI launcher only: an app that loads no MPI (a script) is common
   * outside MPI jobs, and the group's backends are then not its business. */
  struct rank_env rank;
  rank_env_read(&rank);
  if (kept_count == 0 && rank.present && rank.mpi_launcher)
    log_info("%s: %s links none of the %s libraries and %s is not a launcher the %s backends "
             "know: none is traced (-b NAME picks one)",
             group[0]->symbol_group, o->app[0], group[0]->symbol_group, rank.launcher,
             group[0]->symbol_group);
  for (size_t i = 0; i < *n; i++) {
    const struct tracer_backend_desc *d = backends_find(names[i]);
    bool keep = !d || !d->symbol_group[0];
    for (size_t k = 0; !keep && k < kept_count; k++)
      keep = kept[k] == d;
    if (keep)
      continue;
    free(names[i]);
    free(libs[i]);
    memmove(&names[i], &names[i + 1], (*n - i) * sizeof *names);
    memmove(&libs[i], &libs[i + 1], (*n - i) * sizeof *libs);
    (*n)--;
    i--;
  }
  free(linked);
}

/* The backends to trace: -b's list, each of which must have its library; else every one
 * whose library is there (a GPU node may carry the CUDA backends alone: the others are
 * named in one line, and only none at all is an error). */
static int select_backends(const struct tracer_options *o, char ***names, char ***libs, size_t *n) {
  size_t total = backends_count();
  *names = calloc(total + 1, sizeof **names);
  *libs = calloc(total + 2, sizeof **libs); /* room for the runtime (preload_runtime_first) */
  *n = 0;
  if (!*names || !*libs)
    return -1;
  if (o->backends && strcmp(o->backends, "none") == 0)
    return 0; /* only the -e events */
  char missing[512] = ""; /* the backends left out for want of their library */
  if (o->backends) {
    char *copy = strdup(o->backends), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
      if (!backends_find(t)) {
        char known[1024], looked[1024];
        backends_names(", ", known, sizeof known);
        backends_where(looked, sizeof looked, false);
        log_error("Unknown backend: %s (the backends here: %s; one built outside the tracer "
                  "by scripts/build-backend.sh is found with --backend-path DIR or "
                  "TRACER_BACKEND_PATH; looked in: %s)",
                  t, known, looked);
        free(copy);
        return -1;
      }
    free(copy);
  }
  for (size_t i = 0; i < total; i++) {
    const char *b = tracer_backends[i]->name;
    if (o->backends) {
      bool wanted = false;
      char *copy = strdup(o->backends), *save = NULL;
      for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        wanted |= strcmp(t, b) == 0;
      free(copy);
      if (!wanted)
        continue;
    }
    char *lib = find_library(b);
    if (!lib && o->backends) {
      log_error("Cannot find the %s interposer (libtracer_%s.so next to the tracer or on "
                "TRACER_BACKEND_PATH)",
                b, b);
      return -1;
    }
    if (!lib) {
      size_t used = strlen(missing);
      snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "", b);
      continue;
    }
    (*names)[*n] = strdup(b);
    (*libs)[(*n)++] = lib;
  }
  if (missing[0] && *n == 0) {
    log_error("Cannot find any backend's interposer (libtracer_NAME.so next to the tracer or on "
              "TRACER_BACKEND_PATH): looked for %s",
              missing);
    return -1;
  }
  if (missing[0])
    log_info("not traced: %s (no interposer next to the tracer or on TRACER_BACKEND_PATH)",
             missing);
  if (!o->backends)
    pick_symbol_groups(o, *names, *libs, n);
  return 0;
}

/* The runtime comes first in LD_PRELOAD when any interposer is preloaded: its dlsym
 * (runtime/tracer_wrappers.c) must precede the C library's, so that functions an app
 * resolves on a handle of a library it dlopen'd are traced too. libs has room for it. */
static void preload_runtime_first(char **libs) {
  size_t count = 0;
  while (libs[count])
    count++;
  char *runtime = count ? find_library("runtime") : NULL;
  if (!runtime)
    return;
  memmove(libs + 1, libs, (count + 1) * sizeof *libs);
  libs[0] = runtime;
}

/* Backends whose library the API's own library loads (a collector or tool) are not
 * preloaded: their library goes into that API's environment variable instead, and out of
 * libs. Returns the NAME=PATH entries, NULL-terminated. */
static char **collector_environment(char **names, char **libs, size_t n) {
  char **env = calloc(n + 1, sizeof *env);
  size_t k = 0, kept = 0;
  for (size_t i = 0; env && i < n; i++) {
    const struct tracer_backend_desc *b = backends_find(names[i]);
    if (!b || !b->collector || !*b->collector) {
      libs[kept++] = libs[i];
      continue;
    }
    const char *users = getenv(b->collector);
    if (users && *users)
      log_warn("%s=%s is replaced by the tracer's own library for the %s backend", b->collector,
               users, b->name);
    if (asprintf(&env[k], "%s=%s", b->collector, libs[i]) < 0)
      env[k] = NULL;
    else
      k++;
    free(libs[i]);
  }
  for (size_t i = kept; env && i < n; i++)
    libs[i] = NULL;
  return env;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Where a run's fixed cost goes (`tracer -v`; bench/fixed_cost.sh reads this line): the
 * tracer's own steps around the session's (session_timing). */
struct run_timing {
  uint64_t begin, prepared, session_ready, launched, app_ended, session_ended, recorded, analysed;
};

static double ms_between(uint64_t from, uint64_t to) {
  return from && to > from ? (double)(to - from) / 1e6 : 0.0;
}

static void log_timing(const struct run_timing *t, const struct session_timing *s) {
  if (!log_enabled(LOG_DEBUG))
    return;
  log_debug("timing (ms): prepare=%.1f daemon=%.1f reap=%.1f setup=%.1f launch=%.1f app=%.1f "
            "stop=%.1f counts=%.1f destroy=%.1f release=%.1f record=%.1f analysis=%.1f",
            ms_between(t->begin, t->prepared), (double)s->daemon_ns / 1e6,
            (double)s->reap_ns / 1e6, (double)s->setup_ns / 1e6,
            ms_between(t->session_ready, t->launched), ms_between(t->launched, t->app_ended),
            (double)s->stop_ns / 1e6, (double)s->counts_ns / 1e6, (double)s->destroy_ns / 1e6,
            (double)s->release_ns / 1e6, ms_between(t->session_ended, t->recorded),
            ms_between(t->recorded, t->analysed));
}

static unsigned mode_bytes_per_call(enum tracer_mode mode) {
  return mode == MODE_MINIMAL ? TRACE_BYTES_PER_CALL_MINIMAL
         : mode == MODE_FULL  ? TRACE_BYTES_PER_CALL_FULL
                              : TRACE_BYTES_PER_CALL_DEFAULT;
}

/* The trace's bound and buffers (trace_budget.h), and a warning before the app starts
 * when the free space is less than a short run needs. */
static void plan_budget(const struct tracer_options *o, const char *trace_dir,
                        struct trace_budget_plan *plan, struct session_options *so) {
  if (trace_budget_plan(trace_dir, o->max_size, mode_bytes_per_call(o->mode), o->subbuf_size,
                        o->subbuf_count, plan) != 0) {
    log_warn("cannot read the free space where the trace goes (%s): %s", trace_dir,
             strerror(errno));
    memset(plan, 0, sizeof *plan);
    plan->bound = o->max_size ? o->max_size : UINT64_MAX;
    plan->bound_given = o->max_size != 0;
    return;
  }
  if (plan->subbuf_size) {
    so->subbuf_size = plan->subbuf_size;
    so->subbuf_count = plan->subbuf_count;
  }
  char free_text[32], need[32], bound[32];
  trace_budget_format_bytes(plan->free_bytes, free_text, sizeof free_text);
  trace_budget_format_bytes(plan->short_run_bytes, need, sizeof need);
  trace_budget_format_bytes(plan->bound, bound, sizeof bound);
  if (plan->free_bytes < plan->short_run_bytes)
    log_warn("only %s free where the trace goes (%s), less than a short run needs (%u calls "
             "take about %s in %s mode): the trace will hold at most %s, and then the calls "
             "are only counted",
             free_text, trace_dir, TRACE_SHORT_RUN_CALLS, need,
             o->mode == MODE_MINIMAL ? "minimal" : o->mode == MODE_FULL ? "full" : "the default",
             bound);
  if (o->max_size && !plan->bound_given)
    log_warn("--max-size is more than the free space where the trace goes allows (%s): the "
             "trace will hold at most %s",
             free_text, bound);
  log_debug("trace bound: %s%s, buffers %llu bytes", bound,
            plan->bound_given ? " (--max-size)" : " (free space less a margin)",
            (unsigned long long)plan->buffer_bytes);
}

/* What the watch of the trace's size saw (trace_budget.h), said once, and kept in the
 * run record for the report. */
static void report_budget(const struct trace_budget_result *limit, const char *trace_dir,
                          struct run_record *run) {
  run->partial_reason = limit->reason == TRACE_BUDGET_MAX_SIZE    ? RUN_PARTIAL_MAX_SIZE
                        : limit->reason == TRACE_BUDGET_DISK_FULL ? RUN_PARTIAL_DISK_FULL
                        : limit->disk_full                        ? RUN_PARTIAL_DISK_FULL
                                                                  : RUN_PARTIAL_NONE;
  if (run->partial_reason == RUN_PARTIAL_NONE)
    return;
  /* Full only once the app had ended (the last buffers' flush): at its end. */
  run->partial_at_ns = limit->reason == TRACE_BUDGET_NOT_REACHED ? run->wall_ns : limit->at_ns;
  run->kept_bytes = limit->kept_bytes;
  run->partial_counting = limit->counting && !limit->session_stopped && !limit->full_at_end;
  char kept[32];
  trace_budget_format_bytes(limit->kept_bytes, kept, sizeof kept);
  log_warn("%s %.2f s into the run: %s; the trace in %s keeps %s, what was recorded until "
           "then",
           run->partial_reason == RUN_PARTIAL_MAX_SIZE ? "the trace reached --max-size"
                                                       : "the file system of the trace filled up",
           (double)run->partial_at_ns / 1e9,
           run->partial_counting ? "from then on calls were counted with their times, not "
                                   "recorded (the tables count them all)"
                                 : "from then on calls were not recorded",
           trace_dir, kept);
}

/* -l in a job: each rank writes its own timeline (cli/job/rank_timeline.h). */
static void write_rank_timeline(const struct tracer_options *o, const char *rank_dir) {
  struct diag d;
  diag_init(&d);
  char chain[1024];
  struct window_request window = {o->window, o->skip_asked, o->skip_steps, o->from, o->to};
  if (rank_timeline_write(rank_dir, o->timeline_split,
                          window_requested(&window) ? &window : NULL, o->steps_pattern, NULL,
                          &d))
    log_error("Cannot write the rank's timeline: %s", diag_join(&d, chain, sizeof chain));
  diag_clear(&d);
}

/* --otf2, --flame in a job: each rank writes its part (cli/job/rank_exports.h). */
static void write_rank_exports(const struct tracer_options *o, const char *rank_dir) {
  struct diag d;
  diag_init(&d);
  char chain[1024];
  struct window_request window = {o->window, o->skip_asked, o->skip_steps, o->from, o->to};
  if (rank_exports_write(rank_dir, o->otf2_path != NULL, o->flame_path != NULL, o->threads,
                         window_requested(&window) ? &window : NULL, o->steps_pattern, &d))
    log_error("Cannot write the rank's part of the job's exports: %s",
              diag_join(&d, chain, sizeof chain));
  diag_clear(&d);
}

/* --sample: the sampler beside the app, recorded by its session. In a job, one per node:
 * the node's first local rank starts it (docs/sampling.md). */
static void start_sampler(const struct tracer_options *o, struct session *session,
                          const char *const *session_env, struct sampler_process *sampler) {
  if (!o->sample_ms)
    return;
  struct rank_env rank;
  rank_env_read(&rank);
  if (o->job_member && rank.present && rank.local_rank > 0) {
    log_debug("sampler: left to the node's first local rank");
    return;
  }
  char *program = find_sampler();
  char why[512];
  if (!program)
    log_warn("--sample: cannot find tracer-sampler next to the tracer: no device counters");
  else if (sampler_launch(session, program, o->sample_ms, session_env,
                          session_app_environment_removed(session), sampler, why, sizeof why))
    log_warn("--sample: %s: no device counters", why);
  else
    log_debug("sampler: %s, every %u ms, pid %ld", program, o->sample_ms, (long)sampler->pid);
  free(program);
}

/* Before anything is made for the app: that it can be started (a run that cannot start
 * it leaves no empty trace folder) and, unless a rank of a job (rank 0 checks for the
 * job, job_rank.c), that the reports' and exports' files can be written. 0, or the exit
 * status, said. */
static int check_before_run(const struct tracer_options *o) {
  char *path = NULL;
  struct launch_error lerr;
  enum launch_status ls = launch_resolve(o->app[0], &path, &lerr);
  free(path);
  if (ls != LAUNCH_OK) {
    log_error("%s", lerr.message);
    return launch_status_exit_code(ls);
  }
  if (o->job_member)
    return 0;
  struct diag d;
  diag_init(&d);
  int rc = output_paths_check(o, &d) ? TRACER_EXIT_ANALYSIS : 0;
  if (rc) {
    report_errors(&d, NULL);
    log_error("The app was not run: the files above cannot be written");
  }
  diag_clear(&d);
  return rc;
}

/* The session daemon did not answer in time (session_set_hang_handler): a thread is
 * still blocked in liblttng-ctl, so only async-signal-safe calls, then exit. */
void command_daemon_hang(const char *message) {
  static const char prefix[] = "tracer: error: ";
  ssize_t ignored = write(STDERR_FILENO, prefix, sizeof prefix - 1);
  ignored = write(STDERR_FILENO, message, strlen(message));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  _exit(TRACER_EXIT_SESSION);
}

int command_run_app(const struct tracer_options *o, int *app_status) {
  struct run_timing timing = {.begin = now_ns()};
  char **names = NULL, **libs = NULL;
  size_t n = 0;
  bool only_events = o->backends && strcmp(o->backends, "none") == 0;
  int selected = select_backends(o, &names, &libs, &n);
  if (selected != 0 || (n == 0 && !only_events)) {
    if (selected == 0 && n == 0 && names)
      log_error("No backend to trace");
    free_strings(names);
    free_strings(libs);
    return TRACER_EXIT_USAGE;
  }
  for (size_t i = 0; i < n; i++)
    log_debug("backend %s: %s", names[i], libs[i]);
  /* What would fail only after the app, or with an empty trace folder, fails now. */
  int early = check_before_run(o);
  if (early) {
    free_strings(names);
    free_strings(libs);
    return early;
  }
  char *trace_dir = o->trace_output ? strdup(o->trace_output) : default_trace_dir(o->app[0]);
  log_debug("trace folder: %s", trace_dir);
  char **patterns = event_patterns(o, names, n);
  for (size_t i = 0; patterns && patterns[i]; i++)
    log_debug("events: %s", patterns[i]);
  char *clock_plugin = trace_clock_plugin(o);
  struct session_options so = {
      .clock_plugin = clock_plugin,
      .output_dir = trace_dir,
      .event_patterns = (const char *const *)patterns,
      .blocking = o->blocking,
      /* The tracer's events carry pid and tid; other events (-e) then show none. */
      .no_id_contexts = true,
      .subbuf_size = o->subbuf_size,
      .subbuf_count = o->subbuf_count,
  };
  struct trace_budget_plan plan;
  plan_budget(o, trace_dir, &plan, &so);
  struct trace_budget *budget = NULL;
  struct session *session = NULL;
  struct session_error serr;
  int rc = 0;
  if (!o->trace_output) {
    char *home = traces_home();
    mkdir_parents(home, 0700);
    free(home);
  }
  /* What tracing costs on this machine, for the report: cached, or measured now (once per
   * machine and clock, in a session of its own). */
  struct tracing_cost cost = {0};
  char *runtime_library = find_library("runtime");
  char why[256];
  if (!calibrate_cost(clock_plugin, runtime_library, &cost, why, sizeof why))
    log_warn("cannot measure what tracing costs here: %s", why);
  free(runtime_library);
  timing.prepared = now_ns();
  if (session_begin(&so, &session, &serr) != SESSION_OK) {
    log_error("%s", serr.message);
    rc = TRACER_EXIT_SESSION;
    goto done;
  }
  if (session_daemon_trouble(session))
    log_warn("%s", session_daemon_trouble(session));
  /* The app's processes stay below the tracer when their parent ends (--wait). */
  if (descendants_adopt() != 0)
    log_warn("the processes the app leaves running when its main process ends will not be "
             "waited for: %s",
             strerror(errno));
  /* A session that records only the app's processes must be told of forked children. */
  struct fork_listener *forks = NULL;
  const char *fork_env = NULL;
  if (session_records_tracked_only(session) && !(forks = fork_listener_start(session, &fork_env)))
    log_warn("children the app forks will not be traced: %s", strerror(errno));
  const char *const *session_env = session_app_environment(session);
  size_t env_count = 0;
  while (session_env && session_env[env_count])
    env_count++;
  /* What the backends' own libraries need in the app's environment (the specs'
   * trace.environment), unless the user set it. */
  size_t backend_env_count = 0;
  for (size_t i = 0; i < n; i++) {
    const struct tracer_backend_desc *b = backends_find(names[i]);
    for (size_t k = 0; b && b->environment && b->environment[k]; k++)
      backend_env_count++;
  }
  const char **app_env = calloc(env_count + n + backend_env_count + 7, sizeof *app_env);
  for (size_t i = 0; app_env && i < env_count; i++)
    app_env[i] = session_env[i];
  if (app_env && fork_env)
    app_env[env_count++] = fork_env;
  char **collectors = collector_environment(names, libs, n);
  preload_runtime_first(libs);
  for (size_t i = 0; app_env && collectors && collectors[i]; i++)
    app_env[env_count++] = collectors[i];
  /* The watch of the trace's size, and the file the app maps to hear from it. */
  char *limit_entry = NULL;
  if (!(budget = trace_budget_start(&plan, session_output_dir(session), session_name(session))))
    log_warn("the trace's size is not watched (%s): a full disk may cost the trace",
             strerror(errno));
  else if (asprintf(&limit_entry, "TRACER_LIMIT_FILE=%s", trace_budget_limit_file(budget)) < 0)
    limit_entry = NULL;
  if (app_env && limit_entry)
    app_env[env_count++] = limit_entry;
  if (app_env && o->start_paused)
    app_env[env_count++] = "TRACER_START_PAUSED=1";
  if (app_env && o->runtime_calls)
    app_env[env_count++] = "TRACER_RUNTIME_CALLS=1";
  /* A rank's app writes what it has when the launcher kills the tracer (launch.h). */
  char end_entry[32];
  snprintf(end_entry, sizeof end_entry, "TRACER_END_SIGNAL=%d", SIGRTMAX);
  if (app_env && o->job_member)
    app_env[env_count++] = end_entry;
  for (size_t i = 0; app_env && i < n; i++) {
    const struct tracer_backend_desc *b = backends_find(names[i]);
    for (size_t k = 0; b && b->environment && b->environment[k]; k++) {
      const char *entry = b->environment[k];
      char name[128];
      snprintf(name, sizeof name, "%.*s", (int)strcspn(entry, "="), entry);
      if (!getenv(name))
        app_env[env_count++] = entry;
    }
  }
  struct launch_request req = {
      .argv = (const char *const *)o->app,
      .preload_libraries = (const char *const *)libs,
      .extra_environment = app_env ? app_env : session_env,
      .removed_environment = session_app_environment_removed(session),
      .end_signal = o->job_member ? SIGRTMAX : 0,
  };
  /* Until the app ends, the record says the end was not seen: a tracer killed with its
   * job (a batch time limit) leaves a trace that says so. */
  struct run_record unseen = {.present = true, .exit_code = -1};
  snprintf(unseen.status, sizeof unseen.status,
           "end was not seen (the tracer was stopped before it)");
  for (char **a = o->app; *a; a++) {
    size_t used = strlen(unseen.command);
    snprintf(unseen.command + used, sizeof unseen.command - used, "%s%s", a == o->app ? "" : " ",
             *a);
  }
  log_debug("session daemon: %s", session_lttng_home(session) ? session_lttng_home(session)
                                                                 : "root's, in /var/run/lttng");
  if (session_lttng_home(session))
    snprintf(unseen.daemon_home, sizeof unseen.daemon_home, "%s", session_lttng_home(session));
  gethostname(unseen.daemon_host, sizeof unseen.daemon_host - 1);
  unseen.tracer_pid = (long)getpid();
  run_record_write(trace_dir, &unseen);
  struct sampler_process sampler = {0};
  start_sampler(o, session, session_env, &sampler);
  struct launch_process *app = NULL;
  struct launch_error lerr;
  struct timespec app_start, app_end;
  timing.session_ready = now_ns();
  clock_gettime(CLOCK_MONOTONIC, &app_start);
  enum launch_status ls = launch_start(&req, &app, &lerr);
  if (ls == LAUNCH_OK && log_enabled(LOG_DEBUG)) {
    log_debug("app: %s, LD_PRELOAD=%s", launch_command_path(app), launch_preload_value(app));
    for (size_t i = 0; req.extra_environment && req.extra_environment[i]; i++)
      log_debug("app environment: %s", req.extra_environment[i]);
  }
  if (ls == LAUNCH_OK) { /* a killed tracer's app may still write (tracer -r waits for it) */
    unseen.app_pid = (long)launch_pid(app);
    run_record_write(trace_dir, &unseen);
  }
  if (ls == LAUNCH_OK && session_track_process(session, launch_pid(app), &serr) != SESSION_OK) {
    log_error("%s", serr.message);
    launch_free(app);
    app = NULL;
    ls = LAUNCH_ERR_SYSTEM;
    snprintf(lerr.message, sizeof lerr.message, "Cannot trace the app: session refused it");
  }
  if (ls == LAUNCH_OK)
    ls = launch_release(app, &lerr);
  timing.launched = now_ns();
  int status = 0;
  if (ls == LAUNCH_OK)
    ls = launch_wait(app, &status, &lerr);
  struct timespec ended_at;
  clock_gettime(CLOCK_REALTIME, &ended_at);
  /* A rank whose app failed: the launcher is ending the job, and this rank's tracer must
   * end as its app did, at once (docs/multi-rank.md). */
  bool job_ending =
      o->job_member && ls == LAUNCH_OK && !(WIFEXITED(status) && !WEXITSTATUS(status));
  long processes_left =
      ls == LAUNCH_OK ? command_wait_app_processes(o, sampler.pid, job_ending) : 0;
  clock_gettime(CLOCK_MONOTONIC, &app_end);
  timing.app_ended = now_ns();
  if (sampler.pid && sampler_stop(&sampler))
    log_warn("the sampler did not end cleanly: its last readings may be missing");
  fork_listener_stop(forks);
  free(app_env);
  free_strings(collectors);
  free(limit_entry);
  struct trace_budget_result limit;
  trace_budget_finish(budget, &limit);
  struct session_end_report report = {0};
  bool end_failed = session_end(session, &report, &serr) != SESSION_OK;
  trace_budget_measure_end(trace_dir, &limit);
  /* Writes that failed for want of space leave a packet cut short at a stream's end. */
  if (limit.disk_full && trace_budget_trim_packets(trace_dir))
    log_debug("streams cut after their last whole packet (the file system was full)");
  /* A full file system makes LTTng fail to destroy the session ("Rotation failure on
   * consumer") after the data was written: that is no error when the trace is readable. */
  if (end_failed && !report.daemon_lost && (limit.disk_full || limit.reason) &&
      session_trace_content(trace_dir) != SESSION_TRACE_NO_METADATA)
    log_warn("%s (the file system was full; the trace written is readable)", serr.message);
  else if (end_failed)
    log_error("%s", serr.message);
  timing.session_ended = now_ns();
  nftw(trace_dir, drop_group_write, 16, FTW_PHYS);
  if (ls != LAUNCH_OK) {
    log_error("%s", lerr.message);
    rc = launch_status_exit_code(ls);
    launch_free(app);
    /* The app never ran (exec refused it): the folder holds only what this run put
     * there, no trace. */
    if (session_output_created(session) &&
        session_trace_content(trace_dir) == SESSION_TRACE_NO_METADATA &&
        nftw(trace_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0)
      log_debug("removed %s: the app never ran", trace_dir);
    goto done;
  }
  rc = launch_exit_code(status);
  if (app_status)
    *app_status = status;
  struct run_record run = {.present = true,
                           .exit_code = rc,
                           .ended_at_ns =
                               (uint64_t)ended_at.tv_sec * 1000000000u + (uint64_t)ended_at.tv_nsec,
                           .processes_left = processes_left,
                           .runtime_calls = o->runtime_calls,
                           .discarded_events = report.discarded_events,
                           .lost_packets = report.lost_packets,
                           .wall_ns = (uint64_t)(app_end.tv_sec - app_start.tv_sec) * 1000000000u +
                                      (uint64_t)app_end.tv_nsec - (uint64_t)app_start.tv_nsec,
                           .event_ps = cost.event_ps,
                           .byte_ps = cost.byte_ps,
                           .call_ps = cost.call_ps};
  launch_describe_status(status, run.status, sizeof run.status);
  run.clock_read_least = limit.clock_read_least;
  report_budget(&limit, trace_dir, &run);
  if (o->job_member) { /* the job's size, for the ranks of its messages (job_result.h) */
    struct rank_env job;
    rank_env_read(&job);
    run.job_ranks = job.size > 0 ? job.size : 0;
  }
  run.clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  for (char **a = o->app; *a; a++) {
    size_t used = strlen(run.command);
    snprintf(run.command + used, sizeof run.command - used, "%s%s", a == o->app ? "" : " ", *a);
  }
  if (o->job_member && o->timeline && !job_ending) /* before the record that tells rank 0 */
    write_rank_timeline(o, trace_dir);
  if (o->job_member && (o->otf2_path || o->flame_path) && !job_ending)
    write_rank_exports(o, trace_dir);
  if (run_record_write(trace_dir, &run))
    log_warn("cannot write %s/%s: %s", trace_dir, RUN_RECORD_FILE, strerror(errno));
  if (!run.clean)
    log_info("the app %s%s", strncmp(run.status, "killed", 6) == 0 ? "was " : "", run.status);
  launch_free(app);
  if (report.lost_packets)
    log_warn("%llu packets were lost by the consumer", (unsigned long long)report.lost_packets);
  /* "trace saved" only of a trace that can be read: metadata, and events unless the app
   * made no traced call. */
  enum session_trace_content content = session_trace_content(trace_dir);
  if (content == SESSION_TRACE_NO_METADATA) {
    if (report.daemon_lost)
      log_error("No trace was saved in %s: the session daemon ended before writing the trace's "
                "metadata, and every event of the app is lost", trace_dir);
    else if (limit.disk_full)
      log_error("No trace was saved in %s: its file system was full before the trace's "
                "metadata could be written (free some space, or give --trace-output on "
                "another file system)", trace_dir);
    else
      log_error("No trace was saved in %s: the app never registered with the session daemon "
                "(LTTng-UST was not loaded in it: a static or setuid program?)", trace_dir);
    if (rc == 0)
      rc = report.daemon_lost ? TRACER_EXIT_SESSION : TRACER_EXIT_ANALYSIS;
    goto done;
  }
  if (o->job_member) /* rank 0 reports for the whole job */
    goto done;
  mark_latest(trace_dir);
  if (report.daemon_lost)
    log_error("Only part of the trace was saved in %s: what the session daemon wrote before it "
              "ended; the tables below count that part", trace_dir);
  else if (content == SESSION_TRACE_NO_EVENTS)
    log_info("trace saved in %s: it holds no event (the app made no traced call)", trace_dir);
  else
    log_info("trace saved in %s", trace_dir);
  timing.recorded = now_ns();
  int arc = analyse_trace(o, trace_dir);
  timing.analysed = now_ns();
  if (report.daemon_lost && rc == 0)
    rc = TRACER_EXIT_SESSION;
  if (arc && rc == 0)
    rc = arc;
done:
  if (session) {
    log_timing(&timing, session_timing(session));
    session_free(session);
  }
  free_strings(patterns);
  free_strings(names);
  free_strings(libs);
  free(trace_dir);
  free(clock_plugin);
  return rc;
}
