/* session: the LTTng recording session of one tracer job, through liblttng-ctl.
 *
 *   session_begin()          find or start a session daemon, create the session, its one
 *                            UST channel, contexts vpid and vtid, the events; start
 *   session_app_environment() what the app's environment needs for this session
 *   session_track_process()  (between launch_start and launch_release) record the app
 *   session_end()            stop (data flushed), read loss counts, destroy, stop the
 *                            daemon this job started, remove its private home; none of
 *                            LTTng's fixed waits (session_flush.h, daemon_end.h)
 *
 * The daemon (policy and reasons: docs/session-daemon.md). A reachable daemon
 * (lttng_session_daemon_alive()) is used and left alone. Otherwise the job starts one with
 * `lttng-sessiond --daemonize --no-kernel` (found through LTTNG_SESSIOND_PATH, else PATH).
 * As a normal user it gets a private LTTNG_HOME (a fresh 0700 folder under $TMPDIR or
 * /tmp, removed at the end) and is stopped when the job ends; the tracer's own LTTNG_HOME
 * is set to it while the session lives, because that variable is the only way
 * liblttng-ctl finds a user's daemon, and the app must get it too
 * (session_app_environment). As root the daemon always lives in /var/run/lttng (there is
 * no way to give a root lttng-sessiond another run folder), so every root job on the
 * machine shares it: the job that started it leaves it running (daemon_left_running),
 * as `lttng create` does, because any other root job may be creating or using a session
 * on it at any moment.
 *
 * Which processes are recorded (enum session_scope). A daemon records, in each of its
 * sessions, every registered app that enables matching events, so two jobs on one
 * daemon would each record the other's app. On a shared daemon the session therefore
 * records only the processes given to session_track_process() (LTTng's vpid tracker);
 * the cost is that children the app forks are not recorded there. On a daemon private to
 * this job nothing else can register, so every process is recorded, forked children
 * included.
 *
 * Concurrent jobs on the root daemon. Jobs that find no daemon at once race to start
 * one; the losers (lttng-sessiond exits "already running") use the winner's once it
 * answers. A daemon that disappears half-way through the set-up (killed by someone)
 * makes the set-up start over (up to 3 times).
 *
 * A lost or silent daemon. SIGPIPE is ignored in this process (sigpipe_guard.h) and
 * every exchange with the daemon is bounded in time (daemon_watchdog.h): a daemon that
 * does not answer within the bound ends the process through the hang handler, with a
 * message naming the daemon and what became of the events. A daemon that died during
 * the job is reported by session_end() (daemon_lost): the events still in its buffers
 * are gone, the trace folder holds only what its consumer wrote before.
 *
 * Conventions: options are borrowed for the duration of session_begin(); a struct
 * session is owned by the caller and freed with session_free(). Functions return
 * SESSION_OK or a failure and fill *error with one sentence ("Cannot create session:
 * key=value, ...: cause"); they never print or exit. Not thread-safe: liblttng-ctl keeps
 * its connection in globals and session_begin sets LTTNG_HOME with setenv, so no two
 * session_* calls may run at once; session_track_process() may be called from another
 * thread while the main one only waits for the app.
 */
#ifndef TRACER_SESSION_H
#define TRACER_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Ring buffer defaults, per CPU (per-UID buffers: one set per CPU per user per session).
 * An enabled event costs about 100 ns and 36 bytes here, so one thread calling an API in
 * a tight loop writes up to roughly 150-300 MB/s, and 72 MB/s at a sustained 1M calls a
 * second. LTTng's consumer waits for each sub-buffer to reach the disk (sync_file_range),
 * so the buffers must outlast the storage's stalls: this machine's disk stalls up to
 * ~0.5 s, which 4 x 2 MiB (~110 ms at 72 MB/s) did not ride over in 1 run of 3 and
 * 16 x 2 MiB (~450 ms) did in 6 of 6. LTTng allocates the buffers for every CPU of the
 * machine, so the count is as many as fit in a budget over all CPUs, between the
 * minimum and the maximum: 16 on a small machine, 4 (8 MiB per CPU, 1 GiB on a 128-CPU
 * node) on a large one. */
#define SESSION_DEFAULT_SUBBUF_SIZE (2u * 1024u * 1024u)
#define SESSION_BUFFER_BUDGET (128u * 1024u * 1024u)
#define SESSION_MIN_DEFAULT_SUBBUF_COUNT 4u
#define SESSION_MAX_DEFAULT_SUBBUF_COUNT 16u

/* The metadata's ring buffer (one per session): room for the metadata of every event of
 * every preloaded backend in one turn of the consumer (session.c says why). */
#define SESSION_METADATA_SUBBUF_SIZE (512u * 1024u)
#define SESSION_METADATA_SUBBUF_COUNT 2u

