/* sigpipe_guard: keeps a lost session daemon from killing the tracer with SIGPIPE.
 *
 * liblttng-ctl writes its requests to the daemon's socket without MSG_NOSIGNAL, so a
 * daemon that dies between the connect and the write raises SIGPIPE in the tracer. The
 * tracer process therefore ignores SIGPIPE once it talks to a daemon (the write then
 * fails with EPIPE and liblttng-ctl returns an error), and the apps it launches get back
 * the disposition the tracer had before: an app must not run with SIGPIPE ignored because
 * the tracer does. */
#ifndef TRACER_SIGPIPE_GUARD_H
#define TRACER_SIGPIPE_GUARD_H

/* Ignores SIGPIPE in this process, remembering the disposition it replaces. Idempotent. */
void sigpipe_guard_install(void);

/* In a forked child before exec: SIGPIPE as it was before sigpipe_guard_install().
 * Async-signal-safe; a no-op when the guard was never installed. */
void sigpipe_guard_restore_in_child(void);

#endif
