/* daemon_watchdog: a time bound on every exchange with the LTTng session daemon.
 *
 * liblttng-ctl waits for the daemon's answer without a time limit, so a daemon that is
 * stopped (SIGSTOP), deadlocked or swamped would hang the tracer, and with it a batch
 * job, for ever. Each exchange is watched: daemon_watchdog_arm() before it,
 * daemon_watchdog_disarm() after. A call blocked inside liblttng-ctl cannot be unwound,
 * so when a watch outlives its bound a watchdog thread passes its message (one sentence,
 * formatted at arm time) to the hang handler, which reports it and ends the process.
 * Thread-safe; several watches may be armed at once (the fork listener's thread tracks
 * children while the main thread waits). */
#ifndef TRACER_DAEMON_WATCHDOG_H
#define TRACER_DAEMON_WATCHDOG_H

#include "session.h"

/* Arms a watch of timeout_ms; returns its slot for disarm, or -1 when it could not be
 * armed (no memory, no thread, all slots taken): the exchange then runs unwatched. */
int daemon_watchdog_arm(int timeout_ms, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Disarms the watch in slot (a -1 slot is ignored). */
void daemon_watchdog_disarm(int slot);

/* The handler session_set_hang_handler() installed, or the default one. */
void daemon_watchdog_set_handler(session_hang_handler handler);

#endif