/* The sub-buffer count used when none is given, for sub-buffers of subbuf_size bytes on
 * this machine (see above). */
uint64_t session_default_subbuf_count(uint64_t subbuf_size);

/* Bound on waiting for a daemon to start answering, and for one we stop to exit. Each
 * request to the daemon may take 3 times as long, and the stop (which waits for the
 * consumer to write every buffer out) and the destruction 12 times (2 minutes). */
#define SESSION_DEFAULT_DAEMON_TIMEOUT_MS 10000
#define SESSION_REQUEST_TIMEOUT_FACTOR 3
#define SESSION_FLUSH_TIMEOUT_FACTOR 12
/* How the process ends when the daemon does not answer in time and no hang handler was
 * set (session_set_hang_handler). */
#define SESSION_HANG_EXIT_STATUS 3
/* How often sub-buffers are written out even when not full, in microseconds. */
#define SESSION_SWITCH_TIMER_US 1000000u
/* The channel every event goes to but the counted entries. */
#define SESSION_CHANNEL_NAME "tracer"
/* The counted entries' own channel. One `counted` event stands for up to 65,536 calls,
 * and a full channel discards an event without telling which: in the one channel, the
 * entries written when calls turn counted (a bound reached, buffers still full of the
 * calls recorded before) were discarded with their calls. They are few, so a small
 * channel of their own holds them, whatever fills the other. An event pattern equal to
 * SESSION_COUNTED_EVENT is enabled there. */
#define SESSION_COUNTS_CHANNEL_NAME "counts"
#define SESSION_COUNTED_EVENT "lttng_ust_tracer:counted"
#define SESSION_COUNTS_SUBBUF_SIZE (16u * 1024u)
#define SESSION_COUNTS_SUBBUF_COUNT 4u

enum session_status {
  SESSION_OK = 0,
  SESSION_ERR_USAGE,  /* bad options */
  SESSION_ERR_OUTPUT, /* the output folder cannot be used */
  SESSION_ERR_DAEMON, /* no session daemon could be reached, started or stopped */
  SESSION_ERR_LTTNG,  /* the daemon refused a request */
  SESSION_ERR_SYSTEM, /* an OS call failed */
};

struct session_error {
  char message[2048]; /* one sentence (with the daemon's own output when it failed) */
};

enum session_scope {
  SESSION_SCOPE_AUTO = 0,      /* APP_PROCESSES on a shared daemon, ALL_PROCESSES else */
  SESSION_SCOPE_APP_PROCESSES, /* only pids given to session_track_process() */
  SESSION_SCOPE_ALL_PROCESSES, /* every app that registers with the daemon */
};

struct session_options {
  /* Where the trace goes. Created with mode 0700 (and missing parents) if absent; an
   * existing folder must be empty. Required. */
  const char *output_dir;
  /* UST event name patterns ("lttng_ust_opencl:*_entry"), NULL-terminated, at least
   * one. */
  const char *const *event_patterns; /* "PATTERN" or "PATTERN!EXCLUDED,EXCLUDED...": the
                                        events after '!' are left out (LTTng exclusions) */
  uint64_t subbuf_size;  /* bytes, a power of 2 >= the page size; 0: default */
  uint64_t subbuf_count; /* a power of 2 >= 2; 0: default */
  /* Block the app when the buffers are full instead of discarding events: no loss, but
   * the app slows down to the consumer's pace (and hangs if the consumer dies). Needs
   * LTTNG_UST_ALLOW_BLOCKING=1 in the app, which session_app_environment() adds. */
  bool blocking;
  /* Do not add LTTng's vpid and vtid contexts to the channel: the events carry their own
   * ids (about 30 ns an event cheaper). */
  bool no_id_contexts;
  enum session_scope scope;
  int daemon_timeout_ms; /* 0: SESSION_DEFAULT_DAEMON_TIMEOUT_MS */
  /* LTTNG_UST_CLOCK_PLUGIN for a private daemon this job starts (root's daemon, shared
   * by the machine, and a daemon already running keep their own); NULL: none. The app
   * gets whatever the serving daemon has, see session_app_environment(). */
  const char *clock_plugin;
};

/* What session_end() reports. */
struct session_end_report {
  /* The daemon that served the job was gone when the job ended (killed or crashed), or
   * had lost the session: the events still in its buffers are lost. */
  bool daemon_lost;
  pid_t daemon_pid; /* the daemon that served the job; 0 when unknown */
  bool counts_valid;         /* false when the daemon could not be asked */
  uint64_t discarded_events; /* events dropped because the buffers were full */
  uint64_t lost_packets;     /* packets the consumer could not write */
  bool daemon_stopped;       /* this job started the daemon and stopped it */
  bool daemon_left_running;  /* this job started root's daemon and left it running */
};

/* How long each step of the session took, in nanoseconds (0: not done): `tracer -v`
 * prints them and bench/fixed_cost.sh breaks a run's fixed cost down with them. */
