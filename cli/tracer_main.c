/* tracer: runs an application under an LTTng session with the backends' interposers
 * preloaded, then analyses the trace: tallies (default), JSON (-j) or every call (-t).
 * `tracer -r DIR` analyses a saved trace again. This file holds the options and the
 * dispatch; each command is a file of cli/commands/ (commands.h). */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "commands.h"
#include "log.h"
#include "option_values.h"
#include "rank_env.h"
#include "session.h"

#ifndef TRACER_VERSION
#define TRACER_VERSION "0.1.0"
#endif

enum { MAX_THREADS = 4096 }; /* --threads: the reader starts as many */

static const char usage[] =
    "Usage: tracer [options] [--] APP [ARGS...]\n"
    "  or:  tracer -r [DIR] [options]\n"
    "  or:  tracer --check\n"
    "  or:  tracer diff [-j] [-o FILE] [--backend-path DIR] A B\n"
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
    "      --full-names       show kernel names whole in the tables; by default a C++\n"
    "                         kernel is shown as nsys stats shows it, without return\n"
    "                         type, template arguments and parameters (ns::kernel<...>);\n"
    "                         -j, the timeline and the exports always have them whole\n"
    "      --ranks[=PCT]      in an MPI job's report, per call the least, median and\n"
    "                         most time of a rank and the straggler ranks, whose time is\n"
    "                         over the median by more than PCT%% (default 25); also for\n"
    "                         a launcher traced with its ranks (tracer torchrun ...)\n"
    "  -o, --output FILE      write the analysis to FILE instead of standard output\n"
    "      --csv FILE         also write the tally as CSV to FILE (one line per table row)\n"
    "      --otf2 DIR         also write the trace as an OTF2 archive in DIR (open\n"
    "                         DIR/traces.otf2 in Vampir, Scalasca, otf2-print); DIR is\n"
    "                         new, empty or an archive to replace; an MPI job gets one.\n"
    "                         Needs libotf2, loaded for this option only\n"
    "      --flame FILE       also write folded stacks for flame graphs: FILE weighted by\n"
    "                         device time (rank;regions;code;calls;-;kernel, the code\n"
    "                         being the Python and native frames of the calls that\n"
    "                         submit work), and FILE with .host before its extension\n"
    "                         weighted by the time in API calls (stacks.host.folded);\n"
    "                         FILE ending in .svg: the flame graphs themselves, as\n"
    "                         interactive SVG (stacks.svg, stacks.host.svg); an MPI job\n"
    "                         gets one pair\n"
    "      --no-stacks        keep no stacks: the calls that submit device work or a\n"
    "                         collective record neither their Python nor their native\n"
    "                         frames (by default they do, in default and full modes)\n"
    "      --pc-sampling      also sample the program counters of CUDA kernels with their\n"
    "                         stall reasons (CUPTI's PC sampling, beside its activity\n"
    "                         records): in --flame's device time, each kernel's frame\n"
    "                         gets one per instruction and one per stall reason below it\n"
    "      --steps[=PATTERN]  also print each rank's steps: count, median, least and most\n"
    "                         step time, the slowest steps, and per step the GPUs' time\n"
    "                         as HTA defines it; steps are the outermost region that\n"
    "                         repeats (ProfilerStep#N, an NVTX or ITT range Step.N), or\n"
    "                         the regions PATTERN matches (after -r: --steps PATTERN)\n"
    "      --window NAME      analyse only the instances of the regions NAME matches (a\n"
    "                         name or a pattern such as 'Step.[3-9]'): every table, the\n"
    "                         verdict, the timeline, OTF2 and folded stacks (docs/steps.md)\n"
    "      --skip-steps N     analyse only the steps after the first N (warm-up left out)\n"
    "      --from WHEN, --to WHEN\n"
    "                         analyse only from/to WHEN: seconds from each process's\n"
    "                         start, or a region name (from its first start, to its last\n"
    "                         end); window options combine (what all of them leave)\n"
    "  -m, --mode MODE        what each call's event records: minimal (names, times,\n"
    "                         status; written 32 calls an event, and a SIGKILL loses a\n"
    "                         thread's last 31 at most), default (scalar arguments and\n"
    "                         out values too) or full (arrays, strings and structs too)\n"
    "  -b, --backends LIST    trace only these backends, comma-separated; `none` records\n"
    "                         only --events (default: every backend whose interposer is\n"
    "                         there; built here: %s)\n"
    "      --backend-path DIR\n"
    "                         also find backends built outside the tracer in DIR (the\n"
    "                         output of scripts/build-backend.sh: libtracer_B.so and\n"
    "                         libtracer_B_events.so), before those of TRACER_BACKEND_PATH,\n"
    "                         a colon-separated list of such folders; -r needs it too\n"
    "      --events LIST      also record these LTTng-UST events (comma-separated name\n"
    "                         patterns, e.g. your own provider's myapp:*)\n"
    "      --trace-output DIR\n"
    "                         write the trace to DIR (default: ~/tracer-traces/APP-DATE-PID)\n"
    "  -r, --replay [DIR]     analyse the trace in DIR (default: the latest) instead of\n"
    "                         running an app; any output option applies. DIR holds one\n"
    "                         run, or an MPI job's ranks: a folder of several runs\n"
    "                         (~/tracer-traces) lists them and asks for one\n"
    "      --every-call       an event for every call, also of the functions a spec\n"
    "                         counts (getters such as cudaGetDevice, called hundreds of\n"
    "                         times a step), which otherwise are counted and timed per\n"
    "                         thread, in the tallies but not in -t or the timeline,\n"
    "                         and every poll that found nothing (MPI_Test, ...)\n"
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
    "      --max-size SIZE    the most the trace may take on disk (k, M or G suffix,\n"
    "                         at least 1M; default: the free space where it goes less\n"
    "                         an eighth of it, 1 MiB to 1 GiB). Near the bound the app's\n"
    "                         processes stop recording and only count their calls with\n"
    "                         their times: the tables stay complete, -t and the timeline\n"
    "                         end there, and the report says when\n"
    "      --start-paused     record nothing until the app resumes the recording (an\n"
    "                         API's own call for it: a spec's trace.resume)\n"
    "      --sample[=MS]      also record each device's counters (power, clocks,\n"
    "                         utilisation, memory used, temperature) every MS ms\n"
    "                         (default: 100) through NVML and Level Zero Sysman, read\n"
    "                         by a process of the tracer beside the app, one per node\n"
    "      --runtime-calls    also count as the app's the calls that libraries make to an\n"
    "                         API for their own ends: libomp's ITT calls for its tools (a\n"
    "                         spec's trace.runtime_callers, then recorded), and calls made\n"
    "                         inside another API's traced call (hwloc's OpenCL calls\n"
    "                         inside MPI_Init, the CUDA runtime's driver calls), which are\n"
    "                         otherwise set apart from the tables and the verdict (also\n"
    "                         with -r, of a run or of a job's folder)\n"
    "      --wait all|primary\n"
    "                         how long the run lasts: until every process the app started\n"
    "                         has ended, forked workers and daemonized helpers too (all,\n"
    "                         the default; Ctrl-C stops waiting for them), or until its\n"
    "                         main process has (primary: the report says how many were\n"
    "                         left running, whose later calls are not recorded)\n"
    "      --threads N        threads for the analysis, 1 to 4096 (default: one per\n"
    "                         core; -t and the timeline read in time order on one\n"
    "                         below 3 cores, the timeline then written on a second)\n"
    "  -l, --timeline [FILE] also write a timeline for ui.perfetto.dev (Perfetto protobuf;\n"
    "                         default: timeline.pftrace in the trace folder). A FILE\n"
    "                         ending in .json gets the Chrome JSON (--timeline-format\n"
    "                         json), the protobuf beside it ending in .pftrace. Before an\n"
    "                         app, FILE is taken only when it ends in .pftrace or .json\n"
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
    "  -q, --quiet            no messages from the tracer on standard error but errors\n"
    "  -v, --verbose          also say what the tracer does, step by step (debug)\n"
    "      --check            run no app: say whether a trace would work here (LTTng,\n"
    "                         session daemon, trace clock, backends and the libraries\n"
    "                         they would trace, MPI launcher, free space); exit 0 when\n"
    "                         it would. `tracer doctor` is the same (`tracer -- doctor`\n"
    "                         runs an app named doctor)\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "`tracer diff A B` compares two runs, each a saved trace, an MPI job's folder or a\n"
    "JSON result (-j's output, a job's too): per backend the host calls, kernels and\n"
    "transfers whose time, count or bytes changed most, with both values, the change and\n"
    "its share of the whole difference; rows in one run only; the step time of both when\n"
    "both have steps (a JSON result has them when made with --steps), and changes within\n"
    "the runs' own step-to-step spread marked as noise (docs/steps.md); `tracer diff\n"
    "--help` says more. `tracer -- diff ...` runs an app named diff.\n"
    "\n"
    "Exit status: APP's own (when a signal N killed it, the tracer ends killed by N too,\n"
    "which a shell shows as 128+N; 127 when it cannot be found, 126 when it cannot be\n"
    "run; in an MPI job a rank whose app fails ends so at once, and `tracer -r` on the\n"
    "job's folder gives its report), or 2 for a bad command line, 3 when no LTTng\n"
    "session could be set up or its session daemon died or stopped answering, 4 when a\n"
    "trace cannot be read (or a report or export cannot be written: the files of -o,\n"
    "--csv, -l FILE, --flame and --otf2 are checked before APP runs, which then does not\n"
    "run), 5 when packets that the trace's index or sequence numbers say it holds are\n"
    "missing (a stream file cut, emptied or deleted); with --check, 0 when a trace would\n"
    "work, else 1. The output is described in analysis-output.md, the daemon in\n"
    "session-daemon.md, faults in reliability.md (docs/ in the sources, share/doc/tracer\n"
    "once installed).\n";

