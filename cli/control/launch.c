/* launch: fork, hold, exec and wait for the traced app, forwarding signals meanwhile. */
#include "control_error.h"
#include "launch.h"

#include "launch_env.h"
#include "path_search.h"
#include "sigpipe_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TRACER_UST_FORK_LIBRARY
#error "TRACER_UST_FORK_LIBRARY must name liblttng-ust-fork (set by cli/CMakeLists.txt)"
#endif
#ifndef TRACER_UST_FD_LIBRARY
#error "TRACER_UST_FD_LIBRARY must name liblttng-ust-fd (set by cli/CMakeLists.txt)"
#endif

enum launch_state {
  LAUNCH_STATE_HELD,    /* forked, waiting for the release byte */
  LAUNCH_STATE_RUNNING, /* released: the app runs (or exec is under way) */
  LAUNCH_STATE_ENDED,   /* reaped; wait_status is valid */
};

struct launch_process {
  pid_t pid;
  enum launch_state state;
  int wait_status;
  int release_fd;    /* our end of the socket pair the held child reads; -1 when closed */
  int exec_error_fd; /* read end of the close-on-exec pipe that reports exec errors */
  char *command_path;  /* owned */
  char *preload_value; /* owned */
};

/* The signals a user sends to "the app" by signalling the tracer. */
static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define FORWARDED_COUNT (sizeof forwarded_signals / sizeof forwarded_signals[0])

/* Process-wide forwarding state: signal handlers cannot take arguments. */
static struct sigaction saved_actions[FORWARDED_COUNT];
static bool handler_installed[FORWARDED_COUNT];
static volatile sig_atomic_t forward_target; /* the app's pid, 0 when none; -pgid: its group */
static bool forwarding_active;


static void forward_signal(int signal_number, siginfo_t *info, void *context)
{
  (void)context;
  /* The terminal sends Ctrl-C, Ctrl-\ and hang-up to the whole foreground group, the app
   * included: it has its copy already. */
  if (info != NULL && info->si_code == SI_KERNEL) {
    return;
  }
  pid_t target = (pid_t)forward_target;
  if (target != 0) {
    int saved_errno = errno;
    kill(target, signal_number);
    errno = saved_errno;
  }
}

static bool was_ignored(const struct sigaction *action)
{
  return !(action->sa_flags & SA_SIGINFO) && action->sa_handler == SIG_IGN;
}

static void forwarded_set(sigset_t *set)
{
  sigemptyset(set);
  for (size_t i = 0; i < FORWARDED_COUNT; i++) {
    sigaddset(set, forwarded_signals[i]);
  }
}

static void restore_handlers(void)
{
  for (size_t i = 0; i < FORWARDED_COUNT; i++) {
    if (handler_installed[i]) {
      sigaction(forwarded_signals[i], &saved_actions[i], NULL);
      handler_installed[i] = false;
    }
  }
  forwarding_active = false;
}

/* Installs the forwarders for every forwarded signal, even one the tracer ignores: the
 * app starts with it ignored too (see run_child), but may catch it, and a signal sent to
 * the tracer is meant for the app, which decides. */
static int install_handlers(void)
{
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = forward_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  forwarded_set(&action.sa_mask);
  for (size_t i = 0; i < FORWARDED_COUNT; i++) {
    if (sigaction(forwarded_signals[i], NULL, &saved_actions[i]) != 0) {
      restore_handlers();
      return -1;
    }
    if (sigaction(forwarded_signals[i], &action, NULL) != 0) {
      restore_handlers();
      return -1;
    }
    handler_installed[i] = true;
  }
  forwarding_active = true;
  return 0;
}

/* What the child needs after fork, prepared beforehand: between fork and exec the child
 * of a possibly multi-threaded tracer may only make async-signal-safe calls, so no
 * allocation happens there. */
struct child_plan {
  const char *path;
  char *const *argv;
  char *const *shell_argv; /* for ENOEXEC: /bin/sh runs the file, as shells do */
  char *const *envp;
  int release_read_fd, release_write_fd;
  int exec_error_read_fd, exec_error_write_fd;
  sigset_t original_mask;
  int end_signal; /* a job's rank: its own group, this parent-death signal */
  pid_t tracer;
};

