/* launch: runs the traced application as a child of the tracer.
 *
 * The app runs with the tracer's environment plus:
 *   LD_PRELOAD = the interposer libraries, then liblttng-ust-fork (so that children the
 *                app forks keep tracing), then whatever LD_PRELOAD the user already had;
 *   the entries the session asks for (LTTNG_HOME, LTTNG_UST_ALLOW_BLOCKING);
 *   LTTNG_UST_REGISTER_TIMEOUT, unless the user already set it (see below).
 * It inherits stdin, stdout, stderr and every other descriptor the tracer inherited
 * (MPI launchers pass sockets that way, PMI_FD for one); the launcher's own descriptors
 * are close-on-exec. argv[0] is resolved through PATH like a shell does.
 *
 * Three steps, so that the session can track the app's pid before it runs any code:
 *   launch_start()   forks; the child waits before exec
 *   launch_release() lets it exec, and reports an exec failure
 *   launch_wait()    forwards signals while the app runs and returns its wait status
 *
 * LD_PRELOAD also holds liblttng-ust-fd (before liblttng-ust-fork): an app that closes
 * every descriptor it does not know of (daemons and some MPI launchers do, 0 to 1023)
 * would close LTTng-UST's too, which then aborts the app at exit; liblttng-ust-fd's close()
 * and fclose() leave LTTng's own descriptors open and change nothing else.
 *
 * Signals. The app stays in the tracer's process group, so it keeps the terminal
 * exactly as it would untraced (it can read it, Ctrl-Z stops both, `fg` resumes both).
 * From launch_start() until launch_wait() returns, the tracer catches SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 and forwards each one to the app, except those
 * the kernel generated for the whole foreground group (Ctrl-C,
 * Ctrl-\, terminal hang-up: si_code SI_KERNEL): the app received those itself already,
 * and forwarding them would deliver them twice. A signal that a process sends to the
 * whole group (kill -SIG -PGID, a shell's SIGHUP to its jobs) reaches the app directly
 * and through the tracer, so twice: siginfo cannot tell it apart from one sent to the
 * tracer alone. A signal the tracer ignored (nohup, a background job of a script) starts
 * ignored in the app too, as exec would leave it, but is still forwarded: the app may
 * have installed a handler, as it could untraced. Handlers are process-wide state: one
 * launch at a time, from the main thread, and the caller must not ignore SIGCHLD.
 *
 * A rank of an MPI job (end_signal set) is the exception: there is no terminal, and the
 * launcher ends a job by signalling each rank's process group, then killing it (SIGKILL,
 * at once under Hydra). The app then runs in a process group of its own, to which the
 * forwarded signals go, with end_signal as its parent-death signal (PR_SET_PDEATHSIG): when
 * the launcher kills the tracer, the app's runtime writes what it has and kills the app's
 * group (runtime/tracer_signals.h), as the launcher's kill would have, instead of dying
 * with nothing written.
 *
 * Ownership: every pointer in a request is borrowed for the duration of launch_start();
 * a struct launch_process is owned by the caller and freed with launch_free(). Functions
 * return LAUNCH_OK or a failure and fill *error with one sentence ("Cannot run app:
 * ..."); they never print or exit.
 */
#ifndef TRACER_LAUNCH_H
#define TRACER_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

/* How long the app's lttng-ust constructor waits for the session daemon to send its
 * enabled events before main() runs, in ms (lttng-ust's own default is 3000). A
 * registration takes milliseconds on an idle daemon, but one daemon per node serves
 * every rank that starts at once, and the events a run misses while not registered are
 * the first calls (initialisation) that the tables need. The wait ends as soon as the
 * daemon answers, so a generous bound costs nothing in the normal case and only limits
 * the delay when the daemon is stuck. */
#define LAUNCH_DEFAULT_REGISTER_TIMEOUT_MS 10000

enum launch_status {
  LAUNCH_OK = 0,
  LAUNCH_ERR_USAGE,          /* the request is wrong (no command, bad library path) */
  LAUNCH_ERR_NOT_FOUND,      /* the command does not exist: a shell would exit 127 */
  LAUNCH_ERR_NOT_EXECUTABLE, /* it exists but cannot be executed: a shell would exit 126 */
  LAUNCH_ERR_SYSTEM,         /* fork, pipe or wait failed */
};

