/* daemon_end: ends at once a private session daemon whose session is flushed. Internal to
 * the session module.
 *
 * Asked to stop (SIGTERM), lttng-sessiond 2.13 first destroys every session it holds and
 * waits until each one's last trace chunk is found closed, a check its rotation thread
 * makes 500 ms after the destruction (DEFAULT_ROTATE_PENDING_TIMER): half a second on
 * every run that starts its own daemon. A private daemon (a normal user's, started by the
 * job for itself alone: docs/session-daemon.md) whose one session was stopped with every
 * buffer written out, the metadata included, and whose loss counts were read holds
 * nothing of the trace any more; SIGKILL to its process group (lttng-sessiond
 * --daemonize leads one: its run-as worker and its consumer daemons are in it) ends it
 * and its consumers without that wait. Everything else (root's daemon, a user's own, a
 * session that could not be flushed) is left to the daemon's own exit. */
#ifndef TRACER_DAEMON_END_H
#define TRACER_DAEMON_END_H

#include <stdbool.h>
#include <sys/types.h>

/* SIGKILL to the process group that the session daemon daemon_pid leads, then waits up to
 * timeout_ms until no process of the group is left but zombies. False when the group
 * could not be signalled (daemon_pid leads none) or is still there at the deadline. */
bool daemon_end_group(pid_t daemon_pid, int timeout_ms);

#endif
