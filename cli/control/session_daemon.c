/* session_daemon: reach, start and stop lttng-sessiond for one tracer job. */
#include "control_error.h"
#include "session_daemon.h"

#include "daemon_end.h"

#include "path_search.h"

#include "lttng_ctl_library.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CLOCK_PLUGIN_VARIABLE "LTTNG_UST_CLOCK_PLUGIN"
/* Where a root daemon lives whatever LTTNG_HOME says (lttng-tools' DEFAULT_LTTNG_RUNDIR). */
#define ROOT_RUN_DIR "/var/run/lttng"
/* A user's daemon lives in $LTTNG_HOME/.lttng; its longest socket path adds this. */
#define USER_RUN_SUBDIR "/.lttng"
#define LONGEST_SOCKET_SUFFIX "/.lttng/ustconsumerd64/command"
/* How much of the daemon's own output goes into an error message. */
#define OUTPUT_EXCERPT_MAX 1024
#define POLL_INTERVAL_MS 10
/* Starts tried when another daemon holds the lock but goes away without answering. */
#define MAX_START_ATTEMPTS 3


static long long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static char *concat(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  char *s = malloc(la + lb + 1);
  if (s != NULL) {
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
  }
  return s;
}

/* $TMPDIR when it is an absolute path short enough, else /tmp: the daemon's Unix socket
 * paths (sun_path, 108 bytes) live under the folder, and a long TMPDIR would make it
 * fail to bind them with an obscure message. */
static const char *temp_folder(size_t room_needed)
{
  const char *tmpdir = getenv("TMPDIR");
  struct sockaddr_un address;
  if (tmpdir != NULL && tmpdir[0] == '/' &&
      strlen(tmpdir) + room_needed < sizeof address.sun_path) {
    return tmpdir;
  }
  return "/tmp";
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void)st;
  (void)type;
  (void)ftw;
  return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

