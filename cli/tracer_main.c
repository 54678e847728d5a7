/* tracer: runs an application under an LTTng session with the backends' interposers
 * preloaded, then analyses the trace: tallies (default), JSON (-j) or every call (-t).
 * `tracer -r DIR` analyses a saved trace again. */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app_libraries.h"
#include "backends.h"
#include "check.h"
#include "diag.h"
#include "fork_listener.h"
#include "gaps.h"
#include "daemon_orphans.h"
#include "job_folder.h"
#include "job_report.h"
#include "node_gather.h"
#include "launch.h"
#include "rank_env.h"
#include "rank_timeline.h"
#include "run_record.h"
#include "calibrate.h"
#include "tracing_cost.h"
#include "session.h"

#include <lttng/lttng.h>
#include "tally.h"
#include "tally_print.h"
#include "chrome_json.h"
#include "perfetto.h"
#include "timeline.h"
#include "timeline_sink.h"
#include "timeline_build.h"
#include "trace_reader.h"
#include "trace_text.h"

#ifndef TRACER_VERSION
#define TRACER_VERSION "0.1.0"
#endif
#ifndef TRACER_LIB_SUBDIR
#define TRACER_LIB_SUBDIR "lib/tracer"
#endif

/* Exit codes of the tracer itself; when it runs an app, it exits with the app's code. */
enum tracer_exit {
  TRACER_EXIT_USAGE = 2,    /* bad command line */
  TRACER_EXIT_SESSION = 3,  /* no LTTng session, or its daemon was lost or silent */
  TRACER_EXIT_ANALYSIS = 4, /* the trace could not be read */
};

enum mode { MODE_MINIMAL, MODE_DEFAULT, MODE_FULL };

struct options {
  bool text, json, replay, blocking, quiet;
  bool monotonic_clock; /* --clock monotonic */
  bool check;           /* --check or `tracer doctor` */
  bool start_paused;    /* --start-paused */
  enum mode mode;
  const char *output;       /* -o */
  const char *trace_output; /* --trace-output */
  const char *replay_dir;
  const char *backends;     /* -b */
  const char *events;       /* --events: more event patterns */
  bool extended;            /* -e: the tally per hostname, process and thread too */
  bool ranks;               /* --ranks: an MPI job's per-rank times, with stragglers */
  unsigned ranks_pct;       /* --ranks=PCT: a straggler's excess over the median */
  unsigned threads;
  uint64_t subbuf_size, subbuf_count; /* 0: the session's defaults */
  bool timeline;            /* -l */
  const char *timeline_path; /* -l FILE; NULL: timeline.pftrace in the trace folder */
  bool timeline_json;       /* --timeline-format json */
  uint64_t timeline_split;  /* --timeline-split; 0: the writer's default */
  char **app;               /* argv of the app */
  const char *traced_ranks; /* --traced-ranks: the ranks of an MPI job to trace */
  bool job_member;          /* one rank of a job: rank 0 reports for all */
};

static const char usage[] =
    "Usage: tracer [options] [--] APP [ARGS...]\n"
    "  or:  tracer -r [DIR] [options]\n"
    "  or:  tracer --check\n"
    "\n"
    "Runs APP with the API calls of every supported backend traced through LTTng, then\n"
    "prints per backend where the time went: host API calls, device kernels and memory\n"
    "transfers (bytes and bandwidth). APP's input and output are left alone and its exit\n"
    "status is returned. The trace is kept for `tracer -r`.\n"
    "\n"
    "Options:\n"
    "  -t, --trace            print every call with decoded arguments instead of tallies\n"
    "  -j, --json             print the tallies as JSON\n"
    "  -e, --extended         also break the tallies down per hostname, process and\n"
    "                         thread (in an MPI job, per rank too): one table per thread\n"
    "      --ranks[=PCT]      in an MPI job's report, per call the least, median and\n"
    "                         most time of a rank and the straggler ranks, whose time is\n"
    "                         over the median by more than PCT%% (default 25)\n"
    "  -o, --output FILE      write the analysis to FILE instead of standard output\n"
    "  -m, --mode MODE        what each call's event records: minimal (names, times,\n"
    "                         status; written 32 calls an event, and a SIGKILL loses a\n"
    "                         thread's last 31 at most), default (scalar arguments and\n"
    "                         out values too) or full (arrays, strings and structs too)\n"
    "  -b, --backends LIST    trace only these backends, comma-separated (default: all;\n"
    "                         built here: %s); `none` records only --events\n"
    "      --events LIST      also record these LTTng-UST events (comma-separated name\n"
    "                         patterns, e.g. your own provider's myapp:*)\n"
    "      --trace-output DIR\n"
    "                         write the trace to DIR (default: ~/tracer-traces/APP-DATE-PID)\n"
    "  -r, --replay [DIR]     analyse the trace in DIR (default: the latest) instead of\n"
    "                         running an app; any output option applies\n"
    "      --every-call       an event for every call, also of the functions a spec\n"
    "                         counts (getters such as cudaGetDevice, called hundreds of\n"
    "                         times a step), which otherwise are counted and timed per\n"
    "                         thread, in the tallies but not in -t or the timeline\n"
    "      --blocking         when the buffers are full, the app waits for the tracer\n"
    "                         instead of events being discarded (default: discard, and\n"
    "                         report how many). LTTng 2.13 may still drop events when\n"
    "                         several threads fill a buffer at once; any loss is reported\n"
    "      --clock CLOCK      the trace clock: tsc (default: the CPU's time-stamp counter,\n"
    "                         cheaper to read, where the kernel keeps time with it; else\n"
    "                         monotonic) or monotonic (CLOCK_MONOTONIC). Only a session\n"
    "                         daemon private to the job can take the TSC: as root, or\n"
    "                         with a daemon already running, its clock is kept\n"
    "      --buffer-size SIZE\n"
    "                         size of each ring sub-buffer per CPU, a power of 2 with an\n"
    "                         optional k, M or G suffix (default: 2M)\n"
    "      --buffer-count N   sub-buffers per CPU, a power of 2 (default: as many as fit\n"
    "                         in 128 MiB over all CPUs, from 4 to 16; here %llu)\n"
    "      --start-paused     record nothing until the app resumes the recording (an\n"
    "                         API's own call for it: a spec's trace.resume)\n"
    "      --threads N        threads for the analysis (default: one per core)\n"
    "  -l, --timeline [FILE] also write a timeline for ui.perfetto.dev (Perfetto protobuf;\n"
    "                         default: timeline.pftrace in the trace folder). Before an\n"
    "                         app, FILE is taken only when it ends in .pftrace\n"
    "      --timeline-format FORMAT  pftrace (default) or json: Chrome trace-event JSON\n"
    "                         as well (FILE with .json)\n"
    "      --timeline-split SIZE  start a new timeline file (FILE.part2.pftrace, ...)\n"
    "                         before one passes SIZE (k, M or G suffix; default 2G),\n"
    "                         with a summary of the whole run in FILE.summary.pftrace\n"
    "      --traced-ranks LIST\n"
    "                         in an MPI job (mpirun -n N tracer APP), trace only these\n"
    "                         ranks (e.g. 0,4-7); the others run APP untraced. Each rank\n"
    "                         writes DIR/rank-N and its result; each node merges its\n"
    "                         ranks' results; rank 0 waits for the nodes' (at most\n"
    "                         TRACER_JOB_TIMEOUT seconds, default 120) and prints one\n"
    "                         report for the job. Under Hydra (mpiexec.mpich) over\n"
    "                         several nodes, give --trace-output: it has no job id\n"
    "  -q, --quiet            no messages from the tracer on standard error\n"
    "      --check            run no app: say whether a trace would work here (LTTng,\n"
    "                         session daemon, trace clock, backends and the libraries\n"
    "                         they would trace, MPI launcher, free space); exit 0 when\n"
    "                         it would. `tracer doctor` is the same (`tracer -- doctor`\n"
    "                         runs an app named doctor)\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: APP's own (128+N when a signal N killed it; 127 when it cannot be\n"
    "found), or 2 for a bad command line, 3 when no LTTng session could be set up or its\n"
    "session daemon died or stopped answering, 4 when a trace cannot be read; with --check,\n"
    "0 when a trace would work, else 1. The output is described in analysis-output.md, the\n"
    "daemon in session-daemon.md (docs/ in the sources, share/doc/tracer once installed).\n";

