/* tracer_signals: what the runtime does when a signal ends the process, out of the app's
 * sight (docs/reliability.md).
 *
 * A process that dies of a signal leaves behind what its threads had not written yet: its
 * calls in flight, minimal mode's batches, counted entries. So the runtime handles the
 * signals that end a process: a crash (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) and the
 * signals whose default action ends it (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2, SIGPIPE, SIGALRM, SIGXCPU).
 *
 * The app and its libraries must see and set those signals' dispositions as if the
 * runtime were not there: Open MPI installs its crash report only where no handler is set,
 * Python its KeyboardInterrupt only where SIGINT is SIG_DFL. The runtime defines sigaction,
 * signal and their aliases: for a handled signal it keeps the disposition the app asked
 * for (the app's view, which sigaction returns as the old one) and installs its own
 * handler in the kernel with the app's mask and flags. When the signal comes, the handler
 * writes what is pending where the process is to end (a crash, or a disposition left at
 * SIG_DFL; a handler of the app's may keep the process alive, so only a crash writes
 * before it), then does what the app's view says: calls the app's handler, or the default
 * action. A disposition of SIG_IGN is the kernel's own (nothing to write). A library that
 * sets a disposition with the raw system call replaces the runtime's handler; chained to,
 * that handler still does what the view says.
 *
 * The end of a job: the tracer of an MPI rank runs its app in a process group of its own,
 * with a parent-death signal (TRACER_END_SIGNAL, docs/multi-rank.md). When the launcher
 * kills the rank's tracer, the app gets that signal: the handler writes what is pending
 * and kills the app's process group with SIGKILL, as the launcher's kill of the rank's
 * group would have.
 */
#ifndef TRACER_SIGNALS_H
#define TRACER_SIGNALS_H

/* Installs the runtime's handlers; from the runtime's constructor, once. */
void tracer_signals_init(void);

#endif
