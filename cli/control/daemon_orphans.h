/* daemon_orphans: the private session daemon that a killed tracer left behind.
 *
 * A normal user's tracer starts a session daemon private to its run (its LTTNG_HOME a
 * temporary folder, which the run record names while the app runs). Killed with its job
 * (SIGKILL at a batch time limit, an MPI launcher stopping every rank), the tracer can
 * neither destroy its session, whose last events stay in the daemon's buffers, nor stop
 * the daemon, which runs on. `tracer -r` on such a trace calls daemon_orphan_flush():
 * in that daemon, the sessions of tracers no longer running are destroyed (which writes
 * out what their buffers hold, session_reap_stale()); a daemon then left without sessions
 * is stopped and its folder removed. A daemon whose tracer still runs is left alone. */
#ifndef TRACER_DAEMON_ORPHANS_H
#define TRACER_DAEMON_ORPHANS_H

#include <stdbool.h>
#include <sys/types.h>

/* Flushes and stops the orphaned daemon whose LTTNG_HOME is home (a folder this user
 * owns), which tracer (its pid) started; nothing while that tracer still runs. A home
 * whose daemon is gone (the tracer was killed while it stopped it) is removed. True when
 * nothing of the run is left in a daemon. */
bool daemon_orphan_flush(const char *home, pid_t tracer);

#endif
