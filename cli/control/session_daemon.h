/* session_daemon: finds the LTTng session daemon that serves this job, or starts one and
 * later stops a private one (the rules are in session.h). Internal to the session
 * module. */
#ifndef TRACER_SESSION_DAEMON_H
#define TRACER_SESSION_DAEMON_H

#include "session.h"

#include <stdbool.h>
#include <sys/types.h>

struct session_daemon {
  bool started;        /* this job started it */
  pid_t pid;           /* the daemon serving this job, from its pid file; 0: unknown */
  char *run_dir;       /* owned: the started daemon's folder (pid file, sockets) */
  char *private_home;  /* owned: the LTTNG_HOME made for it; NULL as root or if shared */
  bool home_overridden; /* this process's LTTNG_HOME was set to private_home */
  char *saved_home;    /* owned: LTTNG_HOME before that, NULL when it was unset */
};

/* Makes sure a daemon answers liblttng-ctl, starting one if needed; a private one (not
 * root's) gets LTTNG_UST_CLOCK_PLUGIN=clock_plugin in its environment unless clock_plugin
 * is NULL. On failure nothing is left behind (no daemon, no folder, LTTNG_HOME as
 * before). */
enum session_status session_daemon_ensure(struct session_daemon *daemon, int timeout_ms,
                                          const char *clock_plugin, struct session_error *error);

/* The LTTNG_UST_CLOCK_PLUGIN the daemon serving this job runs with (read from its
 * environment; it may have been started by someone else), malloc'ed; NULL when it has
 * none or cannot be asked. Its apps must load the same plugin, and none when it has none:
 * the daemon writes the clock's description into the trace. */
char *session_daemon_clock_plugin(const struct session_daemon *daemon);

/* The pid of the daemon liblttng-ctl reaches now (from its pid file), 0 when unknown. */
pid_t session_daemon_reached_pid(void);

/* Whether the daemon that served this job (daemon->pid) still runs; false if unknown. */
bool session_daemon_still_running(const struct session_daemon *daemon);

/* Stops the daemon if this job started it privately (a normal user's; root's stays
 * running for the machine's other jobs), restores LTTNG_HOME and removes the private
 * home. flushed: the job's session is stopped, every buffer written out and its counts
 * read, so a private daemon is ended at once (daemon_end.h); else it is asked to stop.
 * Idempotent. */
enum session_status session_daemon_release(struct session_daemon *daemon, int timeout_ms,
                                           bool flushed, bool *stopped, bool *left_running,
                                           struct session_error *error);

#endif
