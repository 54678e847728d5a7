/* commands: what `tracer` does, one file per command, and what they share. tracer_main.c
 * parses the options into a struct tracer_options and calls one command:
 *
 *   run_app.c     tracer [options] APP: record the app's calls, then analyse the trace
 *   replay.c      tracer -r [DIR]: analyse a saved trace again
 *   job_rank.c    mpirun -n N tracer APP: one rank of an MPI job; rank 0 reports for all
 *   self_check.c  tracer --check: would a trace work here
 *   diff.c        tracer diff A B: two runs compared
 *   analyse.c     the analysis of a trace, for the three first (cli/analysis/analysis.h)
 *   trace_paths.c where traces go and where the tracer's libraries are
 *   calibrate.c   what recording costs on this machine, for the report
 *   option_values.c, output_paths.c  the options' values, and their files before a run
 *
 * Commands are the only code that prints messages: through common/log.h, at levels
 * error, warn, info and debug (-q: errors only; -v: debug), each library's causes
 * (common/diag.h) joined on one line. They return an exit status.
 */
#ifndef TRACER_COMMANDS_H
#define TRACER_COMMANDS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "diag.h"
#include "rank_env.h"

/* The exit statuses of the tracer itself, documented in --help; when it runs an app, it
 * exits with the app's own (128+N when a signal N killed it, 127 when it cannot be
 * found); --check exits 0 when a trace would work, else 1. */
enum tracer_exit {
  TRACER_EXIT_OK = 0,
  TRACER_EXIT_USAGE = 2,    /* bad command line */
  TRACER_EXIT_SESSION = 3,  /* no LTTng session, or its daemon was lost or silent */
  TRACER_EXIT_ANALYSIS = 4, /* the trace could not be read, or a report or export failed */
  TRACER_EXIT_INCOMPLETE = 5, /* the trace was read, but packets its index or sequence
                                 numbers say it had are missing (and were not lost while
                                 recording, which the run record would say) */
};

enum tracer_mode { MODE_MINIMAL, MODE_DEFAULT, MODE_FULL };

/* Until when the run lasts (--wait): every process of the app has ended (its forked
 * workers and daemonized helpers too, as Nsight Systems' --wait all), or its main one. */
enum tracer_wait { WAIT_ALL, WAIT_PRIMARY };

struct tracer_options {
  bool text, json, replay, blocking;
  bool monotonic_clock; /* --clock monotonic */
  bool check;           /* --check or `tracer doctor` */
  bool start_paused;    /* --start-paused */
  bool no_stacks;       /* --no-stacks: lttng_ust_tracer:stack is not enabled */
  unsigned sample_ms;   /* --sample[=MS]: the sampler's period; 0: no sampling */
  bool runtime_calls;   /* --runtime-calls */
  enum tracer_wait wait; /* --wait */
  enum tracer_mode mode;
  const char *output;       /* -o */
  const char *trace_output; /* --trace-output */
  const char *replay_dir;
  const char *backends;     /* -b */
  const char *events;       /* --events: more event patterns */
  bool extended;            /* -e: the tally per hostname, process and thread too */
  bool full_names;          /* --full-names: kernel names whole in the text tables */
  bool ranks;               /* --ranks: an MPI job's per-rank times, with stragglers */
  unsigned ranks_pct;       /* --ranks=PCT: a straggler's excess over the median */
  unsigned threads;
  uint64_t subbuf_size, subbuf_count; /* 0: the session's defaults */
  uint64_t max_size;        /* --max-size; 0: the free space less a margin */
  bool timeline;            /* -l */
  const char *timeline_path; /* -l FILE; NULL: timeline.pftrace in the trace folder */
  bool timeline_json;       /* --timeline-format json */
  uint64_t timeline_split;  /* --timeline-split; 0: the writer's default */
  const char *csv_path;     /* --csv FILE */
  const char *otf2_path;    /* --otf2 DIR: the trace as an OTF2 archive */
  const char *flame_path;   /* --flame FILE: folded stacks (and FILE's host twin) */
  const char *window;       /* --window NAME|PATTERN */
  bool skip_asked;          /* --skip-steps N */
  unsigned skip_steps;
  const char *from, *to;    /* --from, --to: seconds or region names */
  bool steps;               /* --steps[=PATTERN] */
  const char *steps_pattern;
  char **app;               /* argv of the app */
  const char *traced_ranks; /* --traced-ranks: the ranks of an MPI job to trace */
  bool job_member;          /* one rank of a job: rank 0 reports for all */
};