struct session_timing {
  uint64_t daemon_ns;  /* finding the daemon, or starting one */
  uint64_t reap_ns;    /* destroying the sessions of killed tracers */
  uint64_t setup_ns;   /* creating the session, its channel and events; starting it */
  uint64_t stop_ns;    /* stopping it, until the consumer has written every buffer out */
  uint64_t counts_ns;  /* reading the loss counts */
  uint64_t destroy_ns; /* destroying the session */
  uint64_t release_ns; /* stopping a daemon this job started */
};

struct session; /* opaque */

enum session_status session_begin(const struct session_options *options,
                                  struct session **session_out, struct session_error *error);

/* "NAME=value" entries the app's environment needs (LTTNG_HOME for a private daemon,
 * LTTNG_UST_ALLOW_BLOCKING=1 for a blocking channel, the daemon's
 * LTTNG_UST_CLOCK_PLUGIN), NULL-terminated, possibly empty. Borrowed from the session. */
const char *const *session_app_environment(const struct session *session);

/* Names the app's environment must not have (LTTNG_UST_CLOCK_PLUGIN when the daemon has
 * none: the app's events would be stamped with a clock the trace does not describe),
 * NULL-terminated, possibly empty. */
const char *const *session_app_environment_removed(const struct session *session);

/* Records the process pid (the app, before it runs). A no-op when the session records
 * every process. */
enum session_status session_track_process(struct session *session, pid_t pid,
                                          struct session_error *error);

/* Ends the session: every step is tried even when one fails, and the first failure is
 * returned. Safe after the app died or was never started, and idempotent: a second call
 * returns the first call's report and SESSION_OK. report may be NULL. */
enum session_status session_end(struct session *session, struct session_end_report *report,
                                struct session_error *error);

/* Ends the session if needed (errors are dropped) and frees it. NULL is ok. */
void session_free(struct session *session);

/* Destroys the sessions that tracers on this host left behind when they were killed
 * (named tracer-HOST-PID-*, PID no longer running), which writes out what their buffers
 * still hold. Uses whatever session daemon this process reaches; does nothing without
 * one. session_begin() calls it; `tracer -r` calls it for a trace whose run never
 * ended. */
void session_reap_stale(void);

/* Whether the process pid (a tracer) still runs: a killed tracer whose parent died too
 * stays a zombie until init reaps it, which signal 0 cannot tell from a live process.
 * True when it cannot tell. */
bool session_tracer_alive(pid_t pid);

/* Whether a session daemon answers (LTTNG_HOME's, the user's or root's); false too when
 * liblttng-ctl cannot be loaded. */
bool session_daemon_alive(void);

/* What a trace folder holds once the session ended. */
enum session_trace_content {
  SESSION_TRACE_COMPLETE,    /* a metadata file and event streams, all non-empty */
  SESSION_TRACE_NO_METADATA, /* no non-empty metadata file: nothing can be decoded */
  SESSION_TRACE_NO_EVENTS,   /* metadata, but no non-empty event stream */
};

/* Looks at the folder a session wrote (the consumer's ust/uid/UID/64-bit/ or
 * ust/pid/... folders): whether "trace saved" can be said of it. */
enum session_trace_content session_trace_content(const char *output_dir);

/* What to do when the daemon does not answer a request in time: called from a watchdog
 * thread with one sentence ("Cannot stop tracing: session=..., the session daemon
 * (lttng-sessiond, pid N) did not answer within 120 s: ..."), while the requesting thread
 * is still blocked in liblttng-ctl. It must end the process (_exit) and should only make
 * async-signal-safe calls. The default writes the sentence to stderr and exits with
 * SESSION_HANG_EXIT_STATUS. NULL restores the default. */
typedef void (*session_hang_handler)(const char *message);
void session_set_hang_handler(session_hang_handler handler);

/* The steps' durations so far (borrowed from the session). */
const struct session_timing *session_timing(const struct session *session);

const char *session_name(const struct session *session);
/* The output folder as an absolute path. */
const char *session_output_dir(const struct session *session);
/* Whether session_begin() made the output folder (it did not exist before). */
bool session_output_created(const struct session *session);
/* The private LTTNG_HOME of a daemon this job started, NULL otherwise. */
const char *session_lttng_home(const struct session *session);
bool session_started_daemon(const struct session *session);
/* When the daemon that answered could not serve (its consumer daemon died: "No UST
 * consumer detected", or "Fatal error of the session daemon" from a daemon still
 * running), session_begin() started one for this job alone (session_daemon.h) and this
 * returns one sentence with the cause and the fix; NULL otherwise. */
const char *session_daemon_trouble(const struct session *session);
/* Whether only tracked processes are recorded (the scope in effect). */
bool session_records_tracked_only(const struct session *session);

#endif
