/* daemon_namespace: whether the session daemon that answers lives in another mount
 * namespace than the tracer (a container's, a service's private /tmp). Its consumer then
 * writes the trace in that namespace's files, where neither the tracer nor the user can
 * read it, and a run used to end in `the app never registered with the session daemon`.
 * The daemon is found by its socket (the peer's credentials: its pid as this process's
 * pid namespace numbers it), which a pid file written in another pid namespace is not.
 * Internal to the session module; no messages. */
#ifndef TRACER_DAEMON_NAMESPACE_H
#define TRACER_DAEMON_NAMESPACE_H

#include <stdbool.h>
#include <stddef.h>

/* True when the daemon behind run_dir's client socket (run_dir: its folder,
 * session_daemon_reached_run_dir) is in another mount namespace, or in a pid namespace
 * this process cannot see into (so not its own files either); text then says which
 * daemon and where, for "...; this job runs with a session daemon of its own". False
 * when it is this namespace's, or when that cannot be told (no socket, /proc unreadable). */
bool daemon_namespace_elsewhere(const char *run_dir, char *text, size_t size);

#endif