__attribute__((noreturn)) static void run_child(const struct child_plan *plan)
{
  /* Dispositions as exec would leave them had the tracer not been there: caught signals
   * back to default, ignored ones still ignored. Then the tracer's original mask, which
   * exec keeps. */
  for (size_t i = 0; i < FORWARDED_COUNT; i++) {
    if (handler_installed[i]) {
      struct sigaction action;
      memset(&action, 0, sizeof action);
      action.sa_handler = was_ignored(&saved_actions[i]) ? SIG_IGN : SIG_DFL;
      sigemptyset(&action.sa_mask);
      sigaction(forwarded_signals[i], &action, NULL);
    }
  }
  sigpipe_guard_restore_in_child();
  if (plan->end_signal > 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, plan->end_signal);
    if (getppid() != plan->tracer) {
      _exit(127); /* the tracer died before the signal was set */
    }
  }
  pthread_sigmask(SIG_SETMASK, &plan->original_mask, NULL);
  close(plan->release_write_fd);
  close(plan->exec_error_read_fd);

  char go = 0;
  ssize_t got;
  do {
    got = read(plan->release_read_fd, &go, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) {
    /* The tracer gave up before releasing us (or died): run nothing. */
    _exit(127);
  }
  close(plan->release_read_fd);

  execve(plan->path, plan->argv, plan->envp);
  if (errno == ENOEXEC) {
    execve("/bin/sh", plan->shell_argv, plan->envp);
  }
  int exec_errno = errno;
  ssize_t written;
  do {
    written = write(plan->exec_error_write_fd, &exec_errno, sizeof exec_errno);
  } while (written < 0 && errno == EINTR);
  _exit(exec_errno == ENOENT ? 127 : 126);
}

static char **make_shell_argv(const char *path, const char *const *argv)
{
  size_t argc = 0;
  while (argv[argc] != NULL) {
    argc++;
  }
  /* "sh", the script, its arguments after argv[0], NULL. */
  char **shell_argv = calloc(argc + 2, sizeof *shell_argv);
  if (shell_argv == NULL) {
    return NULL;
  }
  shell_argv[0] = (char *)"sh";
  shell_argv[1] = (char *)path;
  for (size_t i = 1; i < argc; i++) {
    shell_argv[i + 1] = (char *)argv[i];
  }
  return shell_argv;
}

/* The environment may name another copy, for an LTTng carried to a machine that has no
 * package of it (scripts/lttng-carry.sh): TRACER_UST_FORK_LIBRARY=/path/liblttng-ust-fork.so.1. */
const char *launch_default_ust_fork_library(void)
{
  const char *carried = getenv("TRACER_UST_FORK_LIBRARY");
  return carried != NULL && carried[0] != '\0' ? carried : TRACER_UST_FORK_LIBRARY;
}

enum launch_status launch_resolve(const char *command, char **path_out,
                                  struct launch_error *error)
{
  int search_errno = 0;
  *path_out = NULL;
  switch (path_search_executable(command, path_out, &search_errno)) {
  case PATH_SEARCH_FOUND:
    return LAUNCH_OK;
  case PATH_SEARCH_NOT_FOUND:
    return launch_fail(error, LAUNCH_ERR_NOT_FOUND, "Cannot run app: command=%s, %s", command,
                       strchr(command, '/') != NULL ? "no such file" : "not found in PATH");
  case PATH_SEARCH_NOT_EXECUTABLE:
    return launch_fail(error, LAUNCH_ERR_NOT_EXECUTABLE, "Cannot run app: command=%s, %s",
                       command, strerror(search_errno));
  case PATH_SEARCH_NO_MEMORY:
    break;
  }
  return launch_fail(error, LAUNCH_ERR_SYSTEM, "Cannot run app: out of memory");
}

/* liblttng-ust-fd, as liblttng-ust-fork above: TRACER_UST_FD_LIBRARY names a carried copy. */
const char *launch_default_ust_fd_library(void)
{
  const char *carried = getenv("TRACER_UST_FD_LIBRARY");
  return carried != NULL && carried[0] != '\0' ? carried : TRACER_UST_FD_LIBRARY;
}

/* The request's libraries with liblttng-ust-fd after them, NULL-terminated. */
static const char **with_fd_library(const struct launch_request *request)
{
  size_t n = 0;
  while (request->preload_libraries != NULL && request->preload_libraries[n] != NULL) {
    n++;
  }
  const char **libraries = calloc(n + 2, sizeof *libraries);
  if (libraries != NULL) {
    for (size_t i = 0; i < n; i++) {
      libraries[i] = request->preload_libraries[i];
    }
    libraries[n] = launch_default_ust_fd_library();
  }
  return libraries;
}

enum launch_status launch_start(const struct launch_request *request,
                                struct launch_process **process_out,
                                struct launch_error *error)
{
  error->message[0] = '\0';
  *process_out = NULL;
  if (request == NULL || request->argv == NULL || request->argv[0] == NULL) {
    return launch_fail(error, LAUNCH_ERR_USAGE, "Cannot run app: no command given");
  }
  if (forwarding_active) {
    return launch_fail(error, LAUNCH_ERR_USAGE,
                "Cannot run app: command=%s, another launched app is still running",
                request->argv[0]);
  }

