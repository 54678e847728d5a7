/* descendants: the processes an app started that outlive its main process (a forked
 * worker, a daemonized helper), which the tracer waits for by default (`--wait all`, as
 * Nsight Systems does) or counts (`--wait primary`).
 *
 * The tracer makes itself their subreaper (PR_SET_CHILD_SUBREAPER) before it starts the
 * app: a process of the app whose parent ends is then re-parented to the tracer rather
 * than to init, daemons included, so every process the app started is below the tracer
 * until it ends. Whatever the tracer started itself before that (a session daemon) was
 * re-parented to init already, or, where the tracer is its pid namespace's init (in a
 * container), to the tracer: what is below it when it adopts is not the app's. Its other
 * children (the sampler) are named to every call.
 *
 * Only the tracer's main thread calls these. Nothing prints: the caller says what happened.
 */
#ifndef TRACER_DESCENDANTS_H
#define TRACER_DESCENDANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Makes the tracer the subreaper of what it starts from now on. 0, or -1 (errno). */
int descendants_adopt(void);

/* The processes below the tracer, running (zombies reaped, not counted), but `except` (0:
 * none) and what is below it: how many there are, the first up to max of them in pids. */
size_t descendants_running(pid_t except, pid_t *pids, size_t max);

/* What stopped a wait. */
enum descendants_end {
  DESCENDANTS_NONE_LEFT, /* every process of the app ended */
  DESCENDANTS_SIGNALLED, /* the tracer got SIGINT, SIGTERM or SIGHUP: the wait stopped */
};

/* Called once, when the wait has lasted notice_ms, with the processes still running
 * (then, say, tell the user what the tracer waits for). */
typedef void descendants_notice(void *context, size_t running, const pid_t *pids, size_t shown);

/* Waits until no process is below the tracer but `except` and what is below it. SIGINT,
 * SIGTERM or SIGHUP sent to the tracer meanwhile: the first one sent by a process is
 * passed on to the processes still running, which decide (as during the app's run); one
 * from the terminal (Ctrl-C, which reached the app's processes in its group already), or
 * a second one, stops the wait. *signal_number says which stopped it. */
enum descendants_end descendants_wait(pid_t except, unsigned notice_ms, descendants_notice *notice,
                                      void *context, int *signal_number);

#endif
