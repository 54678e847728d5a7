/* longrun: a long-running app that stops cleanly on SIGINT or SIGTERM.
 *
 * It catches both, then loops: a round of OpenCL calls (clGetPlatformIDs, then
 * clGetPlatformInfo) and its count file rewritten ($REL_COUNT, see rel_count.h), 1 ms of
 * sleep. Once a signal has come it goes on for 300 ms more, so that a second copy of the
 * signal (one delivered twice) is seen too, then prints how many of each it received and
 * exits with 64 + the first signal's number (SIGINT: 66, SIGTERM: 79). With no signal it
 * gives up after 30 s and exits 1.
 * usage: longrun */
#include "rel_count.h"

#include <signal.h>
#include <time.h>

static volatile sig_atomic_t ints, terms, first;

static void on_signal(int sig) {
  if (sig == SIGINT)
    ints++;
  else
    terms++;
  if (!first)
    first = sig;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  cl_platform_id platform = rel_start();
  double start = now_s(), signalled = 0;
  for (;;) {
    cl_uint n = 0;
    char name[256];
    rel_platform_ids(0, NULL, &n);
    rel_flush();
    rel_platform_name(platform, name, sizeof name);
    rel_flush();
    struct timespec pause = {0, 1000000L};
    nanosleep(&pause, NULL);
    double t = now_s();
    if (first && signalled == 0)
      signalled = t;
    if (signalled > 0 && t - signalled >= 0.3)
      break;
    if (t - start > 30) {
      fprintf(stderr, "longrun: no signal after 30 s\n");
      return 1;
    }
  }
  printf("longrun: SIGINT received %d time(s), SIGTERM received %d time(s)\n", (int)ints,
         (int)terms);
  return 64 + first;
}