static int remove_tree(const char *path)
{
  return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Reads what the daemon wrote before it detached, as one line. */
static void read_output(int fd, char *text, size_t size)
{
  text[0] = '\0';
  if (fd < 0 || size == 0) {
    return;
  }
  ssize_t got = pread(fd, text, size - 1, 0);
  if (got <= 0) {
    snprintf(text, size, "(no output)");
    return;
  }
  text[got] = '\0';
  while (got > 0 && (text[got - 1] == '\n' || text[got - 1] == ' ')) {
    text[--got] = '\0';
  }
  for (ssize_t i = 0; i < got; i++) {
    if (text[i] == '\n' || text[i] == '\r' || text[i] == '\t') {
      text[i] = ' ';
    }
  }
  if (got == 0) {
    snprintf(text, size, "(no output)");
  }
}

static pid_t read_pid_file(const char *run_dir)
{
  char *path = concat(run_dir, "/lttng-sessiond.pid");
  if (path == NULL) {
    return 0;
  }
  FILE *file = fopen(path, "re");
  free(path);
  if (file == NULL) {
    return 0;
  }
  long pid = 0;
  if (fscanf(file, "%ld", &pid) != 1 || pid <= 0) {
    pid = 0;
  }
  fclose(file);
  return (pid_t)pid;
}

/* True when pid is (still) an lttng-sessiond: a pid read long ago may have been reused
 * by an unrelated process, which must never be signalled. */
static bool is_session_daemon(pid_t pid)
{
  char path[64], comm[32] = "";
  snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
  FILE *file = fopen(path, "re");
  if (file == NULL) {
    return false;
  }
  bool match = fgets(comm, sizeof comm, file) != NULL && strcmp(comm, "lttng-sessiond\n") == 0;
  fclose(file);
  return match;
}

/* Gone, or a zombie: its parent (init, usually) reaps it, unless that parent is us. */
static bool process_gone(pid_t pid)
{
  int status;
  if (waitpid(pid, &status, WNOHANG) == pid) {
    return true;
  }
  if (kill(pid, 0) != 0 && errno == ESRCH) {
    return true;
  }
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  FILE *file = fopen(path, "re");
  if (file == NULL) {
    return true;
  }
  bool zombie = false;
  if (fgets(line, sizeof line, file) != NULL) {
    const char *after_name = strrchr(line, ')');
    zombie = after_name != NULL && (after_name[2] == 'Z' || after_name[2] == 'X');
  }
  fclose(file);
  return zombie;
}

static void restore_home(struct session_daemon *daemon)
{
  if (!daemon->home_overridden) {
    return;
  }
  if (daemon->saved_home != NULL) {
    setenv("LTTNG_HOME", daemon->saved_home, 1);
  } else {
    unsetenv("LTTNG_HOME");
  }
  daemon->home_overridden = false;
  free(daemon->saved_home);
  daemon->saved_home = NULL;
}

/* Gives this user's daemon a home nobody else uses, so it is private to the job. */
static enum session_status make_private_home(struct session_daemon *daemon,
                                             struct session_error *error)
{
  const char *folder = temp_folder(strlen("/tracer-lttng-XXXXXX" LONGEST_SOCKET_SUFFIX));
  char *home = concat(folder, "/tracer-lttng-XXXXXX");
  if (home == NULL) {
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: out of memory");
  }
  /* mkdtemp creates it with mode 0700. */
  if (mkdtemp(home) == NULL) {
    int saved = errno;
    free(home);
    return session_fail(error, SESSION_ERR_SYSTEM,
                "Cannot start session daemon: folder=%s, cannot create a private "
                "LTTNG_HOME: %s",
                folder, strerror(saved));
  }
  daemon->private_home = home;
  daemon->run_dir = concat(home, USER_RUN_SUBDIR);
  const char *previous = getenv("LTTNG_HOME");
  daemon->saved_home = previous != NULL ? strdup(previous) : NULL;
  if (daemon->run_dir == NULL || (previous != NULL && daemon->saved_home == NULL) ||
      setenv("LTTNG_HOME", home, 1) != 0) {
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: out of memory");
  }
  daemon->home_overridden = true;
  return SESSION_OK;
}

static enum session_status find_daemon_binary(char **path_out, struct session_error *error)
{
  const char *configured = getenv("LTTNG_SESSIOND_PATH");
  const char *name = configured != NULL && configured[0] != '\0' ? configured
                                                                 : "lttng-sessiond";
  int search_errno = 0;
  switch (path_search_executable(name, path_out, &search_errno)) {
  case PATH_SEARCH_FOUND:
    return SESSION_OK;
  case PATH_SEARCH_NO_MEMORY:
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: out of memory");
  case PATH_SEARCH_NOT_FOUND:
  case PATH_SEARCH_NOT_EXECUTABLE:
    break;
  }
  if (configured != NULL && configured[0] != '\0') {
    return session_fail(error, SESSION_ERR_DAEMON,
                "Cannot start session daemon: LTTNG_SESSIOND_PATH=%s: %s", configured,
                strerror(search_errno));
  }
  return session_fail(error, SESSION_ERR_DAEMON,
              "Cannot start session daemon: lttng-sessiond is not in PATH (install "
              "lttng-tools, or set LTTNG_SESSIOND_PATH)");
}

/* Runs `lttng-sessiond --daemonize --no-kernel` with its output in capture_fd and waits,
 * until deadline, for that first process to exit: with --daemonize it exits once the
 * detached daemon is ready for clients, or with an error. timeout_ms is the whole wait,
 * for the message. */
static enum session_status spawn_daemon(const char *binary, char *const *envp, int capture_fd,
                                        long long deadline, int timeout_ms, int *exit_status,
                                        struct session_error *error)
{
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) {
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: /dev/null: %s",
                strerror(errno));
  }
  char *const argv[] = {(char *)"lttng-sessiond", (char *)"--daemonize",
                        (char *)"--no-kernel", NULL};
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) {
    max_fd = 65536;
  }
  sigset_t no_signals;
  sigemptyset(&no_signals);

  pid_t pid = fork();
  if (pid == 0) {
    /* Only async-signal-safe calls here. The daemon must not inherit the tracer's
     * descriptors: one that holds an MPI launcher's socket or a test harness's pipe
     * open would keep those alive for as long as the daemon runs. Its own process
     * group keeps a Ctrl-C meant for the app from killing it half-way through starting. */
    setpgid(0, 0);
    dup2(null_fd, STDIN_FILENO);
    dup2(capture_fd, STDOUT_FILENO);
    dup2(capture_fd, STDERR_FILENO);
    if (close_range(STDERR_FILENO + 1, ~0u, 0) != 0) {
      for (long fd = STDERR_FILENO + 1; fd < max_fd; fd++) {
        close((int)fd);
      }
    }
    pthread_sigmask(SIG_SETMASK, &no_signals, NULL);
    execve(binary, argv, envp);
    _exit(127);
  }
  int fork_errno = errno;
  close(null_fd);
  if (pid < 0) {
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: fork: %s",
                strerror(fork_errno));
  }

  for (;;) {
    int status;
    pid_t reaped = waitpid(pid, &status, WNOHANG);
    if (reaped == pid) {
      *exit_status = status;
      return SESSION_OK;
    }
    if (reaped < 0 && errno != EINTR) {
      return session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: waitpid: %s",
                  strerror(errno));
    }
    if (now_ms() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      char output[OUTPUT_EXCERPT_MAX];
      read_output(capture_fd, output, sizeof output);
      return session_fail(error, SESSION_ERR_DAEMON,
                  "Cannot start session daemon: path=%s, not ready after %d ms; its "
                  "output: %s",
                  binary, timeout_ms, output);
    }
    sleep_ms(POLL_INTERVAL_MS);
  }
}

