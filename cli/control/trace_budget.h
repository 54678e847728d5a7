/* trace_budget: how much a run may write where its trace goes, and the watch that keeps
 * it to that (docs/reliability.md).
 *
 *   trace_budget_plan()   the bound (--max-size, else the free space less a margin), the
 *                         buffers that fit it, the free space against a short run's need
 *   trace_budget_start()  a thread that watches the trace folder's size and the file
 *                         system's free space while the app runs
 *   trace_budget_finish() stops the watch and says what happened
 *
 * A full file system loses more than the events that do not fit: LTTng's consumer then
 * fails to write the trace's metadata or whole packets, and the session's destruction
 * fails ("Rotation failure on consumer"). So the trace must never reach the bound. The
 * watch looks every TRACE_BUDGET_POLL_MS near the bound; when the folder's size, plus what the buffers
 * may still hold, plus what the app writes before the next look, would pass the bound (or
 * the free space), it writes a non-zero word into the limit file that every traced
 * process maps (runtime/tracer_recording.h): from then on their calls are counted with
 * their times (lttng_ust_tracer:counted events), not recorded, and the tallies stay
 * complete. Should the trace still grow to the bound (a process that could not map the
 * file), the watch stops the session. Another writer may still fill the file system to
 * the last byte: LTTng then loses the packets it cannot write (the metadata is written
 * out every second, session.c), and trace_budget_trim_packets() cuts what was written
 * short. Library code: returns statuses, never prints.
 */
#ifndef TRACER_TRACE_BUDGET_H
#define TRACER_TRACE_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* What a traced call takes on disk, by mode: 1M calls of clGetPlatformIDs made a trace
 * of 38 MB with -m minimal, 70 MB in the default mode, 78 MB with -m full. */
#define TRACE_BYTES_PER_CALL_MINIMAL 38u
#define TRACE_BYTES_PER_CALL_DEFAULT 70u
#define TRACE_BYTES_PER_CALL_FULL 78u
/* A short run, for the warning before the app starts: a million calls. */
#define TRACE_SHORT_RUN_CALLS 1000000u
/* How often the watch looks near the bound (every 100 ms far from it). */
#define TRACE_BUDGET_POLL_MS 10
/* The name of the limit file in the trace folder while the app runs (removed after). */
#define TRACE_LIMIT_FILE ".tracer-limit"

struct trace_budget_plan {
  uint64_t free_bytes; /* free space where the trace goes, before the run */
  uint64_t bound;      /* the most the trace folder may hold */
  bool bound_given;    /* from --max-size (else the free space less a margin, which also
                          bounds a larger --max-size) */
  /* Sub-buffers that fit the bound: 0 when the defaults fit (the session's own). */
  uint64_t subbuf_size, subbuf_count;
  uint64_t buffer_bytes; /* what all the buffers hold at most (per-CPU, all CPUs) */
  unsigned bytes_per_call;  /* of the mode: the processes' call budget is the bound's */
  uint64_t short_run_bytes; /* what TRACE_SHORT_RUN_CALLS calls take in the mode */
};

enum trace_budget_reason {
  TRACE_BUDGET_NOT_REACHED = 0,
  TRACE_BUDGET_MAX_SIZE,  /* the trace reached --max-size */
  TRACE_BUDGET_DISK_FULL, /* the file system (or the margin kept on it) filled up */
};

/* What the watch saw, once finished. */
struct trace_budget_result {
  enum trace_budget_reason reason;
  uint64_t at_ns;       /* when, from the watch's start (the app's start) */
  uint64_t bytes_at;    /* the trace folder's size then */
  uint64_t kept_bytes;  /* its size at the end (trace_budget_measure_end) */
  bool counting;        /* the traced processes were told to count calls from then on */
  bool session_stopped; /* the trace still grew to the bound: the session was stopped */
  bool disk_full;       /* the file system had no free space left at some look */
  bool full_at_end;     /* and still none at the end: the counted events may be lost too */
  uint64_t clock_read_least; /* the processes' least clock read cost (tracer_limit.h), 0: none */
};

/* Plans a run whose trace goes to trace_dir (or the nearest parent that exists):
 * max_size (bytes, 0: the default bound), bytes_per_call of the mode, subbuf_size and
 * subbuf_count asked by the user (0: the session's defaults, which the plan may make
 * smaller to fit the bound). Returns 0, or -1 with errno when the free space cannot be
 * read. */
int trace_budget_plan(const char *trace_dir, uint64_t max_size, unsigned bytes_per_call,
                      uint64_t subbuf_size, uint64_t subbuf_count, struct trace_budget_plan *plan);

struct trace_budget; /* opaque */

/* Creates the limit file in trace_dir (its path is then trace_budget_limit_file()) and
 * starts the watch. session_name: the LTTng session to stop as a last resort. Returns
 * NULL with errno set on failure. */
struct trace_budget *trace_budget_start(const struct trace_budget_plan *plan,
                                        const char *trace_dir, const char *session_name);
const char *trace_budget_limit_file(const struct trace_budget *budget);
/* Stops the watch (when the app ended, before the session ends: the watch may ask the
 * daemon to stop the session, and no two threads may talk to it at once), fills *result
 * but for kept_bytes and full_at_end, removes the limit file and frees. NULL is ok
 * (result zeroed). */
void trace_budget_finish(struct trace_budget *budget, struct trace_budget_result *result);
/* Once the session ended: what the trace folder keeps, and whether the file system is
 * still full (the counted events written at the app's end may then be lost). */
void trace_budget_measure_end(const char *trace_dir, struct trace_budget_result *result);

/* After the file system was full: cuts each event stream under trace_dir (LTTng-UST's
 * packets, native byte order) after its last whole packet, and its index (index/NAME.idx)
 * to the packets the file holds, so that readers find whole packets only and the index
 * lists what the trace keeps (a packet not written whole is lost in the recording, which
 * the report says, not from the file). Returns the streams cut. */
unsigned trace_budget_trim_packets(const char *trace_dir);

/* The bytes under dir (files' allocated or apparent size, the larger). */
uint64_t trace_budget_folder_bytes(const char *dir);

/* "12.3 MiB", "800 KiB", "17 B" into text. */
void trace_budget_format_bytes(uint64_t bytes, char *text, unsigned long size);

#endif