static void print_usage(FILE *out) {
  char list[512] = "";
  for (size_t i = 0; tracer_backends[i]; i++) {
    strncat(list, i ? "," : "", sizeof list - strlen(list) - 1);
    strncat(list, tracer_backends[i]->name, sizeof list - strlen(list) - 1);
  }
  fprintf(out, usage, list[0] ? list : "none",
          (unsigned long long)session_default_subbuf_count(SESSION_DEFAULT_SUBBUF_SIZE));
}

static void say(const struct options *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct options *o, const char *fmt, ...) {
  if (o->quiet)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("tracer: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tracer: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* The folder of the tracer's own executable, so an installed or built tracer finds its
 * libraries wherever it is run from. */
static char *exe_dir(void) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0)
    return strdup(".");
  path[n] = '\0';
  char *slash = strrchr(path, '/');
  if (slash)
    *slash = '\0';
  return strdup(path);
}

static char *find_library(const char *backend) {
  const char *path_dir = backends_path_dir(backend); /* a backend of TRACER_BACKEND_PATH */
  if (path_dir) {
    char path[PATH_MAX], resolved[PATH_MAX];
    snprintf(path, sizeof path, "%s/libtracer_%s.so", path_dir, backend);
    return access(path, R_OK) == 0 && realpath(path, resolved) ? strdup(resolved) : NULL;
  }
  char *dir = exe_dir();
  const char *subdirs[] = {"../" TRACER_LIB_SUBDIR, "../lib"};
  char *found = NULL;
  for (size_t i = 0; i < 2 && !found && dir; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/libtracer_%s.so", dir, subdirs[i], backend);
    char resolved[PATH_MAX];
    if (access(path, R_OK) == 0 && realpath(path, resolved))
      found = strdup(resolved);
  }
  free(dir);
  return found;
}

static int mkdir_parents(const char *path, mode_t mode) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(buf, mode) != 0 && errno != EEXIST)
      return -1;
    *p = '/';
  }
  return mkdir(buf, mode) != 0 && errno != EEXIST ? -1 : 0;
}

static char *traces_home(void) {
  const char *home = getenv("HOME");
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/tracer-traces", home && *home ? home : ".");
  return strdup(path);
}

static char *default_trace_dir(const char *app) {
  char *home = traces_home();
  const char *base = strrchr(app, '/') ? strrchr(app, '/') + 1 : app;
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  char stamp[32];
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s-%s-%ld", home, base, stamp, (long)getpid());
  free(home);
  return strdup(path);
}