/* True when some process holds the daemon's lock file (lttng-sessiond.lck, which a
 * daemon locks for as long as it runs): a daemon is running or starting there. F_GETLK
 * only asks; taking the lock, even briefly, could make a starting daemon fail. */
static bool daemon_lock_held(const char *run_dir)
{
  char *path = concat(run_dir, "/lttng-sessiond.lck");
  if (path == NULL) {
    return false;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  free(path);
  if (fd < 0) {
    return false;
  }
  struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  bool held = fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
  close(fd);
  return held;
}

enum other_daemon {
  OTHER_DAEMON_ANSWERS, /* it serves clients now */
  OTHER_DAEMON_GONE,    /* it released the lock without ever answering: it was leaving */
  OTHER_DAEMON_SILENT,  /* still holds the lock, still silent at the deadline */
};

/* Waits on a daemon that another process holds the lock for. */
static enum other_daemon wait_for_other_daemon(const char *run_dir, long long deadline)
{
  for (;;) {
    if (lttng_session_daemon_alive() == 1) {
      return OTHER_DAEMON_ANSWERS;
    }
    if (!daemon_lock_held(run_dir)) {
      return OTHER_DAEMON_GONE;
    }
    if (now_ms() >= deadline) {
      return OTHER_DAEMON_SILENT;
    }
    sleep_ms(POLL_INTERVAL_MS);
  }
}

static bool wait_until_alive(long long deadline)
{
  for (;;) {
    if (lttng_session_daemon_alive() == 1) {
      return true;
    }
    if (now_ms() >= deadline) {
      return false;
    }
    sleep_ms(POLL_INTERVAL_MS);
  }
}

static enum session_status stop_daemon(struct session_daemon *daemon, int timeout_ms,
                                       struct session_error *error);

static void discard_private_home(struct session_daemon *daemon)
{
  restore_home(daemon);
  if (daemon->private_home != NULL) {
    remove_tree(daemon->private_home);
  }
  free(daemon->private_home);
  free(daemon->run_dir);
  daemon->private_home = NULL;
  daemon->run_dir = NULL;
}

/* An unlinked temporary file holds the daemon's output: unlike a pipe it can never fill
 * up and block the daemon, and it vanishes with the descriptor. */
static enum session_status open_capture_file(int *fd_out, struct session_error *error)
{
  char *path = concat(temp_folder(0), "/tracer-sessiond-output-XXXXXX");
  if (path == NULL) {
    return session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: out of memory");
  }
  int fd = mkostemp(path, O_CLOEXEC);
  int saved_errno = errno;
  if (fd >= 0) {
    unlink(path);
  }
  free(path);
  if (fd < 0) {
    return session_fail(error, SESSION_ERR_SYSTEM,
                "Cannot start session daemon: cannot create a file for its output: %s",
                strerror(saved_errno));
  }
  *fd_out = fd;
  return SESSION_OK;
}

/* The tracer's environment with LTTNG_UST_CLOCK_PLUGIN=clock_plugin (replacing any),
 * or the tracer's own when clock_plugin is NULL. Built before fork: the child may only
 * make async-signal-safe calls. */
static char **daemon_environment(const char *clock_plugin, char **entry_out)
{
  extern char **environ;
  *entry_out = NULL;
  if (clock_plugin == NULL) {
    return environ;
  }
  size_t count = 0;
  while (environ[count] != NULL) {
    count++;
  }
  char **envp = calloc(count + 2, sizeof *envp);
  char *entry = concat(CLOCK_PLUGIN_VARIABLE "=", clock_plugin);
  if (envp == NULL || entry == NULL) {
    free(envp);
    free(entry);
    return NULL;
  }
  size_t used = 0;
  for (size_t i = 0; i < count; i++) {
    if (strncmp(environ[i], CLOCK_PLUGIN_VARIABLE "=", strlen(CLOCK_PLUGIN_VARIABLE "=")) != 0) {
      envp[used++] = environ[i];
    }
  }
  envp[used] = entry;
  *entry_out = entry;
  return envp;
}

/* Hides the machine's root daemon from this process and its children to come: a mount
 * namespace of its own (propagation private, so nothing leaks back) with an empty tmpfs
 * on /var/run/lttng, where a root daemon and root apps meet. */
static enum session_status enter_own_run_dir(struct session_error *error)
{
  char run_dir[PATH_MAX];
  if (realpath(ROOT_RUN_DIR, run_dir) == NULL) {
    snprintf(run_dir, sizeof run_dir, "%s", ROOT_RUN_DIR);
    mkdir(run_dir, 0755);
  }
  const char *step = "unshare(CLONE_NEWNS)";
  if (unshare(CLONE_NEWNS) == 0) {
    step = "mount --make-rprivate /";
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
      step = "mount -t tmpfs on " ROOT_RUN_DIR;
      if (mount("tmpfs", run_dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") == 0) {
        return SESSION_OK;
      }
    }
  }
  return session_fail(error, SESSION_ERR_DAEMON,
                      "Cannot start a session daemon of the job's own: as root it needs a "
                      "private " ROOT_RUN_DIR ", and %s failed: %s",
                      step, strerror(errno));
}

enum session_status session_daemon_ensure(struct session_daemon *daemon, int timeout_ms,
                                          const char *clock_plugin, bool own,
                                          struct session_error *error)
{
  bool namespace_ready = own && daemon->own_namespace; /* a retry keeps its namespace */
  memset(daemon, 0, sizeof *daemon);
  struct diag d;
  diag_init(&d);
  if (lttng_ctl_library_load(&d) != 0) { /* session_begin loaded it: a unit test's call */
    char text[sizeof error->message];
    session_fail(error, SESSION_ERR_DAEMON, "%s", diag_join(&d, text, sizeof text));
    diag_clear(&d);
    return SESSION_ERR_DAEMON;
  }
  diag_clear(&d);
  if (own && geteuid() == 0) {
    if (!namespace_ready) {
      enum session_status status = enter_own_run_dir(error);
      if (status != SESSION_OK) {
        return status;
      }
    }
    daemon->own_namespace = true;
  }
  if (!own && lttng_session_daemon_alive() == 1) {
    daemon->pid = session_daemon_reached_pid();
    return SESSION_OK;
  }

  enum session_status status = SESSION_OK;
  char *binary = NULL;
  int capture_fd = -1;
  long long deadline = now_ms() + timeout_ms;
  char *plugin_entry = NULL;
  char **envp = NULL;

  status = find_daemon_binary(&binary, error);
  if (status != SESSION_OK) {
    goto out;
  }
  if (geteuid() != 0) {
    status = make_private_home(daemon, error);
    if (status != SESSION_OK) {
      goto out;
    }
  } else if ((daemon->run_dir = strdup(ROOT_RUN_DIR)) == NULL) {
    status = session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: out of memory");
    goto out;
  }

  status = open_capture_file(&capture_fd, error);
  if (status != SESSION_OK) {
    goto out;
  }
  /* After make_private_home(): it sets LTTNG_HOME, which the daemon inherits. Only a
   * private daemon gets the clock plugin: root's serves the whole machine, and the apps
   * of its other users would stamp their events with another clock than the one it
   * describes in their traces. */
  envp = daemon_environment(daemon->private_home != NULL ? clock_plugin : NULL, &plugin_entry);
  if (envp == NULL) {
    status = session_fail(error, SESSION_ERR_SYSTEM, "Cannot start session daemon: out of memory");
    goto out;
  }

  /* Several jobs may find no daemon at once (MPI ranks of one node, as root): the first
   * daemon to take the lock wins and the others exit ("A session daemon is already
   * running"). A job whose start lost uses the daemon that answers; if none answers and
   * none holds the lock any more (it was leaving), it starts one again. */
  for (int attempt = 1;; attempt++) {
    int exit_status = 0;
    status = spawn_daemon(binary, envp, capture_fd, deadline, timeout_ms, &exit_status, error);
    if (status != SESSION_OK) {
      goto out;
    }
    if (WIFEXITED(exit_status) && WEXITSTATUS(exit_status) == 0) {
      break;
    }
    enum other_daemon other = wait_for_other_daemon(daemon->run_dir, deadline);
    if (other == OTHER_DAEMON_ANSWERS) {
      daemon->pid = read_pid_file(daemon->run_dir);
      goto out;
    }
    if (other == OTHER_DAEMON_GONE && attempt < MAX_START_ATTEMPTS) {
      /* Keep only the next attempt's output for the message. */
      if (ftruncate(capture_fd, 0) == 0) {
        lseek(capture_fd, 0, SEEK_SET);
      }
      continue;
    }
    char output[OUTPUT_EXCERPT_MAX];
    read_output(capture_fd, output, sizeof output);
    status = session_fail(error, SESSION_ERR_DAEMON,
                  "Cannot start session daemon: path=%s, %s %d; its output: %s", binary,
                  WIFEXITED(exit_status) ? "exit status" : "killed by signal",
                  WIFEXITED(exit_status) ? WEXITSTATUS(exit_status) : WTERMSIG(exit_status),
                  output);
    goto out;
  }
  daemon->started = true;
  daemon->pid = read_pid_file(daemon->run_dir);
  if (!wait_until_alive(deadline)) {
    char output[OUTPUT_EXCERPT_MAX];
    read_output(capture_fd, output, sizeof output);
    status = session_fail(error, SESSION_ERR_DAEMON,
                  "Cannot start session daemon: path=%s, run_dir=%s, started but not "
                  "answering after %d ms; its output: %s",
                  binary, daemon->run_dir, timeout_ms, output);
    /* Even root's: a daemon that never answered serves nobody. */
    struct session_error ignored;
    stop_daemon(daemon, timeout_ms, &ignored);
    daemon->started = false;
  }

out:
  if (capture_fd >= 0) {
    close(capture_fd);
  }
  if (plugin_entry != NULL) {
    free(plugin_entry);
    free(envp);
  }
  free(binary);
  if (status != SESSION_OK || !daemon->started) {
    pid_t found = status == SESSION_OK ? daemon->pid : 0;
    bool own_namespace = daemon->own_namespace;
    discard_private_home(daemon);
    memset(daemon, 0, sizeof *daemon);
    daemon->pid = found;
    daemon->own_namespace = own_namespace;
  }
  return status;
}

char *session_daemon_reached_run_dir(void)
{
  if (geteuid() == 0) {
    return strdup(ROOT_RUN_DIR);
  }
  const char *home = getenv("LTTNG_HOME");
  if (home == NULL || home[0] == '\0') {
    home = getenv("HOME");
  }
  return home != NULL ? concat(home, USER_RUN_SUBDIR) : NULL;
}

pid_t session_daemon_reached_pid(void)
{
  char *run_dir = session_daemon_reached_run_dir();
  pid_t pid = run_dir != NULL ? read_pid_file(run_dir) : 0;
  free(run_dir);
  return pid > 0 && is_session_daemon(pid) ? pid : 0;
}

bool session_daemon_has_consumer(pid_t pid)
{
  DIR *proc = opendir("/proc");
  if (proc == NULL) {
    return true; /* cannot tell */
  }
  bool found = false;
  struct dirent *entry;
  while (!found && (entry = readdir(proc)) != NULL) {
    char path[300], line[512];
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') {
      continue;
    }
    snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
    FILE *file = fopen(path, "re");
    if (file == NULL) {
      continue;
    }
    if (fgets(line, sizeof line, file) != NULL) {
      /* "PID (COMM) STATE PPID ..." */
      const char *open = strchr(line, '(');
      const char *close = strrchr(line, ')');
      long parent = 0;
      char state = 0;
      found = open != NULL && close != NULL &&
              strncmp(open + 1, "lttng-consumerd", (size_t)(close - open - 1)) == 0 &&
              close - open - 1 == (long)strlen("lttng-consumerd") &&
              sscanf(close + 1, " %c %ld", &state, &parent) == 2 && parent == (long)pid &&
              state != 'Z';
    }
    fclose(file);
  }
  closedir(proc);
  return found;
}