  enum launch_status status = LAUNCH_OK;
  struct launch_env env = {0};
  struct launch_process *process = NULL;
  char **shell_argv = NULL;
  int release_channel[2] = {-1, -1}, exec_error_pipe[2] = {-1, -1};
  char *path = NULL;
  struct child_plan plan;
  sigset_t forwarded;
  pid_t pid = -1;
  int fork_errno = 0;
  const char **preload = NULL;
  struct launch_request with_fd;

  status = launch_resolve(request->argv[0], &path, error);
  if (status != LAUNCH_OK) {
    return status;
  }

  const char *fork_library = request->ust_fork_library != NULL
                                 ? request->ust_fork_library
                                 : launch_default_ust_fork_library();
  preload = with_fd_library(request);
  if (preload == NULL) {
    status = launch_fail(error, LAUNCH_ERR_SYSTEM, "Cannot run app: out of memory");
    goto out;
  }
  with_fd = *request;
  with_fd.preload_libraries = preload;
  status = launch_env_build(&with_fd, fork_library, &env, error);
  if (status != LAUNCH_OK) {
    goto out;
  }
  process = calloc(1, sizeof *process);
  shell_argv = make_shell_argv(path, request->argv);
  if (process == NULL || shell_argv == NULL) {
    status = launch_fail(error, LAUNCH_ERR_SYSTEM, "Cannot run app: out of memory");
    goto out;
  }
  process->release_fd = -1;
  process->exec_error_fd = -1;
  /* The release channel is a socket pair rather than a pipe so that the release can be
   * sent with MSG_NOSIGNAL: if the held child died meanwhile (a forwarded SIGTERM), a
   * pipe write would raise SIGPIPE and kill the tracer. */
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, release_channel) != 0 ||
      pipe2(exec_error_pipe, O_CLOEXEC) != 0) {
    status = launch_fail(error, LAUNCH_ERR_SYSTEM,
                  "Cannot run app: command=%s, pipe or socketpair: %s", request->argv[0],
                  strerror(errno));
    goto out;
  }

  /* Forwarded signals stay blocked until the child's pid is known, so none is lost
   * between fork and the moment the handler knows where to send it; the child restores
   * the original mask itself. */
  plan = (struct child_plan){
      .path = path,
      .argv = (char *const *)request->argv,
      .shell_argv = shell_argv,
      .envp = env.entries,
      .release_read_fd = release_channel[0],
      .release_write_fd = release_channel[1],
      .exec_error_read_fd = exec_error_pipe[0],
      .exec_error_write_fd = exec_error_pipe[1],
      .end_signal = request->end_signal,
      .tracer = getpid(),
  };
  forwarded_set(&forwarded);
  pthread_sigmask(SIG_BLOCK, &forwarded, &plan.original_mask);
  if (install_handlers() != 0) {
    pthread_sigmask(SIG_SETMASK, &plan.original_mask, NULL);
    status = launch_fail(error, LAUNCH_ERR_SYSTEM, "Cannot run app: command=%s, sigaction: %s",
                  request->argv[0], strerror(errno));
    goto out;
  }
  pid = fork();
  if (pid == 0) {
    run_child(&plan);
  }
  fork_errno = errno;
  if (pid > 0) {
    if (request->end_signal > 0) {
      setpgid(pid, pid); /* as the child does: whichever runs first */
    }
    forward_target = (sig_atomic_t)(request->end_signal > 0 ? -pid : pid);
  } else {
    restore_handlers();
  }
  pthread_sigmask(SIG_SETMASK, &plan.original_mask, NULL);
  if (pid < 0) {
    status = launch_fail(error, LAUNCH_ERR_SYSTEM, "Cannot run app: command=%s, fork: %s",
                  request->argv[0], strerror(fork_errno));
    goto out;
  }

  process->pid = pid;
  process->state = LAUNCH_STATE_HELD;
  process->release_fd = release_channel[1];
  process->exec_error_fd = exec_error_pipe[0];
  release_channel[1] = -1;
  exec_error_pipe[0] = -1;
  process->command_path = path;
  process->preload_value = env.preload_value;
  path = NULL;
  env.preload_value = NULL;
  *process_out = process;
  process = NULL;

out:
  for (int i = 0; i < 2; i++) {
    if (release_channel[i] >= 0) {
      close(release_channel[i]);
    }
    if (exec_error_pipe[i] >= 0) {
      close(exec_error_pipe[i]);
    }
  }
  free(process);
  free(shell_argv);
  free(path);
  free(preload);
  launch_env_free(&env);
  return status;
}

pid_t launch_pid(const struct launch_process *process)
{
  return process->pid;
}

