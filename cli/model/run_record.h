/* run_record: what the tracer knows about a run that the trace itself does not say: the
 * command, how the app ended, and the losses the session reported. Kept next to the
 * trace (tracer-run.txt, one `key: value` per line) so `tracer -r` reports them too. */
#ifndef TRACER_RUN_RECORD_H
#define TRACER_RUN_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

struct run_record {
  bool present;
  char command[1024];   /* the app and its arguments, space-separated */
  char status[128];     /* "exited with status 3", "killed by signal 11 (SIGSEGV)" */
  int exit_code;        /* as a shell reports it: 128+N for signal N */
  bool clean;           /* exited with status 0 */
  uint64_t discarded_events, lost_packets;
  uint64_t wall_ns;     /* from the app's start to its end; 0 if unknown */
  /* What recording costs on the machine that ran it (tracing_cost.h); 0 if unknown. */
  uint64_t event_ps, byte_ps, call_ps;
  long job_ranks;       /* a rank of a job: the ranks its launcher started; 0 otherwise */
  /* The least clock read cost of the app's processes, in trace clock units (0: unknown):
   * the readers take it off every call's end (trace_reader.h). */
  uint64_t clock_read_least;
  /* While the app runs: the LTTNG_HOME of the session daemon private to this run (a
   * normal user's), empty for root's shared daemon; the tracer's host and pid. A killed
   * tracer leaves them for `tracer -r` to flush (daemon_orphans.h), and to say whether a
   * rank of a job still runs. */
  char daemon_home[512];
  char daemon_host[256];
  long tracer_pid; /* the tracer that started it */
  long app_pid;    /* the app's main process (while it runs) */
  /* The trace stops early (cli/control/trace_budget.h): why, when (from the app's start),
   * how much it keeps, and whether the calls after were counted (counted events). */
  enum run_partial { RUN_PARTIAL_NONE, RUN_PARTIAL_MAX_SIZE, RUN_PARTIAL_DISK_FULL }
      partial_reason;
  uint64_t partial_at_ns, kept_bytes;
  bool partial_counting;
  /* When the app's main process ended, wall-clock ns since the epoch (0: unknown): which
   * rank of a job died first. */
  uint64_t ended_at_ns;
  /* Processes of the app still running when the tracer stopped recording (--wait primary,
   * or a wait the user stopped): their calls after that are not in the trace. */
  long processes_left;
  /* The run was asked for a library's own calls (--runtime-calls): the reports count them
   * as the app's. */
  bool runtime_calls;
  /* Where it was read from (run_record_load): the file, and wall_ns's line (0: none), for
   * what the analysis says when the trace contradicts it. */
  char path[4096];
  unsigned wall_ns_line;
};

/* "max-size", "disk-full" or "" (none), as the record and the JSON report write it. */
const char *run_partial_name(enum run_partial reason);

#define RUN_RECORD_FILE "tracer-run.txt"

/* Returns 0, or -1 (errno set) when the file cannot be written. */
int run_record_write(const char *trace_dir, const struct run_record *record);
/* Fills record (present=false when the trace has no record, or it does not say how the
 * app ended). Every line is checked: a known key, once, a value of its kind and range,
 * and lines that agree (exit_code and status; partial_at_ns within wall_ns); a bad line
 * is left out, its field unknown, with a cause in problems (NULL: not said) naming the
 * file and line ("DIR/tracer-run.txt:4: Cannot use discarded_events: '-1' is not a
 * count"). Returns the bad lines. */
int run_record_load(const char *trace_dir, struct run_record *record, struct diag *problems);
/* run_record_load without the causes. */
void run_record_read(const char *trace_dir, struct run_record *record);

#endif