void session_daemon_describe_trouble(pid_t pid, int lttng_error, bool no_consumer, char *text,
                                     size_t size)
{
  bool consumer_gone = no_consumer || (pid > 0 && !session_daemon_has_consumer(pid));
  char where[64] = "";
  char fix[160];
  if (pid > 0) {
    snprintf(where, sizeof where, ", pid %ld", (long)pid);
    snprintf(fix, sizeof fix, "kill %ld (when no job uses it) and start it again: lttng-sessiond "
                              "--daemonize%s",
             (long)pid, geteuid() == 0 ? " --no-kernel" : "");
  } else {
    snprintf(fix, sizeof fix, "stop it and start it again: lttng-sessiond --daemonize");
  }
  snprintf(text, size,
           "the session daemon (lttng-sessiond%s) cannot serve: %s (%s); this job runs with a "
           "session daemon of its own. Fix: %s",
           where, lttng_strerror(lttng_error),
           consumer_gone ? "its consumer daemon, lttng-consumerd, is gone: killed, perhaps "
                           "by the OOM killer"
                         : "it failed and stays broken",
           fix);
}

bool session_daemon_still_running(const struct session_daemon *daemon)
{
  return daemon->pid > 0 && !process_gone(daemon->pid) && is_session_daemon(daemon->pid);
}

