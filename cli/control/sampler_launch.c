/* sampler_launch: the sampler beside the app. See sampler_launch.h. */
#include "sampler_launch.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static bool named(const char *entry, const char *const *names) {
  size_t n = strcspn(entry, "=");
  for (size_t i = 0; names && names[i]; i++)
    if (strlen(names[i]) == n && strncmp(entry, names[i], n) == 0)
      return true;
  return false;
}

/* The tracer's environment less LD_PRELOAD and `removed`, with extra's entries winning. */
static char **sampler_environment(const char *const *extra, const char *const *removed) {
  size_t n = 0, k = 0;
  while (environ[n])
    n++;
  for (size_t i = 0; extra && extra[i]; i++)
    n++;
  char **env = calloc(n + 1, sizeof *env);
  if (!env)
    return NULL;
  static const char *const preload[] = {"LD_PRELOAD", NULL};
  for (size_t i = 0; environ[i]; i++)
    if (!named(environ[i], removed) && !named(environ[i], preload) && !named(environ[i], extra))
      env[k++] = environ[i];
  for (size_t i = 0; extra && extra[i]; i++)
    env[k++] = (char *)extra[i];
  return env;
}

int sampler_launch(struct session *session, const char *program, unsigned period_ms,
                   const char *const *extra, const char *const *removed,
                   struct sampler_process *out, char *why, size_t why_size) {
  out->pid = 0;
  char period[32];
  snprintf(period, sizeof period, "%u", period_ms);
  char **env = sampler_environment(extra, removed);
  int go[2];
  if (!env || pipe(go) != 0) {
    snprintf(why, why_size, "Cannot start the sampler: %s", strerror(errno));
    free(env);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, why_size, "Cannot start the sampler: fork: %s", strerror(errno));
    close(go[0]);
    close(go[1]);
    free(env);
    return -1;
  }
  if (pid == 0) {
    /* Runs only once the session records it, so that its first reading is kept. */
    char byte;
    close(go[1]);
    if (read(go[0], &byte, 1) != 1)
      _exit(127);
    close(go[0]);
    /* A stop asked before its handlers are in place (its start is slow: LTTng-UST
     * registers first) waits for them, so that it still ends with a last reading. */
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGINT);
    sigprocmask(SIG_BLOCK, &stops, NULL);
    char *argv[] = {(char *)program, "--period", period, NULL};
    execve(program, argv, env);
    _exit(127);
  }
  close(go[0]);
  free(env);
  struct session_error serr;
  if (session_track_process(session, pid, &serr) != SESSION_OK) {
    snprintf(why, why_size, "Cannot record the sampler: %s", serr.message);
    close(go[1]);
    waitpid(pid, NULL, 0);
    return -1;
  }
  ssize_t written = write(go[1], "g", 1);
  close(go[1]);
  if (written != 1) {
    snprintf(why, why_size, "Cannot start the sampler: %s", strerror(errno));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
  }
  out->pid = pid;
  return 0;
}

int sampler_stop(struct sampler_process *p) {
  if (p->pid <= 0)
    return 0;
  kill(p->pid, SIGTERM);
  int status = 0;
  /* Its last reading takes a few ms; a library that hangs must not hold the trace. */
  for (int i = 0; i < 500; i++) {
    pid_t r = waitpid(p->pid, &status, WNOHANG);
    if (r == p->pid) {
      p->pid = 0;
      return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
    }
    if (r < 0)
      break;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  kill(p->pid, SIGKILL);
  waitpid(p->pid, &status, 0);
  p->pid = 0;
  return -1;
}
