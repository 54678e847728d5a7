/* control_unit_test: unit tests of the parts of session and launch that need no daemon:
 * command lookup, the app's environment, wait-status wording, the held child, exec
 * failures, option and output-folder checks. Prints one line per check; exits 1 on any
 * failure. */
#include "launch.h"
#include "launch_env.h"
#include "path_search.h"
#include "session.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

__attribute__((format(printf, 2, 3))) static void check(bool ok, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  printf("%s: ", ok ? "ok" : "FAIL");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (!ok) {
    failures++;
  }
}

static char work[] = "/tmp/control-unit.XXXXXX";

static char *in_work(const char *name)
{
  static char paths[16][512];
  static int next;
  char *path = paths[next++ % 16];
  snprintf(path, sizeof paths[0], "%s/%s", work, name);
  return path;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
  FILE *file = fopen(path, "w");
  if (file != NULL) {
    fputs(text, file);
    fclose(file);
  }
  chmod(path, mode);
}

static int status_of_child(int code, int signal_number)
{
  pid_t pid = fork();
  if (pid == 0) {
    if (signal_number != 0) {
      signal(signal_number, SIG_DFL);
      raise(signal_number);
    }
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

static void test_wait_status(void)
{
  char text[128];
  int status = status_of_child(3, 0);
  check(launch_exit_code(status) == 3, "exit 3 gives exit code 3");
  check(strcmp(launch_describe_status(status, text, sizeof text), "exited with status 3") == 0,
        "describe exit 3: %s", text);
  status = status_of_child(0, SIGKILL);
  check(launch_exit_code(status) == 137, "SIGKILL gives 137");
  check(strcmp(launch_describe_status(status, text, sizeof text),
               "killed by signal 9 (SIGKILL)") == 0,
        "describe SIGKILL: %s", text);
  /* A core-dump status built by hand: whether a core is written depends on limits. */
  status = SIGSEGV | 0x80;
  check(launch_exit_code(status) == 128 + SIGSEGV, "SIGSEGV gives 139");
  check(strcmp(launch_describe_status(status, text, sizeof text),
               "killed by signal 11 (SIGSEGV), core dumped") == 0,
        "describe SIGSEGV with core: %s", text);
  check(launch_status_exit_code(LAUNCH_ERR_NOT_FOUND) == 127 &&
            launch_status_exit_code(LAUNCH_ERR_NOT_EXECUTABLE) == 126 &&
            launch_status_exit_code(LAUNCH_OK) == 0 &&
            launch_status_exit_code(LAUNCH_ERR_SYSTEM) == 1,
        "launch statuses map to 127, 126, 0, 1");
}

static void test_path_search(void)
{
  char *saved_path = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
  mkdir(in_work("noexec"), 0755);
  mkdir(in_work("exec"), 0755);
  mkdir(in_work("folder"), 0755);
  mkdir(in_work("folder/cmd"), 0755);
  write_file(in_work("noexec/cmd"), "#!/bin/sh\n", 0644);
  write_file(in_work("exec/cmd"), "#!/bin/sh\n", 0755);

  char search[2048];
  char *found = NULL;
  int err = 0;
  snprintf(search, sizeof search, "%s:%s:%s", in_work("folder"), in_work("noexec"),
           in_work("exec"));
  setenv("PATH", search, 1);
  enum path_search_result result = path_search_executable("cmd", &found, &err);
  check(result == PATH_SEARCH_FOUND && found != NULL && strcmp(found, in_work("exec/cmd")) == 0,
        "PATH search skips a folder and a non-executable file: %s", found ? found : "(none)");
  free(found);

  snprintf(search, sizeof search, "%s:%s", in_work("folder"), in_work("noexec"));
  setenv("PATH", search, 1);
  result = path_search_executable("cmd", &found, &err);
  check(result == PATH_SEARCH_NOT_EXECUTABLE && err == EACCES && found == NULL,
        "only a non-executable match: not executable (EACCES)");

  result = path_search_executable("no-such-command-xyz", &found, &err);
  check(result == PATH_SEARCH_NOT_FOUND && err == ENOENT, "missing command: not found");

  result = path_search_executable(in_work("folder/cmd"), &found, &err);
  check(result == PATH_SEARCH_NOT_EXECUTABLE && err == EISDIR, "a folder by path: EISDIR");

  result = path_search_executable(in_work("exec/missing"), &found, &err);
  check(result == PATH_SEARCH_NOT_FOUND, "missing path with a slash: not found");

  /* An empty PATH entry is the current folder. */
  char cwd[1024];
  if (getcwd(cwd, sizeof cwd) != NULL && chdir(in_work("exec")) == 0) {
    setenv("PATH", "/nonexistent-folder:", 1);
    result = path_search_executable("cmd", &found, &err);
    check(result == PATH_SEARCH_FOUND && found != NULL && strcmp(found, "./cmd") == 0,
          "empty PATH entry means the current folder: %s", found ? found : "(none)");
    free(found);
    if (chdir(cwd) != 0) {
      check(false, "chdir back");
    }
  }
  if (saved_path != NULL) {
    setenv("PATH", saved_path, 1);
    free(saved_path);
  }
}

static const char *entry_value(char **entries, const char *name)
{
  size_t len = strlen(name);
  for (size_t i = 0; entries[i] != NULL; i++) {
    if (strncmp(entries[i], name, len) == 0 && entries[i][len] == '=') {
      return entries[i] + len + 1;
    }
  }
  return NULL;
}

static size_t count_name(char **entries, const char *name)
{
  size_t len = strlen(name), count = 0;
  for (size_t i = 0; entries[i] != NULL; i++) {
    count += strncmp(entries[i], name, len) == 0 && entries[i][len] == '=';
  }
  return count;
}

static void test_environment(void)
{
  write_file(in_work("interposer.so"), "", 0644);
  write_file(in_work("fork.so"), "", 0644);
  const char *preloads[] = {in_work("interposer.so"), NULL};
  const char *extra[] = {"LTTNG_HOME=/private/home", "LTTNG_UST_ALLOW_BLOCKING=1", NULL};
  struct launch_request request = {
      .argv = (const char *const[]){"true", NULL},
      .preload_libraries = preloads,
      .extra_environment = extra,
  };
  struct launch_env env;
  struct launch_error error;

  setenv("LD_PRELOAD", "/user/lib.so", 1);
  setenv("LTTNG_HOME", "/old/home", 1);
  setenv("CONTROL_UNIT_KEEP", "kept", 1);
  unsetenv("LTTNG_UST_REGISTER_TIMEOUT");
  enum launch_status status = launch_env_build(&request, in_work("fork.so"), &env, &error);
  check(status == LAUNCH_OK, "environment built: %s", error.message);
  if (status == LAUNCH_OK) {
    char expected[1024];
    snprintf(expected, sizeof expected, "%s:%s:/user/lib.so", in_work("interposer.so"),
             in_work("fork.so"));
    const char *preload = entry_value(env.entries, "LD_PRELOAD");
    check(preload != NULL && strcmp(preload, expected) == 0 &&
              strcmp(env.preload_value, expected) == 0,
          "LD_PRELOAD = interposers, fork, user's: %s", preload ? preload : "(none)");
    check(count_name(env.entries, "LD_PRELOAD") == 1, "one LD_PRELOAD entry");
    const char *home = entry_value(env.entries, "LTTNG_HOME");
    check(home != NULL && strcmp(home, "/private/home") == 0 &&
              count_name(env.entries, "LTTNG_HOME") == 1,
          "session's LTTNG_HOME replaces the tracer's");
    const char *timeout = entry_value(env.entries, "LTTNG_UST_REGISTER_TIMEOUT");
    check(timeout != NULL && strcmp(timeout, "10000") == 0, "register timeout defaults to 10000");
    const char *kept = entry_value(env.entries, "CONTROL_UNIT_KEEP");
    check(kept != NULL && strcmp(kept, "kept") == 0, "other variables inherited");
    launch_env_free(&env);
  }

  setenv("LTTNG_UST_REGISTER_TIMEOUT", "250", 1);
  unsetenv("LD_PRELOAD");
  status = launch_env_build(&request, in_work("fork.so"), &env, &error);
  if (status == LAUNCH_OK) {
    const char *timeout = entry_value(env.entries, "LTTNG_UST_REGISTER_TIMEOUT");
    check(timeout != NULL && strcmp(timeout, "250") == 0 &&
              count_name(env.entries, "LTTNG_UST_REGISTER_TIMEOUT") == 1,
          "the user's register timeout is kept");
    char expected[1024];
    snprintf(expected, sizeof expected, "%s:%s", in_work("interposer.so"), in_work("fork.so"));
    check(strcmp(env.preload_value, expected) == 0, "no trailing colon without a user preload");
    launch_env_free(&env);
  }
  unsetenv("LTTNG_UST_REGISTER_TIMEOUT");

  const char *bad_preloads[] = {"/a:b.so", NULL};
  request.preload_libraries = bad_preloads;
  status = launch_env_build(&request, in_work("fork.so"), &env, &error);
  check(status == LAUNCH_ERR_USAGE && strstr(error.message, "cannot be preloaded") != NULL,
        "a colon in a library path is refused: %s", error.message);
  const char *missing_preloads[] = {in_work("missing.so"), NULL};
  request.preload_libraries = missing_preloads;
  status = launch_env_build(&request, in_work("fork.so"), &env, &error);
  check(status == LAUNCH_ERR_USAGE && strstr(error.message, "cannot be read") != NULL,
        "a missing library is refused: %s", error.message);
  request.preload_libraries = preloads;
  const char *bad_extra[] = {"LD_PRELOAD=/x.so", NULL};
  request.extra_environment = bad_extra;
  status = launch_env_build(&request, in_work("fork.so"), &env, &error);
  check(status == LAUNCH_ERR_USAGE, "LD_PRELOAD among the extra entries is refused");
  setenv("LTTNG_HOME", "/old/home", 1);
  unsetenv("LTTNG_HOME");
}

static void test_held_child(void)
{
  /* A held child that is never released runs nothing. */
  char command[512];
  snprintf(command, sizeof command, "touch %s", in_work("ran"));
  struct launch_request request = {
      .argv = (const char *const[]){"sh", "-c", command, NULL},
  };
  struct launch_process *process = NULL;
  struct launch_error error;
  enum launch_status status = launch_start(&request, &process, &error);
  check(status == LAUNCH_OK, "held child started: %s", error.message);
  if (status == LAUNCH_OK) {
    pid_t pid = launch_pid(process);
    launch_free(process);
    struct stat st;
    check(stat(in_work("ran"), &st) != 0, "a child never released ran nothing");
    check(kill(pid, 0) != 0 && errno == ESRCH, "and was reaped");
  }

  /* A signal forwarded to a held child kills it before it runs; the release must not
   * raise SIGPIPE in the tracer, and the wait reports the death. */
  status = launch_start(&request, &process, &error);
  if (status == LAUNCH_OK) {
    kill(getpid(), SIGTERM); /* forwarded to the held child */
    int waited_ms = 0;
    while (kill(launch_pid(process), 0) == 0 && waited_ms < 2000) {
      siginfo_t info;
      memset(&info, 0, sizeof info);
      if (waitid(P_PID, (id_t)launch_pid(process), &info, WEXITED | WNOHANG | WNOWAIT) ==
              0 &&
          info.si_pid != 0) {
        break;
      }
      usleep(1000);
      waited_ms++;
    }
    status = launch_release(process, &error);
    int wait_status = 0;
    if (status == LAUNCH_OK) {
      status = launch_wait(process, &wait_status, &error);
    }
    check(status == LAUNCH_OK && WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGTERM,
          "SIGTERM to the tracer while the app is held: the app dies of it (%s)",
          error.message);
    launch_free(process);
    struct stat st;
    check(stat(in_work("ran"), &st) != 0, "and ran nothing");
  }

  /* Exec fails after the release: the interpreter named by #! does not exist. */
  write_file(in_work("bad-interpreter"), "#!/nonexistent/interpreter\n", 0755);
  request.argv = (const char *const[]){in_work("bad-interpreter"), NULL};
  status = launch_start(&request, &process, &error);
  if (status == LAUNCH_OK) {
    status = launch_release(process, &error);
    check(status == LAUNCH_ERR_NOT_FOUND && strstr(error.message, "exec:") != NULL,
          "exec failure reported by release: %s", error.message);
    launch_free(process);
  }

  /* A launched app's status comes back, with real exit and signal. */
  request.argv = (const char *const[]){"sh", "-c", "exit 5", NULL};
  status = launch_start(&request, &process, &error);
  int wait_status = 0;
  if (status == LAUNCH_OK) {
    status = launch_release(process, &error);
  }
  if (status == LAUNCH_OK) {
    status = launch_wait(process, &wait_status, &error);
  }
  check(status == LAUNCH_OK && launch_exit_code(wait_status) == 5, "sh -c 'exit 5' gives 5");
  int again = -1;
  check(launch_wait(process, &again, &error) == LAUNCH_OK && again == wait_status,
        "waiting twice gives the same status");
  launch_free(process);

  /* The tracer's handlers are restored after the wait. */
  struct sigaction action;
  sigaction(SIGUSR1, NULL, &action);
  check(action.sa_handler == SIG_DFL, "SIGUSR1 back to its default after the wait");
}

static void test_session_checks(void)
{
  struct session *session = NULL;
  struct session_error error;
  const char *patterns[] = {"session_test:*", NULL};
  struct session_options options = {.output_dir = in_work("unused"),
                                    .event_patterns = patterns};

  options.subbuf_size = 3000;
  check(session_begin(&options, &session, &error) == SESSION_ERR_USAGE &&
            strstr(error.message, "subbuf_size=3000") != NULL,
        "sub-buffer size must be a power of 2: %s", error.message);
  options.subbuf_size = 0;
  options.subbuf_count = 3;
  check(session_begin(&options, &session, &error) == SESSION_ERR_USAGE,
        "sub-buffer count must be a power of 2: %s", error.message);
  options.subbuf_count = 0;
  options.event_patterns = (const char *const[]){NULL};
  check(session_begin(&options, &session, &error) == SESSION_ERR_USAGE &&
            strstr(error.message, "no event pattern") != NULL,
        "at least one pattern: %s", error.message);
  options.event_patterns = patterns;

  mkdir(in_work("full"), 0755);
  write_file(in_work("full/metadata"), "x", 0644);
  options.output_dir = in_work("full");
  check(session_begin(&options, &session, &error) == SESSION_ERR_OUTPUT &&
            strstr(error.message, "Cannot use output folder") != NULL &&
            strstr(error.message, "not empty") != NULL,
        "a non-empty output folder is refused: %s", error.message);
  options.output_dir = in_work("full/metadata");
  check(session_begin(&options, &session, &error) == SESSION_ERR_OUTPUT &&
            strstr(error.message, "not a folder") != NULL,
        "a file as output folder is refused: %s", error.message);
  check(session == NULL, "no session on failure");
  struct stat st;
  check(stat(in_work("unused"), &st) != 0, "no folder made when the options are wrong");
}

int main(void)
{
  if (mkdtemp(work) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  test_wait_status();
  test_path_search();
  test_environment();
  test_held_child();
  test_session_checks();
  char command[600];
  snprintf(command, sizeof command, "rm -rf %s", work);
  if (system(command) != 0) {
    printf("warning: cannot remove %s\n", work);
  }
  printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}