static void print_usage(FILE *out) {
  char list[1024];
  backends_names(",", list, sizeof list);
  fprintf(out, usage, list,
          (unsigned long long)session_default_subbuf_count(SESSION_DEFAULT_SUBBUF_SIZE));
}

/* A value an option refuses: says why (option_values.h), for the usage status. */
static int bad_value(const char *option, const char *value, const char *why) {
  log_error("Cannot use %s %s: %s", option, value, why);
  return TRACER_EXIT_USAGE;
}

static const char diff_usage[] =
    "Usage: tracer diff [-j] [-o FILE] [--backend-path DIR] [-q|-v] A B\n"
    "\n"
    "Compares two runs, A and B, each a saved trace (a folder tracer -r reads), an\n"
    "MPI or torchrun job's folder, or a JSON result (tracer -j -o FILE's output, of a\n"
    "run, a replay or a job; mixed kinds too). Per backend, the host calls, kernels\n"
    "and transfers whose time, count or bytes changed, the largest changes first,\n"
    "with both values, the change and its share of the whole difference (the sum of\n"
    "every row's change); rows in one run only are marked so. When both runs have\n"
    "steps (a trace's first process with steps, a job's slowest rank per step, a JSON\n"
    "result's when made with --steps), their step counts and medians come first, and\n"
    "a change within the runs' own step-to-step spread is marked noise. The text\n"
    "shows the 10 largest changes of each table in 100 columns (names cut, C++ kernel\n"
    "names shortened); -j has every changed row, names whole (docs/steps.md).\n"
    "\n"
    "Options:\n"
    "  -j, --json             print the comparison as JSON\n"
    "  -o, --output FILE      write it to FILE instead of standard output\n"
    "      --backend-path DIR also find backends built outside the tracer in DIR\n"
    "                         (scripts/build-backend.sh), as tracer --help says\n"
    "  -q, --quiet            no messages on standard error but errors\n"
    "  -v, --verbose          also say what the tracer does, step by step (debug)\n"
    "  -h, --help             show this help and exit\n"
    "\n"
    "Exit status: 0 when compared; 2 for a bad command line, a path that is no trace,\n"
    "job or file, a file that is not a tracer's JSON result (named with the line and\n"
    "column where its JSON breaks) or two runs with no backend in common; 4 when a\n"
    "trace or job cannot be read, libjansson (for JSON results) is missing, or FILE\n"
    "cannot be written.\n";