/* The value of name in /proc/PID/environ, malloc'ed; NULL when absent or unreadable. */
static char *process_variable(pid_t pid, const char *name)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
  FILE *file = fopen(path, "re");
  if (file == NULL) {
    return NULL;
  }
  size_t name_len = strlen(name);
  char *entry = NULL, *value = NULL;
  size_t size = 0;
  while (value == NULL && getdelim(&entry, &size, '\0', file) > 0) {
    if (strncmp(entry, name, name_len) == 0 && entry[name_len] == '=') {
      value = strdup(entry + name_len + 1);
    }
  }
  free(entry);
  fclose(file);
  return value;
}

char *session_daemon_clock_plugin(const struct session_daemon *daemon)
{
  pid_t pid = daemon->pid > 0 ? daemon->pid : session_daemon_reached_pid();
  if (pid <= 0 || !is_session_daemon(pid)) {
    return NULL;
  }
  char *plugin = process_variable(pid, CLOCK_PLUGIN_VARIABLE);
  if (plugin != NULL && plugin[0] == '\0') {
    free(plugin);
    plugin = NULL;
  }
  return plugin;
}

static enum session_status stop_daemon(struct session_daemon *daemon, int timeout_ms,
                                       struct session_error *error)
{
  if (daemon->pid <= 0) {
    return session_fail(error, SESSION_ERR_DAEMON,
                "Cannot stop session daemon: run_dir=%s, its pid file could not be read",
                daemon->run_dir);
  }
  if (!is_session_daemon(daemon->pid)) {
    return SESSION_OK; /* already gone */
  }
  if (kill(daemon->pid, SIGTERM) != 0) {
    return errno == ESRCH ? SESSION_OK
                          : session_fail(error, SESSION_ERR_DAEMON,
                                 "Cannot stop session daemon: pid=%ld, %s",
                                 (long)daemon->pid, strerror(errno));
  }
  /* It tears down its consumer daemons and removes its sockets before it exits. */
  long long deadline = now_ms() + timeout_ms;
  while (!process_gone(daemon->pid)) {
    if (now_ms() >= deadline) {
      kill(daemon->pid, SIGKILL);
      return session_fail(error, SESSION_ERR_DAEMON,
                  "Cannot stop session daemon: pid=%ld, still running %d ms after "
                  "SIGTERM; killed it (its consumer daemons may remain)",
                  (long)daemon->pid, timeout_ms);
    }
    sleep_ms(POLL_INTERVAL_MS);
  }
  return SESSION_OK;
}

enum session_status session_daemon_release(struct session_daemon *daemon, int timeout_ms,
                                           bool flushed, bool *stopped, bool *left_running,
                                           struct session_error *error)
{
  enum session_status status = SESSION_OK;
  *stopped = false;
  *left_running = false;
  if (daemon->started) {
    if (daemon->private_home != NULL && flushed && is_session_daemon(daemon->pid) &&
        daemon_end_group(daemon->pid, timeout_ms)) {
      *stopped = true; /* it held nothing of the trace any more */
    } else if (daemon->private_home != NULL || daemon->own_namespace) {
      /* A private daemon serves this job alone. */
      status = stop_daemon(daemon, timeout_ms, error);
      *stopped = status == SESSION_OK;
    } else {
      /* Root's daemon serves every root job on the machine, started and ended at any
       * time: stopping it would end sessions that other jobs are creating or using this
       * very moment, and no count of sessions taken now can tell. It stays, as a daemon
       * that `lttng create` starts does. */
      *left_running = true;
    }
    daemon->started = false;
  }
  discard_private_home(daemon);
  return status;
}