const char *launch_command_path(const struct launch_process *process)
{
  return process->command_path;
}

const char *launch_preload_value(const struct launch_process *process)
{
  return process->preload_value;
}

/* Reaps the app. It is first observed without reaping (WNOWAIT), and the forwarding
 * target cleared, so that a late signal can never reach another process that reuses
 * the pid once it is reaped. */
static enum launch_status reap(struct launch_process *process, struct launch_error *error)
{
  siginfo_t info;
  int rc;
  do {
    memset(&info, 0, sizeof info);
    rc = waitid(P_PID, (id_t)process->pid, &info, WEXITED | WNOWAIT);
  } while (rc != 0 && errno == EINTR);
  forward_target = 0;
  int status = 0;
  pid_t reaped;
  do {
    reaped = waitpid(process->pid, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  restore_handlers();
  if (reaped != process->pid) {
    process->state = LAUNCH_STATE_ENDED;
    process->wait_status = 0;
    return launch_fail(error, LAUNCH_ERR_SYSTEM, "Cannot wait for app: command=%s, pid=%ld, %s",
                process->command_path, (long)process->pid, strerror(errno));
  }
  process->state = LAUNCH_STATE_ENDED;
  process->wait_status = status;
  return LAUNCH_OK;
}

enum launch_status launch_release(struct launch_process *process, struct launch_error *error)
{
  error->message[0] = '\0';
  if (process->state != LAUNCH_STATE_HELD) {
    return launch_fail(error, LAUNCH_ERR_USAGE, "Cannot release app: command=%s, already released",
                process->command_path);
  }
  char go = 1;
  ssize_t written;
  do {
    written = send(process->release_fd, &go, 1, MSG_NOSIGNAL);
  } while (written < 0 && errno == EINTR);
  int write_errno = errno;
  close(process->release_fd);
  process->release_fd = -1;
  process->state = LAUNCH_STATE_RUNNING;

  /* The exec-error pipe is close-on-exec: end of file means exec succeeded. */
  int exec_errno = 0;
  ssize_t got;
  do {
    got = read(process->exec_error_fd, &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  close(process->exec_error_fd);
  process->exec_error_fd = -1;
  if (got == 0 && written == 1) {
    return LAUNCH_OK;
  }

  struct launch_error ignored;
  reap(process, &ignored);
  if (written != 1) {
    /* A signal forwarded while the child was held killed it, as it would have killed
     * the app: launch_wait() reports that death like any other. */
    if (process->state == LAUNCH_STATE_ENDED && WIFSIGNALED(process->wait_status)) {
      return LAUNCH_OK;
    }
    return launch_fail(error, LAUNCH_ERR_SYSTEM, "Cannot run app: command=%s, release: %s",
                process->command_path, strerror(write_errno));
  }
  if (got != (ssize_t)sizeof exec_errno) {
    return launch_fail(error, LAUNCH_ERR_SYSTEM,
                "Cannot run app: command=%s, the child ended before exec (%s)",
                process->command_path, got < 0 ? strerror(errno) : "no report");
  }
  return launch_fail(error, exec_errno == ENOENT ? LAUNCH_ERR_NOT_FOUND : LAUNCH_ERR_NOT_EXECUTABLE,
              "Cannot run app: command=%s, exec: %s", process->command_path,
              strerror(exec_errno));
}

enum launch_status launch_wait(struct launch_process *process, int *wait_status,
                               struct launch_error *error)
{
  error->message[0] = '\0';
  if (process->state == LAUNCH_STATE_HELD) {
    return launch_fail(error, LAUNCH_ERR_USAGE, "Cannot wait for app: command=%s, not released",
                process->command_path);
  }
  if (process->state == LAUNCH_STATE_RUNNING) {
    enum launch_status status = reap(process, error);
    if (status != LAUNCH_OK) {
      return status;
    }
  }
  *wait_status = process->wait_status;
  return LAUNCH_OK;
}

void launch_free(struct launch_process *process)
{
  if (process == NULL) {
    return;
  }
  if (process->state == LAUNCH_STATE_HELD) {
    /* End of file on the release channel makes the held child exit without running. */
    close(process->release_fd);
    process->release_fd = -1;
    struct launch_error ignored;
    reap(process, &ignored);
  } else if (process->state == LAUNCH_STATE_RUNNING) {
    /* Not killed: the caller gave up waiting, not on the app. */
    forward_target = 0;
    restore_handlers();
  }
  if (process->release_fd >= 0) {
    close(process->release_fd);
  }
  if (process->exec_error_fd >= 0) {
    close(process->exec_error_fd);
  }
  free(process->command_path);
  free(process->preload_value);
  free(process);
}