/* The commands; each returns the exit status. command_run_app and command_job_rank also
 * give the app's wait status (waitpid's) in *app_status, -1 when no app ended. */
int command_run_app(const struct tracer_options *o, int *app_status);
int command_replay(const struct tracer_options *o);
int command_job_rank(const struct tracer_options *o, const struct rank_env *rank, int *app_status);
/* After the app's main process ended: waits for the processes of the app still running
 * but `except` (--wait all), or counts them (--wait primary, or job_ending: a rank whose
 * app failed, whose job the launcher is ending). Says what it did; returns how many
 * processes were left running. */
long command_wait_app_processes(const struct tracer_options *o, pid_t except, bool job_ending);
/* The tracer ends as the app did: killed by the same signal when a signal killed it (no
 * core file of the tracer's own), else it exits with exit_code. */
__attribute__((noreturn)) void command_end_as_app(int app_status, int exit_code);
int command_self_check(const struct tracer_options *o, const char *version);
/* tracer diff A B: two saved traces or jobs compared (diff.c). */
int command_diff(const struct tracer_options *o, const char *a, const char *b);

/* The session daemon stopped answering (session_set_hang_handler): says so and exits
 * TRACER_EXIT_SESSION, with async-signal-safe calls only. */
void command_daemon_hang(const char *message);

/* analyse.c: the reports and exports of the trace (or job folder) in trace_dir, as the
 * options ask; 0 or an exit status. */
int analyse_trace(const struct tracer_options *o, const char *trace_dir);
/* An MPI job's report from its per-node results (docs/multi-rank.md): the ranks expected
 * (NULL: those whose folders the job has), waited for at most timeout_s. */
int analyse_job(const struct tracer_options *o, const char *job_dir, const long *ranks,
                size_t n, unsigned timeout_s);
/* An MPI job's OTF2 archive and folded stacks (--otf2, --flame) from its ranks' parts
 * (cli/job/rank_exports.h), which are written first unless parts_written; size: the
 * job's ranks (0: its folders'). 0 or an exit status. */
int export_job(const struct tracer_options *o, const char *job_dir, long size,
               bool parts_written);
/* output_paths.c: before an app runs, whether the files that -o, --csv, -l FILE, --flame
 * and --otf2 name can be written, making none, and --otf2's libotf2 loads: 0, or -1 with
 * a cause per problem in d. */
int output_paths_check(const struct tracer_options *o, struct diag *d);
/* Each cause of d as an error line, prefixed (when not NULL) and joined as a chain. */
void report_errors(const struct diag *d, const char *prefix);

/* trace_runs.c: the runs under a folder given to `tracer -r`, each once whatever links
 * lead to it twice: a run's own folder (the tracer's trace, an LTTng session's output, a
 * bare CTF trace) or an MPI job's; newest first. 0 (none found when dir is no folder or
 * a job's: the analysis reads it or says why), or -1 with a cause in d (no trace below
 * it, the search stopped at its bound). */
struct trace_run {
  char path[PATH_MAX];  /* its real path */
  char name[256];       /* as under dir (its real path when a link leads out of dir) */
  time_t when;          /* its run record's time (when its run ended), else the folder's */
  char app[64];         /* the app's name (its run record's command), or "job, N ranks" */
  uint64_t bytes;
  bool job;
};
int trace_runs_find(const char *dir, struct trace_run **runs, size_t *count, struct diag *d);

/* trace_paths.c */
char *traces_home(void);                       /* ~/tracer-traces; owned by the caller */
char *default_trace_dir(const char *app);      /* ~/tracer-traces/APP-DATE-PID */
void mark_latest(const char *trace_dir);       /* ~/tracer-traces/latest -> trace_dir */
int mkdir_parents(const char *path, unsigned mode);
/* The tracer's library libtracer_NAME.so (a backend's interposer, "runtime", "clock"):
 * beside the tracer's own executable, or a backend's on TRACER_BACKEND_PATH; NULL when
 * none can be read. Owned by the caller. */
char *find_library(const char *name);
/* The tracer-sampler program next to the tracer (--sample), or NULL. Owned. */
char *find_sampler(void);
/* The clock plugin a daemon this job starts gets (NULL: LTTng's own clock). */
char *trace_clock_plugin(const struct tracer_options *o);

#endif
