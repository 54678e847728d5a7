/* crash: makes ROUNDS rounds of OpenCL calls, rewriting its count file ($REL_COUNT, see
 * rel_count.h) after every call, then ends as MODE says:
 *
 *   segv          writes through a null pointer (a real fault, in the app's code)
 *   segv-in-call  passes an invalid buffer to clGetPlatformInfo: the fault happens inside
 *                 the OpenCL library, in the middle of a traced call that never returns
 *   segv-handler  the app's own crash report: at start it installs a SIGSEGV handler
 *                 where none is set, as Open MPI does (its "*** Process received signal
 *                 ***"), then faults inside clGetPlatformInfo; the handler prints a
 *                 line on stdout, puts back the default action and raises the signal again
 *   abort         abort()
 *   exit          _exit(7): no atexit handlers, no destructors, stdio not flushed
 *   wait          waits to be killed from outside (sleeps forever)
 *   term-ignore   catches SIGTERM and goes on: after the first SIGTERM it makes
 *                 AFTER more rounds (think: a checkpoint), prints how many SIGTERMs
 *                 it got, then waits to be killed
 *
 * A round is clGetPlatformIDs, clGetPlatformInfo and, every 4th round, clGetDeviceIDs.
 * usage: crash MODE ROUNDS [AFTER] */
#include "rel_count.h"

#include <signal.h>
#include <stdint.h>
#include <time.h>

static volatile sig_atomic_t got_term;

static void on_term(int sig) {
  (void)sig;
  got_term++;
}

static void on_segv(int sig, siginfo_t *info, void *context) {
  (void)info;
  (void)context;
  static const char line[] = "crash: the app's own SIGSEGV handler ran\n";
  ssize_t ignored = write(STDOUT_FILENO, line, sizeof line - 1);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

/* As Open MPI's opal_util_register_stackframe_handler: only where nothing is set. */
static void install_crash_report(void) {
  struct sigaction old;
  if (sigaction(SIGSEGV, NULL, &old) != 0 || old.sa_handler != SIG_DFL) {
    printf("crash: a SIGSEGV handler is set already: the app's own is not installed\n");
    return;
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, NULL);
}

static void round_of_calls(cl_platform_id platform, int round) {
  cl_uint n = 0;
  char name[256];
  rel_platform_ids(0, NULL, &n);
  rel_flush();
  rel_platform_name(platform, name, sizeof name);
  rel_flush();
  if (round % 4 == 0) {
    rel_device_count(platform, &n);
    rel_flush();
  }
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: crash MODE ROUNDS [AFTER]\n");
    return 2;
  }
  const char *mode = argv[1];
  int rounds = atoi(argv[2]), after = argc > 3 ? atoi(argv[3]) : 0;
  if (strcmp(mode, "term-ignore") == 0) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_term;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, NULL);
  }
  if (strcmp(mode, "segv-handler") == 0)
    install_crash_report();
  cl_platform_id platform = rel_start();
  for (int r = 0; r < rounds; r++)
    round_of_calls(platform, r);
  printf("crash: %s after %d rounds\n", mode, rounds);
  if (strcmp(mode, "exit") == 0)
    _exit(7); /* the line above stays in stdio's buffer when stdout is not a terminal */
  fflush(stdout);
  if (strcmp(mode, "segv") == 0) {
    *(volatile int *)(uintptr_t)argc = 1; /* address 3: never mapped */
  } else if (strcmp(mode, "segv-in-call") == 0 || strcmp(mode, "segv-handler") == 0) {
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, 256, (void *)(uintptr_t)16, NULL);
    rel_note(REL_GET_PLATFORM_INFO); /* not reached */
  } else if (strcmp(mode, "abort") == 0) {
    abort();
  } else if (strcmp(mode, "wait") == 0) {
    for (;;)
      pause();
  } else if (strcmp(mode, "term-ignore") == 0) {
    while (!got_term)
      pause();
    for (int r = 0; r < after; r++) {
      round_of_calls(platform, r);
      sleep_ms(2);
    }
    printf("crash: %d more rounds after SIGTERM; SIGTERM received %d time(s)\n", after,
           (int)got_term);
    fflush(stdout);
    for (;;)
      pause();
  }
  fprintf(stderr, "crash: unknown mode %s, or it did not end the process\n", mode);
  return 2;
}