/* `tracer diff [-j] [-o FILE] [--backend-path DIR] [-q|-v] A B`. */
static int diff_main(int argc, char **argv) {
  struct tracer_options o = {0};
  const char *paths[2];
  size_t n = 0;
  int level = LOG_INFO;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(diff_usage, stdout);
      return TRACER_EXIT_OK;
    }
    if (strcmp(argv[i], "-j") == 0 || strcmp(argv[i], "--json") == 0)
      o.json = true;
    else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
      if (i + 1 == argc) {
        log_setup("tracer", level);
        log_error("tracer diff %s needs a FILE to write the comparison to", argv[i]);
        return TRACER_EXIT_USAGE;
      }
      o.output = argv[++i];
    } else if (strcmp(argv[i], "--backend-path") == 0 && i + 1 < argc)
      i++; /* read before the backends were loaded (backend_path_option) */
    else if (strncmp(argv[i], "--backend-path=", 15) == 0)
      continue;
    else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0)
      level = LOG_ERROR;
    else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0)
      level = LOG_DEBUG;
    else if (argv[i][0] == '-' && argv[i][1]) {
      log_setup("tracer", level);
      log_error("tracer diff takes -j, -o FILE, --backend-path DIR, -q, -v and -h, not %s "
                "(tracer diff --help)",
                argv[i]);
      return TRACER_EXIT_USAGE;
    } else if (n < 2)
      paths[n++] = argv[i];
    else
      n = 3;
  }
  log_setup("tracer", level);
  if (n != 2) {
    log_error("tracer diff compares two runs: tracer diff [-j] [-o FILE] A B");
    return TRACER_EXIT_USAGE;
  }
  return command_diff(&o, paths[0], paths[1]);
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Joins dir to the front of TRACER_BACKEND_PATH. */
static void backend_path_add(const char *dir) {
  if (!*dir)
    return;
  char absolute[PATH_MAX];
  if (!realpath(dir, absolute))
    snprintf(absolute, sizeof absolute, "%s", dir);
  const char *old = getenv("TRACER_BACKEND_PATH");
  size_t size = strlen(absolute) + (old ? strlen(old) : 0) + 2;
  char *joined = malloc(size);
  if (!joined)
    return;
  snprintf(joined, size, "%s%s%s", absolute, old && *old ? ":" : "", old && *old ? old : "");
  setenv("TRACER_BACKEND_PATH", joined, 1);
  free(joined);
}

