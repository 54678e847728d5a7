/* session_daemon: finds the LTTng session daemon that serves this job, or starts one and
 * later stops a private one (the rules are in session.h). Internal to the session
 * module. */
#ifndef TRACER_SESSION_DAEMON_H
#define TRACER_SESSION_DAEMON_H

#include "session.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct session_daemon {
  bool started;        /* this job started it */
  pid_t pid;           /* the daemon serving this job, from its pid file; 0: unknown */
  char *run_dir;       /* owned: the started daemon's folder (pid file, sockets) */
  char *private_home;  /* owned: the LTTNG_HOME made for it; NULL as root or if shared */
  bool home_overridden; /* this process's LTTNG_HOME was set to private_home */
  char *saved_home;    /* owned: LTTNG_HOME before that, NULL when it was unset */
  /* Root's daemon of this job alone, in a mount namespace of this process where a fresh
   * /var/run/lttng hides the machine's (session_daemon_ensure's own): stopped at the end. */
  bool own_namespace;
};

/* Makes sure a daemon answers liblttng-ctl, starting one if needed; a private one (not
 * root's) gets LTTNG_UST_CLOCK_PLUGIN=clock_plugin in its environment unless clock_plugin
 * is NULL. own: the daemon that answers cannot serve (its consumer died): start one for
 * this job alone whatever answers. A user's gets a private LTTNG_HOME as usual; root's
 * needs a mount namespace of this process (the app, started after, inherits it) with a
 * fresh tmpfs on /var/run/lttng, since a root daemon and root apps know no other folder;
 * without CAP_SYS_ADMIN that fails with SESSION_ERR_DAEMON. On failure nothing is left
 * behind (no daemon, no folder, LTTNG_HOME as before). */
enum session_status session_daemon_ensure(struct session_daemon *daemon, int timeout_ms,
                                          const char *clock_plugin, bool own,
                                          struct session_error *error);

/* The LTTNG_UST_CLOCK_PLUGIN the daemon serving this job runs with (read from its
 * environment; it may have been started by someone else), malloc'ed; NULL when it has
 * none or cannot be asked. Its apps must load the same plugin, and none when it has none:
 * the daemon writes the clock's description into the trace. */
char *session_daemon_clock_plugin(const struct session_daemon *daemon);

/* The folder of the daemon liblttng-ctl reaches: root's /var/run/lttng, or
 * $LTTNG_HOME/.lttng (else $HOME/.lttng) for a user; malloc'ed, NULL out of memory. */
char *session_daemon_reached_run_dir(void);

/* The pid of the daemon liblttng-ctl reaches now (from its pid file), 0 when unknown. */
pid_t session_daemon_reached_pid(void);

/* Whether the daemon pid has a consumer daemon (an lttng-consumerd child); true when it
 * cannot tell. */
bool session_daemon_has_consumer(pid_t pid);

/* One sentence for a daemon pid (0: unknown) that answers but cannot serve, having
 * refused with lttng_error (negative; no_consumer: a "no consumer" error): the cause and
 * the fix (session_daemon_trouble). */
void session_daemon_describe_trouble(pid_t pid, int lttng_error, bool no_consumer, char *text,
                                     size_t size);

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
