/* session_test_app: the traced app of the session/launch tests.
 *
 *   session_test_app [--events N] [--tag T] [--pause-us U] [--fork] [--echo-stdin]
 *                    [--report FILE] [--wait-signals FILE] [--exit CODE] [--kill SIG]
 *
 * It emits session_test:tick events (the first one at the very top of main, to prove the
 * app was registered before main ran), writes fixed lines to stdout and stderr (compared
 * with an untraced run), and on request reports what it was launched with, counts the
 * signals it gets, forks a child that traces too, or ends with a given status or signal.
 */
#define _GNU_SOURCE
#include "session_test_tp.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t count_int, count_usr1, count_term;

static void count_signal(int signal_number)
{
  if (signal_number == SIGINT) {
    count_int++;
  } else if (signal_number == SIGUSR1) {
    count_usr1++;
  } else if (signal_number == SIGTERM) {
    count_term++;
  }
}

static void sleep_us(long us)
{
  struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void emit(int first, int count, const char *tag, long pause_us)
{
  for (int i = first; i < count; i++) {
    lttng_ust_tracepoint(session_test, tick, i, tag);
    if (pause_us > 0) {
      sleep_us(pause_us);
    }
  }
}

static const char *env_or_unset(const char *name)
{
  const char *value = getenv(name);
  return value != NULL ? value : "(unset)";
}

static bool has_symbol(const char *name)
{
  return dlsym(RTLD_DEFAULT, name) != NULL;
}

/* liblttng-ust-fork wraps fork(): the fork the app calls must come from it. */
static bool fork_is_wrapped(void)
{
  Dl_info info;
  void *fork_symbol = dlsym(RTLD_DEFAULT, "fork");
  return fork_symbol != NULL && dladdr(fork_symbol, &info) != 0 && info.dli_fname != NULL &&
         strstr(info.dli_fname, "liblttng-ust-fork") != NULL;
}

static int write_report(const char *path)
{
  FILE *file = fopen(path, "w");
  if (file == NULL) {
    return -1;
  }
  fprintf(file, "LD_PRELOAD=%s\n", env_or_unset("LD_PRELOAD"));
  fprintf(file, "LTTNG_HOME=%s\n", env_or_unset("LTTNG_HOME"));
  fprintf(file, "LTTNG_UST_REGISTER_TIMEOUT=%s\n", env_or_unset("LTTNG_UST_REGISTER_TIMEOUT"));
  fprintf(file, "LTTNG_UST_ALLOW_BLOCKING=%s\n", env_or_unset("LTTNG_UST_ALLOW_BLOCKING"));
  fprintf(file, "interposer_loaded=%d\n", has_symbol("session_test_interposer_marker"));
  fprintf(file, "user_preload_loaded=%d\n", has_symbol("session_test_user_marker"));
  fprintf(file, "fork_wrapped=%d\n", fork_is_wrapped());
  fprintf(file, "pid=%ld\n", (long)getpid());
  struct sigaction pipe_action;
  sigaction(SIGPIPE, NULL, &pipe_action);
  fprintf(file, "SIGPIPE=%s\n", pipe_action.sa_handler == SIG_IGN ? "ignored" : "default");
  return fclose(file);
}

/* Counts SIGINT, SIGUSR1 and SIGTERM until a SIGTERM arrives, waits a little longer so
 * that a duplicate delivery would be counted too, then writes the counts. */
static int wait_for_signals(const char *path)
{
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = count_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGUSR1, &action, NULL);
  sigaction(SIGTERM, &action, NULL);

  char ready[4096];
  snprintf(ready, sizeof ready, "%s.ready", path);
  FILE *marker = fopen(ready, "w");
  if (marker == NULL || fclose(marker) != 0) {
    return -1;
  }
  for (int waited_ms = 0; count_term == 0 && waited_ms < 20000; waited_ms += 10) {
    sleep_us(10000);
  }
  sleep_us(300000);

  FILE *file = fopen(path, "w");
  if (file == NULL) {
    return -1;
  }
  fprintf(file, "SIGINT=%d SIGUSR1=%d SIGTERM=%d\n", (int)count_int, (int)count_usr1,
          (int)count_term);
  return fclose(file);
}

int main(int argc, char **argv)
{
  int events = 10, exit_code = 0, kill_signal = 0;
  long pause_us = 0;
  const char *tag = "app", *report = NULL, *signals_file = NULL;
  bool do_fork = false, echo_stdin = false;

  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "--fork") == 0) {
      do_fork = true;
    } else if (strcmp(arg, "--echo-stdin") == 0) {
      echo_stdin = true;
    } else if (value == NULL) {
      fprintf(stderr, "session_test_app: %s needs a value\n", arg);
      return 2;
    } else if (strcmp(arg, "--events") == 0) {
      events = atoi(value), i++;
    } else if (strcmp(arg, "--tag") == 0) {
      tag = value, i++;
    } else if (strcmp(arg, "--pause-us") == 0) {
      pause_us = atol(value), i++;
    } else if (strcmp(arg, "--report") == 0) {
      report = value, i++;
    } else if (strcmp(arg, "--wait-signals") == 0) {
      signals_file = value, i++;
    } else if (strcmp(arg, "--exit") == 0) {
      exit_code = atoi(value), i++;
    } else if (strcmp(arg, "--kill") == 0) {
      kill_signal = atoi(value), i++;
    } else {
      fprintf(stderr, "session_test_app: unknown option %s\n", arg);
      return 2;
    }
  }

  /* The first event, before any other work: lost unless the app registered with the
   * session daemon before main ran. */
  lttng_ust_tracepoint(session_test, tick, 0, tag);

  printf("session_test_app: stdout line, tag=%s, events=%d\n", tag, events);
  fprintf(stderr, "session_test_app: stderr line, tag=%s\n", tag);
  if (echo_stdin) {
    char line[256];
    while (fgets(line, sizeof line, stdin) != NULL) {
      printf("stdin: %s", line);
    }
  }
  fflush(stdout);

  if (report != NULL && write_report(report) != 0) {
    perror("session_test_app: report");
    return 2;
  }

  pid_t child = -1;
  char child_tag[128];
  snprintf(child_tag, sizeof child_tag, "%s-child", tag);
  if (do_fork) {
    child = fork();
    if (child == 0) {
      emit(0, events, child_tag, pause_us);
      _exit(0);
    }
  }
  emit(1, events, tag, pause_us);
  if (child > 0) {
    int status;
    waitpid(child, &status, 0);
  }

  if (signals_file != NULL && wait_for_signals(signals_file) != 0) {
    perror("session_test_app: signals");
    return 2;
  }
  printf("session_test_app: done\n");
  fflush(stdout);
  if (kill_signal != 0) {
    /* Default action, even if a parent left the signal ignored or blocked. */
    signal(kill_signal, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, kill_signal);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(kill_signal);
  }
  return exit_code;
}
