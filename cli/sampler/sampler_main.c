/* tracer-sampler: reads the device counters of every management library the specs'
 * `sample` sections name (NVML, Level Zero Sysman), at a fixed period, as
 * lttng_ust_sampler events. `tracer --sample` runs it beside the app, in a process of its
 * own traced by the same session, so the app's threads make no extra call
 * (docs/sampling.md). It stops on SIGTERM or SIGINT, after one last reading, or when
 * the tracer that started it is gone.
 *
 * Usage: tracer-sampler [--period MS] [--samples N] [--stats]
 *   --samples N  stop after N readings (benchmarks)
 *   --stats      print the readings made and the CPU time they took to stderr at the end
 *                (also when TRACER_SAMPLER_STATS is set: bench/sample_bench.sh)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sampler_backend.h"
#include "sampler_emit.h"
#include "sampler_tracepoints.h"

struct opened {
  const struct sampler_backend *backend;
  void *library;
  unsigned devices;
  char names[SAMPLER_MAX_DEVICES][96];
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int signo) {
  (void)signo;
  stop_requested = 1;
}

static uint64_t cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Opens one backend's library and lists its devices; false (and an `unavailable` event
 * saying why) when it cannot be used here. */
static bool open_backend(const struct sampler_backend *b, struct opened *o) {
  char why[256] = "";
  for (const char *const *e = b->environment; e && *e; e++) {
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
    if (!getenv(name))
      putenv((char *)*e);
  }
  o->backend = b;
  o->library = dlopen(b->library, RTLD_NOW | RTLD_LOCAL);
  if (!o->library) {
    snprintf(why, sizeof why, "%s", dlerror());
  } else {
    int n = b->open(o->library, why, sizeof why);
    if (n == 0)
      snprintf(why, sizeof why, "%s lists no device", b->library);
    if (n > 0) {
      o->devices = (unsigned)n;
      for (unsigned d = 0; d < o->devices; d++)
        b->device_name(d, o->names[d], sizeof o->names[d]);
      return true;
    }
    if (n == 0)
      b->close();
  }
  lttng_ust_tracepoint(lttng_ust_sampler, unavailable, b->name, why);
  return false;
}

static void read_all(struct opened *opened, size_t count, struct sampler_emit *emit) {
  for (size_t i = 0; i < count; i++) {
    emit->backend = opened[i].backend;
    for (unsigned d = 0; d < opened[i].devices; d++) {
      emit->device_name = opened[i].names[d];
      opened[i].backend->read(d, emit);
    }
  }
}

static int usage(void) {
  fprintf(stderr, "Usage: tracer-sampler [--period MS] [--samples N] [--stats]\n");
  return 2;
}

int main(int argc, char **argv) {
  long period_ms = 100, samples = 0;
  bool stats = false;
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    if (strcmp(argv[i], "--period") == 0 && i + 1 < argc) {
      period_ms = strtol(argv[++i], &end, 10);
      if (!end || *end || period_ms <= 0)
        return usage();
    } else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
      samples = strtol(argv[++i], &end, 10);
      if (!end || *end || samples <= 0)
        return usage();
    } else if (strcmp(argv[i], "--stats") == 0) {
      stats = true;
    } else {
      return usage();
    }
  }
  if (getenv("TRACER_SAMPLER_STATS"))
    stats = true;
  struct sigaction sa = {.sa_handler = on_stop};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  /* The tracer starts it with these blocked (sampler_launch.c): one sent meanwhile is
   * taken now. */
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGTERM);
  sigaddset(&stops, SIGINT);
  sigprocmask(SIG_UNBLOCK, &stops, NULL);
  pid_t parent = getppid();

  static struct opened opened[16];
  size_t count = 0;
  for (size_t i = 0; sampler_backends[i] && count < sizeof opened / sizeof *opened; i++)
    if (open_backend(sampler_backends[i], &opened[count]))
      count++;
  static struct sampler_emit emit;
  long readings = 0;
  uint64_t cpu_start = cpu_ns(), read_cpu = 0;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  /* One reading at once, one per period after it, and one last when asked to stop, so
   * the counters cover the whole run. */
  while (count > 0) {
    uint64_t before = cpu_ns();
    read_all(opened, count, &emit);
    read_cpu += cpu_ns() - before;
    readings++;
    if (stop_requested || (samples && readings >= samples))
      break;
    next.tv_nsec += (period_ms % 1000) * 1000000;
    next.tv_sec += period_ms / 1000 + next.tv_nsec / 1000000000;
    next.tv_nsec %= 1000000000;
    while (!stop_requested && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
      ;
    if (getppid() != parent) /* the tracer is gone: nobody will stop the session */
      break;
  }
  for (size_t i = 0; i < count; i++)
    opened[i].backend->close();
  if (stats)
    fprintf(stderr, "readings=%ld values=%lu cpu_ns=%llu read_cpu_ns=%llu\n", readings, emit.values,
            (unsigned long long)(cpu_ns() - cpu_start), (unsigned long long)read_cpu);
  return 0;
}