/* --backend-path DIR (among the options, before the app's name) joins the front of
 * TRACER_BACKEND_PATH before the backends are loaded (--help lists them), and stays in the
 * environment, so that the ranks of a job and a later `tracer -r` of the trace see it
 * too. A pass of its own over the options, which the real one then reads again
 * (`tracer diff`'s: -o FILE takes a value). */
static void backend_path_option(int argc, char **argv, const char *shortopts,
                                const struct option *longopts, int path_option) {
  if (argc >= 2 && strcmp(argv[1], "diff") == 0) {
    for (int i = 2; i < argc; i++) {
      if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc)
        i++;
      else if (strcmp(argv[i], "--backend-path") == 0 && i + 1 < argc)
        backend_path_add(argv[++i]);
      else if (strncmp(argv[i], "--backend-path=", 15) == 0)
        backend_path_add(argv[i] + 15);
    }
    return;
  }
  int saved = opterr, c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
    if (c == path_option && optarg)
      backend_path_add(optarg);
  opterr = saved;
  optind = 0; /* glibc: the next getopt_long starts over */
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
    OPT_SAMPLE,
    OPT_RUNTIME_CALLS,
    OPT_TIMELINE_FORMAT,
    OPT_TIMELINE_SPLIT,
    OPT_TRACED_RANKS,
    OPT_EVENTS,
    OPT_RANKS,
    OPT_CSV,
    OPT_OTF2,
    OPT_FLAME,
    OPT_MAX_SIZE,
    OPT_BACKEND_PATH,
    OPT_NO_STACKS,
    OPT_PC_SAMPLING,
    OPT_WAIT,
    OPT_STEPS,
    OPT_WINDOW,
    OPT_SKIP_STEPS,
    OPT_FROM,
    OPT_TO,
    OPT_FULL_NAMES
  };
  static const struct option longopts[] = {
      {"trace", no_argument, NULL, 't'},
      {"json", no_argument, NULL, 'j'},
      {"output", required_argument, NULL, 'o'},
      {"mode", required_argument, NULL, 'm'},
      {"backends", required_argument, NULL, 'b'},
      {"backend-path", required_argument, NULL, OPT_BACKEND_PATH},
      {"events", required_argument, NULL, OPT_EVENTS},
      {"extended", no_argument, NULL, 'e'},
      {"ranks", optional_argument, NULL, OPT_RANKS},
      {"trace-output", required_argument, NULL, OPT_TRACE_OUTPUT},
      {"replay", optional_argument, NULL, 'r'},
      {"blocking", no_argument, NULL, OPT_BLOCKING},
      {"every-call", no_argument, NULL, OPT_EVERY_CALL},
      {"no-stacks", no_argument, NULL, OPT_NO_STACKS},
      {"pc-sampling", no_argument, NULL, OPT_PC_SAMPLING},
      {"clock", required_argument, NULL, OPT_CLOCK},
      {"check", no_argument, NULL, OPT_CHECK},
      {"traced-ranks", required_argument, NULL, OPT_TRACED_RANKS},
      {"threads", required_argument, NULL, OPT_THREADS},
      {"start-paused", no_argument, NULL, OPT_START_PAUSED},
      {"sample", optional_argument, NULL, OPT_SAMPLE},
      {"runtime-calls", no_argument, NULL, OPT_RUNTIME_CALLS},
      {"buffer-size", required_argument, NULL, OPT_BUFFER_SIZE},
      {"buffer-count", required_argument, NULL, OPT_BUFFER_COUNT},
      {"timeline", optional_argument, NULL, 'l'},
      {"timeline-format", required_argument, NULL, OPT_TIMELINE_FORMAT},
      {"timeline-split", required_argument, NULL, OPT_TIMELINE_SPLIT},
      {"csv", required_argument, NULL, OPT_CSV},
      {"otf2", required_argument, NULL, OPT_OTF2},
      {"flame", required_argument, NULL, OPT_FLAME},
      {"max-size", required_argument, NULL, OPT_MAX_SIZE},
      {"wait", required_argument, NULL, OPT_WAIT},
      {"steps", optional_argument, NULL, OPT_STEPS},
      {"window", required_argument, NULL, OPT_WINDOW},
      {"skip-steps", required_argument, NULL, OPT_SKIP_STEPS},
      {"from", required_argument, NULL, OPT_FROM},
      {"to", required_argument, NULL, OPT_TO},
      {"full-names", no_argument, NULL, OPT_FULL_NAMES},
      {"quiet", no_argument, NULL, 'q'},
      {"verbose", no_argument, NULL, 'v'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  struct tracer_options o = {.mode = MODE_DEFAULT, .ranks_pct = 25};
  bool quiet = false, verbose = false;
  char why[160];
  session_set_hang_handler(command_daemon_hang);
  int c;
  /* '+': options end at the app's name, so the app's own options stay its own. */
  static const char shortopts[] = "+tjeo:m:b:r::l::qvhV";
  backend_path_option(argc, argv, shortopts, longopts, OPT_BACKEND_PATH);
  backends_load_path(); /* before --help lists the backends */
  if (argc >= 2 && strcmp(argv[1], "diff") == 0)
    return diff_main(argc, argv);
  while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
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
        log_error("Unknown mode: %s (use minimal, default or full)", optarg);
        return TRACER_EXIT_USAGE;
      }
      break;
    case 'b': o.backends = optarg; break;
    case OPT_BACKEND_PATH: break; /* read before the backends were loaded */
    case OPT_EVENTS: o.events = optarg; break;
    case 'e': o.extended = true; break;
    case OPT_FULL_NAMES: o.full_names = true; break;
    case OPT_RANKS: {
      uint64_t pct = 25;
      if (optarg && !option_count(optarg, 0, 100000, &pct, why, sizeof why)) {
        log_error("Cannot use --ranks=%s: %s (a percentage such as 25)", optarg, why);
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
               (o.replay || has_suffix(argv[optind], ".pftrace") ||
                has_suffix(argv[optind], ".json")))
        o.timeline_path = argv[optind++];
      break;
    case OPT_TIMELINE_FORMAT:
      if (strcmp(optarg, "json") != 0 && strcmp(optarg, "pftrace") != 0) {
        log_error("Unknown timeline format: %s (use pftrace or json)", optarg);
        return TRACER_EXIT_USAGE;
      }
      o.timeline = true;
      o.timeline_json = strcmp(optarg, "json") == 0;
      break;
    case OPT_TIMELINE_SPLIT:
      if (!option_size(optarg, 4096, UINT64_MAX, &o.timeline_split, why, sizeof why))
        return bad_value("--timeline-split", optarg, why);
      o.timeline = true;
      break;
    case OPT_MAX_SIZE:
      if (!option_size(optarg, 1u << 20, UINT64_MAX, &o.max_size, why, sizeof why))
        return bad_value("--max-size", optarg, why);
      break;
    case OPT_BLOCKING: o.blocking = true; break;
    /* The app inherits it; its runtime reads it (runtime/tracer_counted.c). */
    case OPT_EVERY_CALL: setenv("TRACER_EVERY_CALL", "1", 1); break;
    case OPT_START_PAUSED: o.start_paused = true; break;
    case OPT_NO_STACKS: o.no_stacks = true; break;
    /* The app inherits it; its CUDA backend reads it (runtime/cupti/cupti_pc_sampling.c). */
    case OPT_PC_SAMPLING: setenv("TRACER_PC_SAMPLING", "1", 1); break;
    case OPT_SAMPLE: {
      uint64_t ms = 100;
      if (optarg && !option_count(optarg, 1, 3600000, &ms, why, sizeof why)) {
        log_error("--sample takes a period in ms from 1 to 3600000, not %s: %s", optarg, why);
        return TRACER_EXIT_USAGE;
      }
      o.sample_ms = (unsigned)ms;
      break;
    }
    case OPT_RUNTIME_CALLS: o.runtime_calls = true; break;
    case OPT_WAIT:
      if (strcmp(optarg, "all") != 0 && strcmp(optarg, "primary") != 0)
        return bad_value("--wait", optarg, "not all or primary");
      o.wait = strcmp(optarg, "primary") == 0 ? WAIT_PRIMARY : WAIT_ALL;
      break;
    case OPT_CLOCK:
      if (strcmp(optarg, "monotonic") != 0 && strcmp(optarg, "tsc") != 0) {
        log_error("Unknown clock: %s (use tsc or monotonic)", optarg);
        return TRACER_EXIT_USAGE;
      }
      o.monotonic_clock = strcmp(optarg, "monotonic") == 0;
      break;
    case OPT_THREADS: {
      uint64_t n;
      if (!option_count(optarg, 1, MAX_THREADS, &n, why, sizeof why))
        return bad_value("--threads", optarg, why);
      o.threads = (unsigned)n;
      break;
    }
    case OPT_BUFFER_SIZE:
      if (!option_size(optarg, 1, UINT64_MAX, &o.subbuf_size, why, sizeof why) ||
          !option_power_of_two(o.subbuf_size, why, sizeof why))
        return bad_value("--buffer-size", optarg, why);
      break;
    case OPT_BUFFER_COUNT:
      if (!option_count(optarg, 1, UINT32_MAX, &o.subbuf_count, why, sizeof why) ||
          !option_power_of_two(o.subbuf_count, why, sizeof why))
        return bad_value("--buffer-count", optarg, why);
      break;
    case 'q': quiet = true; break;
    case 'v': verbose = true; break;
    case OPT_CSV: o.csv_path = optarg; break;
    case OPT_OTF2: o.otf2_path = optarg; break;
    case OPT_FLAME: o.flame_path = optarg; break;
    case OPT_CHECK: o.check = true; break;
    case OPT_STEPS:
      o.steps = true;
      if (optarg)
        o.steps_pattern = optarg;
      else if (o.replay && optind < argc && argv[optind][0] != '-')
        o.steps_pattern = argv[optind++];
      break;
    case OPT_WINDOW: o.window = optarg; break;
    case OPT_SKIP_STEPS: {
      char *end = NULL;
      unsigned long n = strtoul(optarg, &end, 10);
      if (end == optarg || *end || optarg[0] == '-' || n > 100000000) {
        log_error("--skip-steps wants a number of steps, got %s", optarg);
        return TRACER_EXIT_USAGE;
      }
      o.skip_asked = true;
      o.skip_steps = (unsigned)n;
      break;
    }
    case OPT_FROM: o.from = optarg; break;
    case OPT_TO: o.to = optarg; break;
    case OPT_TRACED_RANKS: {
      const char *bad = NULL;
      rank_list_has(optarg, 0, &bad);
      if (bad) {
        log_error("Cannot use --traced-ranks %s: expected ranks and ranges such as 0,2-5, "
                  "got '%s'", optarg, bad);
        return TRACER_EXIT_USAGE;
      }
      o.traced_ranks = optarg;
      break;
    }
    case 'h': print_usage(stdout); return 0;
    case 'V': printf("tracer %s\n", TRACER_VERSION); return 0;
    default:
      fputs("Try 'tracer --help' for more information.\n", stderr);
      return TRACER_EXIT_USAGE;
    }
  }
  log_setup("tracer", quiet ? LOG_ERROR : verbose ? LOG_DEBUG : LOG_INFO);
  /* `tracer doctor` alone is the check; `tracer -- doctor` or ./doctor runs an app so named. */
  if (optind == argc - 1 && strcmp(argv[optind], "doctor") == 0 &&
      strcmp(argv[optind - 1], "--") != 0) {
    o.check = true;
    optind++;
  }
  if (o.check) {
    if (optind < argc || o.replay) {
      log_error("--check runs no app and reads no trace; got: %s", o.replay ? "-r" : argv[optind]);
      return TRACER_EXIT_USAGE;
    }
    return command_self_check(&o, TRACER_VERSION);
  }
  if (o.text && o.json) {
    log_error("-t and -j cannot be used together");
    return TRACER_EXIT_USAGE;
  }
  if (o.text && o.steps) {
    log_error("-t prints every call: --steps applies to the tallies");
    return TRACER_EXIT_USAGE;
  }
  if ((o.from && !*o.from) || (o.to && !*o.to) || (o.window && !*o.window)) {
    log_error("--window, --from and --to want a region name, a pattern or seconds");
    return TRACER_EXIT_USAGE;
  }
  if (o.text && (o.extended || o.ranks)) {
    log_error("-t prints every call: %s applies to the tallies", o.extended ? "-e" : "--ranks");
    return TRACER_EXIT_USAGE;
  }
  /* -l FILE.json names the Chrome JSON (as --timeline-format json), and the Perfetto file
   * goes beside it with FILE's stem: not the protobuf in FILE and the JSON in FILE.json. */
  static char timeline_pftrace[PATH_MAX];
  if (o.timeline_path && has_suffix(o.timeline_path, ".json")) {
    snprintf(timeline_pftrace, sizeof timeline_pftrace, "%.*s.pftrace",
             (int)(strlen(o.timeline_path) - 5), o.timeline_path);
    o.timeline_path = timeline_pftrace;
    o.timeline_json = true;
  }
  if (o.replay) {
    if (optind < argc) {
      log_error("-r analyses a saved trace and runs no app; got: %s", argv[optind]);
      return TRACER_EXIT_USAGE;
    }
    return command_replay(&o);
  }
  if (optind >= argc) {
    log_error("Missing the app to run");
    fputs("Try 'tracer --help' for more information.\n", stderr);
    return TRACER_EXIT_USAGE;
  }
  if (o.backends && strcmp(o.backends, "none") == 0 && !o.events) {
    log_error("-b none records only the events of --events: give some");
    return TRACER_EXIT_USAGE;
  }
  o.app = argv + optind;
  /* The launcher inside the tracer would trace the launcher, not the ranks. */
  const char *base = strrchr(o.app[0], '/') ? strrchr(o.app[0], '/') + 1 : o.app[0];
  static const char *const launchers[] = {"mpirun", "mpiexec", "srun", "orterun", "aprun"};
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++)
    if (strncmp(base, launchers[i], strlen(launchers[i])) == 0 &&
        (!base[strlen(launchers[i])] || base[strlen(launchers[i])] == '.')) {
      log_error("%s launches the ranks: put the tracer after it, e.g. `%s -n 4 tracer ./app`",
                base, base);
      return TRACER_EXIT_USAGE;
    }
  struct rank_env rank;
  rank_env_read(&rank);
  if (rank.present && o.csv_path) {
    log_error("--csv writes the tally of one run: an MPI job's report has no CSV yet");
    return TRACER_EXIT_USAGE;
  }
  if (!rank.present && o.traced_ranks) {
    log_error("--traced-ranks needs an MPI launcher: mpirun -n N tracer --traced-ranks LIST APP");
    return TRACER_EXIT_USAGE;
  }
  int app_status = -1;
  int rc =
      rank.present ? command_job_rank(&o, &rank, &app_status) : command_run_app(&o, &app_status);
  command_end_as_app(app_status, rc);
}