/* ~/tracer-traces/latest points at the newest trace, for `tracer -r`. */
static void mark_latest(const char *trace_dir) {
  char *home = traces_home();
  char link[PATH_MAX], tmp[PATH_MAX];
  snprintf(link, sizeof link, "%s/latest", home);
  snprintf(tmp, sizeof tmp, "%s/.latest.%ld", home, (long)getpid());
  if (mkdir_parents(home, 0700) == 0 && symlink(trace_dir, tmp) == 0 && rename(tmp, link) != 0)
    unlink(tmp);
  free(home);
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* -l: the timeline of the trace, written beside it or to FILE. */
static int write_timeline(const struct options *o, const char *trace_dir,
                          struct trace_reader *reader, const struct run_record *run) {
  char path[PATH_MAX], json[PATH_MAX + 8], app[256] = "";
  if (o->timeline_path)
    snprintf(path, sizeof path, "%s", o->timeline_path);
  else
    snprintf(path, sizeof path, "%s/timeline.pftrace", trace_dir);
  size_t stem = has_suffix(path, ".pftrace") ? strlen(path) - 8 : strlen(path);
  snprintf(json, sizeof json, "%.*s.json", (int)stem, path);
  if (run->present && run->command[0]) {
    const char *end = strchr(run->command, ' ');
    size_t len = end ? (size_t)(end - run->command) : strlen(run->command);
    const char *slash = memrchr(run->command, '/', len);
    const char *name = slash ? slash + 1 : run->command;
    snprintf(app, sizeof app, "%.*s", (int)(run->command + len - name), name);
  }
  struct perfetto_options options = {.path = path, .split_bytes = o->timeline_split};
  struct timeline *tl = NULL;
  char message[512] = "";
  struct diag d;
  diag_init(&d);
  struct timeline_sink sinks[2];
  int rc = perfetto_sink_open(&options, &sinks[0], &d);
  if (rc == 0 && o->timeline_json && chrome_json_sink_open(json, &sinks[1], &d)) {
    sinks[0].ops->close(sinks[0].state, NULL, NULL, 0);
    rc = -1;
  }
  if (rc == 0)
    rc = timeline_open(sinks, o->timeline_json ? 2 : 1, &tl);
  if (rc == 0) {
    struct timeline_build_options build = {.app_name = app[0] ? app : NULL,
                                           .threads = o->threads};
    rc = timeline_build(reader, tl, &build, &d);
  }
  struct timeline_stats stats;
  if (timeline_close(tl, &stats, message, sizeof message))
    rc = -1;
  if (rc) {
    char chain[1024];
    error("Cannot write the timeline: %s", d.count ? diag_join(&d, chain, sizeof chain) : message);
    diag_clear(&d);
    return TRACER_EXIT_ANALYSIS;
  }
  diag_clear(&d);
  say(o, "timeline: %s (%llu slices, %llu flows, %llu counter values, %.1f MiB)%s%s", path,
      (unsigned long long)stats.slices, (unsigned long long)stats.flows,
      (unsigned long long)stats.counter_values, (double)stats.bytes / (1 << 20),
      stats.parts > 1 ? "; split into parts and a summary: " : "",
      stats.parts > 1 ? "see --timeline-split" : "");
  if (stats.parts > 1)
    say(o, "timeline: %u parts (%.*s.partN.pftrace) and %.*s.summary.pftrace", stats.parts,
        (int)stem, path, (int)stem, path);
  if (o->timeline_json)
    say(o, "timeline: %s (Chrome trace-event JSON)", json);
  return 0;
}

static bool tally_has_device_work(const struct tally *tally) {
  for (size_t i = 0; i < tally->backend_count; i++)
    if (tally->backends[i].device_count)
      return true;
  return false;
}

/* -l in a job: each rank writes its own timeline (cli/analysis/rank_timeline.h). */
static void write_rank_timeline(const struct options *o, const char *rank_dir) {
  struct diag d;
  diag_init(&d);
  char chain[1024];
  if (rank_timeline_write(rank_dir, o->timeline_split, NULL, &d))
    error("Cannot write the rank's timeline: %s", diag_join(&d, chain, sizeof chain));
  diag_clear(&d);
}

/* Rank 0: the job's timeline, the ranks' own joined; 0 or an exit status. */
static int join_rank_timelines(const struct options *o, const char *job_dir) {
  char path[PATH_MAX], chain[1024];
  snprintf(path, sizeof path, "%s", o->timeline_path ? o->timeline_path : "");
  if (!o->timeline_path)
    snprintf(path, sizeof path, "%s/timeline.pftrace", job_dir);
  unsigned ranks;
  uint64_t bytes;
  struct diag d;
  diag_init(&d);
  if (rank_timeline_join(job_dir, path, &ranks, &bytes, &d)) {
    error("Cannot write the timeline: %s", diag_join(&d, chain, sizeof chain));
    diag_clear(&d);
    return TRACER_EXIT_ANALYSIS;
  }
  say(o, "timeline: %s (%u ranks, %.1f MiB)", path, ranks, (double)bytes / (1 << 20));
  return 0;
}

/* After the tables: device use, copy/compute overlap and idle gaps (cli/analysis/gaps.c). */
static int print_gaps(struct trace_reader *reader, FILE *out) {
  struct gap_report report;
  struct gaps *gaps;
  struct trace_consumer consumer;
  struct diag d;
  diag_init(&d);
  char chain[1024];
  int rc = gaps_open(&gaps, &consumer, &d);
  if (rc == 0) {
    const struct trace_consumer *consumers[] = {&consumer};
    rc = trace_read(reader, consumers, 1, NULL, &d) == TRACE_READ_OK ? 0 : -1;
    if (gaps_close(gaps, &report, &d))
      rc = -1;
    gaps_print_text(&report, out);
    gaps_free(&report);
  }
  if (rc)
    error("Part of the trace could not be read for the gaps: %s", diag_join(&d, chain, sizeof chain));
  diag_clear(&d);
  return rc;
}

static void draw_progress(void *context, uint64_t done, uint64_t total, bool finished) {
  (void)context;
  double pct = total ? 100.0 * (double)done / (double)total : 100.0;
  fprintf(stderr, "\rtracer: analysing the trace: %5.1f%%%s", pct > 100 ? 100 : pct,
          finished ? "\n" : "");
  fflush(stderr);
}

/* An MPI job's report from its per-node results (docs/multi-rank.md): the ranks
 * expected (NULL: those whose folders the job has), waited for at most timeout_s. */
static int analyse_job(const struct options *o, const char *job_dir, const long *ranks,
                       size_t n, unsigned timeout_s) {
  FILE *out = stdout;
  if (o->output && !(out = fopen(o->output, "w"))) {
    error("Cannot write the analysis: file=%s: %s", o->output, strerror(errno));
    return TRACER_EXIT_ANALYSIS;
  }
  struct job_report_request req = {job_dir, ranks, n, timeout_s, o->threads, o->json,
                                   o->extended, o->ranks, o->ranks_pct};
  struct node_gather_report got;
  int rc = job_report_print(&req, out, &got) ? TRACER_EXIT_ANALYSIS : 0;
  if (got.from_events)
    say(o, "ranks without a result%s, counted from their events: %s",
        ranks ? " in time" : "", got.late);
  if (got.missing_count)
    say(o, "ranks with neither a result nor a trace: %s", got.missing);
  if (rc)
    error("Cannot report on the job in %s: no rank's result or trace could be read", job_dir);
  if (out != stdout && fclose(out) != 0) {
    error("Cannot write the analysis: file=%s: %s", o->output, strerror(errno));
    rc = TRACER_EXIT_ANALYSIS;
  }
  fflush(stdout);
  return rc;
}

static int analyse(const struct options *o, const char *trace_dir) {
  struct run_record run;
  run_record_read(trace_dir, &run);
  bool killed = (run.present && run.exit_code < 0) || job_folder_has_unfinished(trace_dir);
  if (o->replay && killed) {
    /* The tracer of this run (or of a rank) was killed: its session may still hold the
     * last events, in root's daemon or in the daemon private to its run. */
    struct run_record *orphans;
    size_t n = job_folder_orphans(trace_dir, &orphans);
    for (size_t i = 0; i < n; i++)
      daemon_orphan_flush(orphans[i].daemon_home, (pid_t)orphans[i].tracer_pid);
    free(orphans);
    if (lttng_session_daemon_alive() == 1)
      session_reap_stale();
  }
  if (!o->text && !o->timeline && job_folder_is_job(trace_dir))
    return analyse_job(o, trace_dir, NULL, 0, 0);
  if (o->ranks) {
    error("--ranks reads an MPI job's folder: %s is the trace of one run", trace_dir);
    return TRACER_EXIT_USAGE;
  }
  struct trace_reader *reader;
  struct diag d;
  diag_init(&d);
  char chain[1024];
  if (trace_reader_open(trace_dir, &reader, &d)) {
    error("Cannot read the trace: %s", diag_join(&d, chain, sizeof chain));
    diag_clear(&d);
    return TRACER_EXIT_ANALYSIS;
  }
  FILE *out = stdout;
  if (o->output && !(out = fopen(o->output, "w"))) {
    error("Cannot write the analysis: file=%s: %s", o->output, strerror(errno));
    trace_reader_close(reader);
    return TRACER_EXIT_ANALYSIS;
  }
  int rc = 0;
  if (o->text) {
    struct trace_text *text;
    struct trace_consumer consumer;
    if (trace_text_open(trace_reader_map(reader), out, &text, &consumer, &d) == 0) {
      const struct trace_consumer *consumers[] = {&consumer};
      if (trace_read(reader, consumers, 1, NULL, &d) != TRACE_READ_OK) {
        error("Part of the trace could not be read; the rest was printed: %s",
              diag_join(&d, chain, sizeof chain));
        rc = TRACER_EXIT_ANALYSIS;
      }
      trace_text_close(text);
    } else {
      error("%s", diag_join(&d, chain, sizeof chain));
      rc = TRACER_EXIT_ANALYSIS;
    }
  } else {
    struct tally tally;
    bool progress = !o->quiet && isatty(STDERR_FILENO);
    struct trace_read_options options = {.threads = o->threads,
                                         .progress = progress ? draw_progress : NULL};
    if (tally_trace(reader, &options, o->extended, &tally, &d)) {
      error("%s", tally.error ? tally.error : "Cannot analyse the trace");
      rc = TRACER_EXIT_ANALYSIS;
    } else {
      /* The packets' counts say which stream lost what; the session's count (already
       * cleared of lttng-tools' 2^63 artefact) can be larger when the last losses of a
       * stream came after its last packet: the difference is reported unattributed. */
      if (run.discarded_events > tally.discarded)
        tally.discarded = run.discarded_events;
      if (o->json)
        tally_print_json(&tally, trace_dir, &run, o->extended, out);
      else
        tally_print_text(&tally, &run, o->extended, out);
      if (!o->json && tally_has_device_work(&tally) && print_gaps(reader, out))
        rc = TRACER_EXIT_ANALYSIS;
      if (tally.error) {
        error("Part of the trace could not be read; the tables count what could: %s",
              tally.error);
        rc = TRACER_EXIT_ANALYSIS;
      }
    }
    tally_free(&tally);
  }
  diag_clear(&d);
  if (o->timeline) {
    int timeline_rc = write_timeline(o, trace_dir, reader, &run);
    if (timeline_rc)
      rc = timeline_rc;
  }
  if (out != stdout && fclose(out) != 0) {
    error("Cannot write the analysis: file=%s: %s", o->output, strerror(errno));
    rc = TRACER_EXIT_ANALYSIS;
  }
  fflush(stdout);
  trace_reader_close(reader);
  return rc;
}

/* The event patterns of the chosen mode for each selected backend, NULL-terminated. */
/* LTTng's consumer writes the trace's folders 0770 and files 0660 (group "tracing"):
 * nobody but the user may change a trace. */
static int drop_group_write(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)type;
  (void)ftw;
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    chmod(path, st->st_mode & ~(mode_t)(S_IWGRP | S_IWOTH) & 07777);
  return 0;
}