struct launch_error {
  char message[1024]; /* one sentence, empty on success */
};

struct launch_request {
  /* The command and its arguments, NULL-terminated. Required. */
  const char *const *argv;
  /* Interposer libraries to preload, in order, NULL-terminated; may be NULL. */
  const char *const *preload_libraries;
  /* Entries "NAME=value" that replace or add to the environment, NULL-terminated; may be
   * NULL. Pass session_app_environment() here. */
  const char *const *extra_environment;
  /* Names removed from the inherited environment, NULL-terminated; may be NULL. Pass
   * session_app_environment_removed() here. */
  const char *const *removed_environment;
  /* liblttng-ust-fork to preload; NULL means the one next to liblttng-ust at build time
   * (launch_default_ust_fork_library()). */
  const char *ust_fork_library;
  /* A rank of a job: the parent-death signal of an app in a process group of its own (see
   * above); 0 for an app in the tracer's group. */
  int end_signal;
  /* LTTNG_UST_REGISTER_TIMEOUT in ms; 0 means LAUNCH_DEFAULT_REGISTER_TIMEOUT_MS. An
   * explicit LTTNG_UST_REGISTER_TIMEOUT in the environment wins over both: a user who
   * set it chose the trade-off between startup delay and early events. */
  int register_timeout_ms;
};

struct launch_process; /* opaque */

/* Finds command as launch_start() will (through PATH as a shell does): LAUNCH_OK with
 * *path_out (malloc'ed, owned by the caller), or LAUNCH_ERR_NOT_FOUND,
 * LAUNCH_ERR_NOT_EXECUTABLE with the sentence in *error. For a caller that wants to know
 * before it prepares anything for the app (its trace folder). */
enum launch_status launch_resolve(const char *command, char **path_out,
                                  struct launch_error *error);

/* Resolves the command, builds the app's environment and forks. The child has not run
 * any of the app's code yet: call launch_pid() to track it, then launch_release(). The
 * signal forwarders are installed from here on. */
enum launch_status launch_start(const struct launch_request *request,
                                struct launch_process **process_out,
                                struct launch_error *error);

/* The app's process id (valid from launch_start() until launch_free()). */
pid_t launch_pid(const struct launch_process *process);

/* The command's resolved path and the LD_PRELOAD value it runs with (borrowed). */
const char *launch_command_path(const struct launch_process *process);
const char *launch_preload_value(const struct launch_process *process);

/* Lets the child exec the app. When exec itself fails (an ELF for another machine, a
 * file that became unreadable), the child has already exited with 126 or 127 and
 * this returns LAUNCH_ERR_NOT_EXECUTABLE or LAUNCH_ERR_NOT_FOUND with the reason. */
enum launch_status launch_release(struct launch_process *process, struct launch_error *error);

/* Waits for the app to end, forwarding signals meanwhile, then restores the tracer's
 * signal handling. *wait_status is the raw status from waitpid(). Calling it again
 * returns the same status. */
enum launch_status launch_wait(struct launch_process *process, int *wait_status,
                               struct launch_error *error);

/* Frees the process. A child that was never released is told to exit and reaped; one
 * that was released but not waited for keeps running (it is not killed). NULL is ok. */
void launch_free(struct launch_process *process);

/* The exit code a shell gives for a wait status: the exit status, or 128 + the signal
 * number for a process killed by a signal. */
int launch_exit_code(int wait_status);

/* Describes a wait status: "exited with status 3", "killed by signal 9 (SIGKILL)",
 * "killed by signal 11 (SIGSEGV), core dumped". Returns buffer. */
const char *launch_describe_status(int wait_status, char *buffer, size_t size);

/* The exit code a shell gives when it cannot run a command: 127 for LAUNCH_ERR_NOT_FOUND,
 * 126 for LAUNCH_ERR_NOT_EXECUTABLE, 0 for LAUNCH_OK, 1 otherwise. */
int launch_status_exit_code(enum launch_status status);

/* The liblttng-ust-fork path: $TRACER_UST_FORK_LIBRARY when set, else the one the build
 * found (libdir of liblttng-ust). */
const char *launch_default_ust_fork_library(void);
/* The same for liblttng-ust-fd ($TRACER_UST_FD_LIBRARY). */
const char *launch_default_ust_fd_library(void);

#endif
