/* fork_listener: keeps a session that records only the app's processes (a shared session
 * daemon, see session.h) recording the children the app forks.
 *
 * The runtime in each traced process sees its forks (pthread_atfork) and, in the child,
 * before LTTng-UST registers the child with the daemon, sends the child's pid over the
 * Unix socket named by TRACER_FORK_SOCKET and waits for the reply. The listener adds
 * the pid to the session's tracker, then replies. A child that execs keeps its pid, so
 * it stays recorded.
 */
#ifndef TRACER_FORK_LISTENER_H
#define TRACER_FORK_LISTENER_H

#include "session.h"

struct fork_listener;

/* Starts listening on a socket in a fresh private folder. Returns NULL (errno set) on
 * failure. env_entry is "TRACER_FORK_SOCKET=PATH" for the app's environment (borrowed). */
struct fork_listener *fork_listener_start(struct session *session, const char **env_entry);
/* Stops the listener, removes its socket and folder; returns how many children it added. */
unsigned fork_listener_stop(struct fork_listener *listener);

#endif