static char **event_patterns(const struct options *o, char **backends, size_t n) {
  size_t extra = 0;
  for (const char *e = o->events; e && *e; e++)
    extra += *e == ',';
  char **p = calloc(2 * n + extra + 4, sizeof *p);
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
  if (p)
    p[k++] = strdup("lttng_ust_tracer:*");
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

/* Backends of one symbol group (MPICH's and Open MPI's MPI_*) wrap the same function
 * names for different libraries: of those selected, only the one whose library the app
 * links is kept, and the tracer says which. */
static void pick_symbol_groups(const struct options *o, char **names, char **libs, size_t *n) {
  char *linked = NULL;
  bool looked = false;
  for (size_t i = 0; i < *n; i++) {
    const struct tracer_backend_desc *d = backends_find(names[i]);
    if (!d || !d->symbol_group[0])
      continue;
    if (!looked) {
      /* The group's libraries: the app's own list settles it without ldd when it can. */
      const char *wanted[64];
      size_t w = 0;
      for (size_t k = 0; k < *n && w + 1 < sizeof wanted / sizeof *wanted; k++) {
        const struct tracer_backend_desc *g = backends_find(names[k]);
        if (g && g->symbol_group[0])
          wanted[w++] = g->library;
      }
      wanted[w] = NULL;
      linked = app_libraries_for(o->app[0], wanted);
      looked = true;
      /* Said under a launcher only: an app that is not an ELF program (a script) is
       * common outside MPI jobs, and the group's backends are then not its business. */
      struct rank_env rank;
      rank_env_read(&rank);
      if (!linked && rank.present)
        say(o, "cannot tell which libraries %s links (ldd): none of the %s backends is traced "
               "(-b NAME picks one)", o->app[0], d->symbol_group);
    }
    bool keep = linked && app_libraries_has(linked, d->library);
    for (size_t k = 0; keep && k < i; k++) {
      const struct tracer_backend_desc *kept = backends_find(names[k]);
      keep = !(kept && strcmp(kept->symbol_group, d->symbol_group) == 0);
    }
    if (keep) {
      say(o, "%s: %s links %s, traced as %s", d->symbol_group, o->app[0], d->library, d->name);
      continue;
    }
    free(names[i]);
    free(libs[i]);
    memmove(&names[i], &names[i + 1], (*n - i) * sizeof *names);
    memmove(&libs[i], &libs[i + 1], (*n - i) * sizeof *libs);
    (*n)--;
    i--;
  }
  free(linked);
}

/* The backends to trace: -b's list, else every one built; each must have its library. */
static int select_backends(const struct options *o, char ***names, char ***libs, size_t *n) {
  size_t total = backends_count();
  *names = calloc(total + 1, sizeof **names);
  *libs = calloc(total + 2, sizeof **libs); /* room for the runtime (preload_runtime_first) */
  *n = 0;
  if (!*names || !*libs)
    return -1;
  if (o->backends && strcmp(o->backends, "none") == 0)
    return 0; /* only the -e events */
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
    if (!lib) {
      error("Cannot find the %s interposer (libtracer_%s.so next to the tracer or on "
            "TRACER_BACKEND_PATH)",
            b, b);
      return -1;
    }
    (*names)[*n] = strdup(b);
    (*libs)[(*n)++] = lib;
  }
  if (!o->backends)
    pick_symbol_groups(o, *names, *libs, n);
  if (o->backends) {
    char *copy = strdup(o->backends), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
      if (!backends_find(t)) {
        error("Unknown backend: %s (built here: run tracer --help)", t);
        free(copy);
        return -1;
      }
    free(copy);
  }
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
static char **collector_environment(const struct options *o, char **names, char **libs,
                                    size_t n) {
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
      say(o, "%s=%s is replaced by the tracer's own library for the %s backend", b->collector,
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

/* The clock plugin a daemon this job starts gets: the tracer's TSC clock
 * (runtime/tracer_clock_plugin.c, which keeps LTTng's monotonic clock where the TSC is
 * not the kernel's clocksource), unless --clock monotonic, or the user's own
 * LTTNG_UST_CLOCK_PLUGIN, which the daemon then inherits. */
static char *trace_clock_plugin(const struct options *o) {
  const char *users = getenv("LTTNG_UST_CLOCK_PLUGIN");
  if ((users && *users) || o->monotonic_clock)
    return NULL;
  return find_library("clock");
}

/* The session daemon did not answer in time (session_set_hang_handler): a thread is
 * still blocked in liblttng-ctl, so only async-signal-safe calls, then exit. */
static void on_daemon_hang(const char *message) {
  static const char prefix[] = "tracer: error: ";
  ssize_t ignored = write(STDERR_FILENO, prefix, sizeof prefix - 1);
  ignored = write(STDERR_FILENO, message, strlen(message));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  _exit(TRACER_EXIT_SESSION);
}

static int run(const struct options *o) {
  char **names = NULL, **libs = NULL;
  size_t n = 0;
  bool only_events = o->backends && strcmp(o->backends, "none") == 0;
  if (select_backends(o, &names, &libs, &n) || (n == 0 && !only_events)) {
    if (n == 0 && names)
      error("No backend to trace");
    free_strings(names);
    free_strings(libs);
    return TRACER_EXIT_USAGE;
  }
  char *trace_dir = o->trace_output ? strdup(o->trace_output) : default_trace_dir(o->app[0]);
  char **patterns = event_patterns(o, names, n);
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
    say(o, "cannot measure what tracing costs here: %s", why);
  free(runtime_library);
  if (session_begin(&so, &session, &serr) != SESSION_OK) {
    error("%s", serr.message);
    rc = TRACER_EXIT_SESSION;
    goto done;
  }
  /* A session that records only the app's processes must be told of forked children. */
  struct fork_listener *forks = NULL;
  const char *fork_env = NULL;
  if (session_records_tracked_only(session) && !(forks = fork_listener_start(session, &fork_env)))
    say(o, "children the app forks will not be traced: %s", strerror(errno));
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
  const char **app_env = calloc(env_count + n + backend_env_count + 4, sizeof *app_env);
  for (size_t i = 0; app_env && i < env_count; i++)
    app_env[i] = session_env[i];
  if (app_env && fork_env)
    app_env[env_count++] = fork_env;
  char **collectors = collector_environment(o, names, libs, n);
  preload_runtime_first(libs);
  for (size_t i = 0; app_env && collectors && collectors[i]; i++)
    app_env[env_count++] = collectors[i];
  if (app_env && o->start_paused)
    app_env[env_count++] = "TRACER_START_PAUSED=1";
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
  if (session_lttng_home(session)) {
    snprintf(unseen.daemon_home, sizeof unseen.daemon_home, "%s", session_lttng_home(session));
    gethostname(unseen.daemon_host, sizeof unseen.daemon_host - 1);
    unseen.tracer_pid = (long)getpid();
  }
  run_record_write(trace_dir, &unseen);
  struct launch_process *app = NULL;
  struct launch_error lerr;
  struct timespec app_start, app_end;
  clock_gettime(CLOCK_MONOTONIC, &app_start);
  enum launch_status ls = launch_start(&req, &app, &lerr);
  if (ls == LAUNCH_OK && session_track_process(session, launch_pid(app), &serr) != SESSION_OK) {
    error("%s", serr.message);
    launch_free(app);
    app = NULL;
    ls = LAUNCH_ERR_SYSTEM;
    snprintf(lerr.message, sizeof lerr.message, "Cannot trace the app: session refused it");
  }
  if (ls == LAUNCH_OK)
    ls = launch_release(app, &lerr);
  int status = 0;
  if (ls == LAUNCH_OK)
    ls = launch_wait(app, &status, &lerr);
  clock_gettime(CLOCK_MONOTONIC, &app_end);
  fork_listener_stop(forks);
  free(app_env);
  free_strings(collectors);
  struct session_end_report report = {0};
  if (session_end(session, &report, &serr) != SESSION_OK)
    error("%s", serr.message);
  nftw(trace_dir, drop_group_write, 16, FTW_PHYS);
  if (ls != LAUNCH_OK) {
    error("%s", lerr.message);
    rc = launch_status_exit_code(ls);
    launch_free(app);
    goto done;
  }
  rc = launch_exit_code(status);
  struct run_record run = {.present = true, .exit_code = rc,
                           .discarded_events = report.discarded_events,
                           .lost_packets = report.lost_packets,
                           .wall_ns = (uint64_t)(app_end.tv_sec - app_start.tv_sec) * 1000000000u +
                                      (uint64_t)app_end.tv_nsec - (uint64_t)app_start.tv_nsec,
                           .event_ps = cost.event_ps,
                           .byte_ps = cost.byte_ps,
                           .call_ps = cost.call_ps};
  launch_describe_status(status, run.status, sizeof run.status);
  run.clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  for (char **a = o->app; *a; a++) {
    size_t used = strlen(run.command);
    snprintf(run.command + used, sizeof run.command - used, "%s%s", a == o->app ? "" : " ", *a);
  }
  if (o->job_member && o->timeline) /* before the record that tells rank 0 it is done */
    write_rank_timeline(o, trace_dir);
  if (run_record_write(trace_dir, &run))
    say(o, "cannot write %s/%s: %s", trace_dir, RUN_RECORD_FILE, strerror(errno));
  if (!run.clean)
    say(o, "the app %s%s", strncmp(run.status, "killed", 6) == 0 ? "was " : "", run.status);
  launch_free(app);
  if (report.lost_packets)
    say(o, "%llu packets were lost by the consumer", (unsigned long long)report.lost_packets);
  /* "trace saved" only of a trace that can be read: metadata, and events unless the app
   * made no traced call. */
  enum session_trace_content content = session_trace_content(trace_dir);
  if (content == SESSION_TRACE_NO_METADATA) {
    if (report.daemon_lost)
      error("No trace was saved in %s: the session daemon ended before writing the trace's "
            "metadata, and every event of the app is lost", trace_dir);
    else
      error("No trace was saved in %s: the app never registered with the session daemon "
            "(LTTng-UST was not loaded in it: a static or setuid program?)", trace_dir);
    if (rc == 0)
      rc = report.daemon_lost ? TRACER_EXIT_SESSION : TRACER_EXIT_ANALYSIS;
    goto done;
  }
  if (o->job_member) /* rank 0 reports for the whole job */
    goto done;
  mark_latest(trace_dir);
  if (report.daemon_lost)
    error("Only part of the trace was saved in %s: what the session daemon wrote before it "
          "ended; the tables below count that part", trace_dir);
  else if (content == SESSION_TRACE_NO_EVENTS)
    say(o, "trace saved in %s: it holds no event (the app made no traced call)", trace_dir);
  else
    say(o, "trace saved in %s", trace_dir);
  int arc = analyse(o, trace_dir);
  if (report.daemon_lost && rc == 0)
    rc = TRACER_EXIT_SESSION;
  if (arc && rc == 0)
    rc = arc;
done:
  if (session)
    session_free(session);
  free_strings(patterns);
  free_strings(names);
  free_strings(libs);
  free(trace_dir);
  free(clock_plugin);
  return rc;
}

/* The app of a rank that is not traced: run as it is, at full speed. */
static int run_untraced(const struct options *o) {
  pid_t pid = fork();
  if (pid < 0) {
    error("Cannot run the app: %s", strerror(errno));
    return 127;
  }
  if (pid == 0) {
    execvp(o->app[0], o->app);
    fprintf(stderr, "tracer: error: Cannot run %s: %s\n", o->app[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  return launch_exit_code(status);
}

/* One rank of an MPI job (docs/multi-rank.md): the job's trace folder holds one folder
 * per traced rank; rank 0, once its own app is done, waits for the others' and prints
 * one report for the job. */
static int run_rank(const struct options *o, const struct rank_env *rank) {
  const char *bad = NULL;
  bool traced = !o->traced_ranks || rank_list_has(o->traced_ranks, rank->rank, &bad);
  if (bad) {
    error("Cannot read --traced-ranks %s: expected ranks and ranges such as 0,2-5, got '%s'",
          o->traced_ranks, bad);
    return TRACER_EXIT_USAGE;
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
  struct options mine = *o;
  mine.job_member = true;
  mine.quiet = o->quiet || rank->rank != 0;
  char folder[PATH_MAX];
  job_rank_folder(job_dir, rank->rank, folder, sizeof folder);
  mine.trace_output = folder;
  /* Per-node results (cli/analysis/node_gather.h): each rank says where it runs, reduces
   * its own trace when its app has ended, and the node's first rank merges the node's. */
  node_gather_register(job_dir, rank->node, rank->rank, traced);
  int rc = traced ? run(&mine) : run_untraced(o);
  const char *t = getenv("TRACER_JOB_TIMEOUT");
  unsigned timeout = t && *t ? (unsigned)strtoul(t, NULL, 10) : 120;
  if (rc != TRACER_EXIT_USAGE) {
    if (traced && node_gather_rank(job_dir, rank->rank, 1))
      say(o, "cannot write the result of rank %ld: %s", rank->rank, strerror(errno));
    if (rank->local_rank == 0 && node_gather_node(job_dir, rank->node, rank->local_size,
                                                  timeout) < 0)
      say(o, "cannot write the result of node %s: %s", rank->node, strerror(errno));
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
  say(o, "job of %ld rank%s (%s), trace saved in %s", rank->size, rank->size == 1 ? "" : "s",
      rank->launcher, job_dir);
  struct options report = *o;
  report.timeline = false; /* the ranks wrote theirs: joined, not built again */
  int arc = o->text ? analyse(&report, job_dir)
                    : analyse_job(&report, job_dir, ranks, n, timeout);
  free(ranks);
  if (o->timeline) {
    int jrc = join_rank_timelines(o, job_dir);
    arc = arc ? arc : jrc;
  }
  free(job_dir);
  return rc ? rc : arc;
}

/* `tracer --check`: cli/check/ reports; the tracer lends it what a run would use. */
static int self_check(const struct options *o) {
  char *home = traces_home();
  char *plugin = trace_clock_plugin(o);
  struct check_request request = {
      .version = TRACER_VERSION,
      .trace_output = o->trace_output,
      .trace_home = home,
      .monotonic_clock = o->monotonic_clock,
      .clock_plugin = plugin,
      .find_library = find_library,
  };
  int rc = check_run(&request, stdout);
  free(plugin);
  free(home);
  return rc;
}

int main(int argc, char **argv) {
  enum {
    OPT_TRACE_OUTPUT = 256,
    OPT_BLOCKING,
    OPT_EVERY_CALL,
    OPT_THREADS,
    OPT_BUFFER_SIZE,
    OPT_BUFFER_COUNT,
    OPT_CLOCK,
    OPT_CHECK,
    OPT_START_PAUSED,
    OPT_TIMELINE_FORMAT,
    OPT_TIMELINE_SPLIT,
    OPT_TRACED_RANKS,
    OPT_EVENTS,
    OPT_RANKS
  };
  static const struct option longopts[] = {
      {"trace", no_argument, NULL, 't'},
      {"json", no_argument, NULL, 'j'},
      {"output", required_argument, NULL, 'o'},
      {"mode", required_argument, NULL, 'm'},
      {"backends", required_argument, NULL, 'b'},
      {"events", required_argument, NULL, OPT_EVENTS},
      {"extended", no_argument, NULL, 'e'},
      {"ranks", optional_argument, NULL, OPT_RANKS},
      {"trace-output", required_argument, NULL, OPT_TRACE_OUTPUT},
      {"replay", optional_argument, NULL, 'r'},
      {"blocking", no_argument, NULL, OPT_BLOCKING},
      {"every-call", no_argument, NULL, OPT_EVERY_CALL},
      {"clock", required_argument, NULL, OPT_CLOCK},
      {"check", no_argument, NULL, OPT_CHECK},
      {"traced-ranks", required_argument, NULL, OPT_TRACED_RANKS},
      {"threads", required_argument, NULL, OPT_THREADS},
      {"start-paused", no_argument, NULL, OPT_START_PAUSED},
      {"buffer-size", required_argument, NULL, OPT_BUFFER_SIZE},
      {"buffer-count", required_argument, NULL, OPT_BUFFER_COUNT},
      {"timeline", optional_argument, NULL, 'l'},
      {"timeline-format", required_argument, NULL, OPT_TIMELINE_FORMAT},
      {"timeline-split", required_argument, NULL, OPT_TIMELINE_SPLIT},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  struct options o = {.mode = MODE_DEFAULT, .ranks_pct = 25};
  session_set_hang_handler(on_daemon_hang);
  int c;
  backends_load_path(); /* before --help lists the backends */
  /* '+': options end at the app's name, so the app's own options stay its own. */
  while ((c = getopt_long(argc, argv, "+tjeo:m:b:r::l::qhV", longopts, NULL)) != -1) {
    switch (c) {
    case 't': o.text = true; break;
    case 'j': o.json = true; break;
    case 'o': o.output = optarg; break;
    case 'm':
      if (strcmp(optarg, "minimal") == 0)
        o.mode = MODE_MINIMAL;
      else if (strcmp(optarg, "default") == 0)
        o.mode = MODE_DEFAULT;
      else if (strcmp(optarg, "full") == 0)
        o.mode = MODE_FULL;
      else {
        error("Unknown mode: %s (use minimal, default or full)", optarg);
        return TRACER_EXIT_USAGE;
      }
      break;
    case 'b': o.backends = optarg; break;
    case OPT_EVENTS: o.events = optarg; break;
    case 'e': o.extended = true; break;
    case OPT_RANKS: {
      char *end = NULL;
      unsigned long pct = optarg ? strtoul(optarg, &end, 10) : 25;
      if (optarg && (end == optarg || *end || pct > 100000)) {
        error("--ranks=PCT wants a percentage such as 25, got %s", optarg);
        return TRACER_EXIT_USAGE;
      }
      o.ranks = true;
      o.ranks_pct = (unsigned)pct;
      break;
    }
    case OPT_TRACE_OUTPUT: o.trace_output = optarg; break;
    case 'r':
      o.replay = true;
      if (optarg)
        o.replay_dir = optarg;
      else if (optind < argc && argv[optind][0] != '-')
        o.replay_dir = argv[optind++];
      break;
    case 'l':
      o.timeline = true;
      if (optarg)
        o.timeline_path = optarg;
      else if (optind < argc && argv[optind][0] != '-' &&
               (o.replay || has_suffix(argv[optind], ".pftrace")))
        o.timeline_path = argv[optind++];
      break;
    case OPT_TIMELINE_FORMAT:
      if (strcmp(optarg, "json") != 0 && strcmp(optarg, "pftrace") != 0) {
        error("Unknown timeline format: %s (use pftrace or json)", optarg);
        return TRACER_EXIT_USAGE;
      }
      o.timeline = true;
      o.timeline_json = strcmp(optarg, "json") == 0;
      break;
    case OPT_TIMELINE_SPLIT: {
      char *end;
      uint64_t v = strtoull(optarg, &end, 10);
      if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
      else if (*end == 'M')
        v <<= 20, end++;
      else if (*end == 'G')
        v <<= 30, end++;
      if (*end || v < 4096) {
        error("--timeline-split wants a size of at least 4k, got %s", optarg);
        return TRACER_EXIT_USAGE;
      }
      o.timeline = true;
      o.timeline_split = v;
      break;
    }
    case OPT_BLOCKING: o.blocking = true; break;
    /* The app inherits it; its runtime reads it (runtime/tracer_counted.c). */
    case OPT_EVERY_CALL: setenv("TRACER_EVERY_CALL", "1", 1); break;
    case OPT_START_PAUSED: o.start_paused = true; break;
    case OPT_CLOCK:
      if (strcmp(optarg, "monotonic") != 0 && strcmp(optarg, "tsc") != 0) {
        error("Unknown clock: %s (use tsc or monotonic)", optarg);
        return TRACER_EXIT_USAGE;
      }
      o.monotonic_clock = strcmp(optarg, "monotonic") == 0;
      break;
    case OPT_THREADS: o.threads = (unsigned)strtoul(optarg, NULL, 10); break;
    case OPT_BUFFER_SIZE:
    case OPT_BUFFER_COUNT: {
      char *end;
      uint64_t v = strtoull(optarg, &end, 10);
      if (c == OPT_BUFFER_SIZE && (*end == 'k' || *end == 'K'))
        v <<= 10, end++;
      else if (c == OPT_BUFFER_SIZE && *end == 'M')
        v <<= 20, end++;
      else if (c == OPT_BUFFER_SIZE && *end == 'G')
        v <<= 30, end++;
      if (*end || v == 0 || (v & (v - 1))) {
        error("%s wants a power of 2, got %s", c == OPT_BUFFER_SIZE ? "--buffer-size" : "--buffer-count",
              optarg);
        return TRACER_EXIT_USAGE;
      }
      if (c == OPT_BUFFER_SIZE)
        o.subbuf_size = v;
      else
        o.subbuf_count = v;
      break;
    }
    case 'q': o.quiet = true; break;
    case OPT_CHECK: o.check = true; break;
    case OPT_TRACED_RANKS: o.traced_ranks = optarg; break;
    case 'h': print_usage(stdout); return 0;
    case 'V': printf("tracer %s\n", TRACER_VERSION); return 0;
    default:
      fputs("Try 'tracer --help' for more information.\n", stderr);
      return TRACER_EXIT_USAGE;
    }
  }
  /* `tracer doctor` alone is the check; `tracer -- doctor` or ./doctor runs an app so named. */
  if (optind == argc - 1 && strcmp(argv[optind], "doctor") == 0 &&
      strcmp(argv[optind - 1], "--") != 0) {
    o.check = true;
    optind++;
  }
  if (o.check) {
    if (optind < argc || o.replay) {
      error("--check runs no app and reads no trace; got: %s", o.replay ? "-r" : argv[optind]);
      return TRACER_EXIT_USAGE;
    }
    return self_check(&o);
  }
  if (o.text && o.json) {
    error("-t and -j cannot be used together");
    return TRACER_EXIT_USAGE;
  }
  if (o.text && (o.extended || o.ranks)) {
    error("-t prints every call: %s applies to the tallies", o.extended ? "-e" : "--ranks");
    return TRACER_EXIT_USAGE;
  }
  if (o.replay) {
    if (optind < argc) {
      error("-r analyses a saved trace and runs no app; got: %s", argv[optind]);
      return TRACER_EXIT_USAGE;
    }
    char *latest = NULL;
    if (!o.replay_dir) {
      char *home = traces_home();
      char link[PATH_MAX];
      snprintf(link, sizeof link, "%s/latest", home);
      free(home);
      latest = realpath(link, NULL);
      if (!latest) {
        error("No trace to replay: give a folder (tracer -r DIR)");
        return TRACER_EXIT_USAGE;
      }
      o.replay_dir = latest;
    }
    int rc = analyse(&o, o.replay_dir);
    free(latest);
    return rc;
  }
  if (optind >= argc) {
    error("Missing the app to run");
    fputs("Try 'tracer --help' for more information.\n", stderr);
    return TRACER_EXIT_USAGE;
  }
  if (o.backends && strcmp(o.backends, "none") == 0 && !o.events) {
    error("-b none records only the events of --events: give some");
    return TRACER_EXIT_USAGE;
  }
  o.app = argv + optind;
  /* The launcher inside the tracer would trace the launcher, not the ranks. */
  const char *base = strrchr(o.app[0], '/') ? strrchr(o.app[0], '/') + 1 : o.app[0];
  static const char *const launchers[] = {"mpirun", "mpiexec", "srun", "orterun", "aprun"};
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++)
    if (strncmp(base, launchers[i], strlen(launchers[i])) == 0 &&
        (!base[strlen(launchers[i])] || base[strlen(launchers[i])] == '.')) {
      error("%s launches the ranks: put the tracer after it, e.g. `%s -n 4 tracer ./app`",
            base, base);
      return TRACER_EXIT_USAGE;
    }
  struct rank_env rank;
  rank_env_read(&rank);
  if (rank.present)
    return run_rank(&o, &rank);
  if (o.traced_ranks) {
    error("--traced-ranks needs an MPI launcher: mpirun -n N tracer --traced-ranks LIST APP");
    return TRACER_EXIT_USAGE;
  }
  if (o.ranks) {
    error("--ranks needs an MPI job: mpirun -n N tracer --ranks APP, or tracer -r JOBDIR --ranks");
    return TRACER_EXIT_USAGE;
  }
  return run(&o);
}
