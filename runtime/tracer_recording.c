/* tracer_recording: see tracer_recording.h. */
#include "tracer_recording.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tracer_limit.h"
#include "tracer_runtime.h"
#include "tracer_tracepoints.h"

volatile int tracer_paused;
static const int no_limit;
const volatile int *tracer_limit = &no_limit;
static uint64_t paused_since; /* trace clock, valid while tracer_paused */

void tracer_recording_pause(void) {
  uint64_t now = tracer_now();
  if (__atomic_exchange_n(&tracer_paused, 1, __ATOMIC_ACQ_REL) == 0)
    __atomic_store_n(&paused_since, now, __ATOMIC_RELEASE);
}

void tracer_recording_resume(void) {
  uint64_t since = __atomic_load_n(&paused_since, __ATOMIC_ACQUIRE);
  if (__atomic_exchange_n(&tracer_paused, 0, __ATOMIC_ACQ_REL) == 0)
    return;
  lttng_ust_tracepoint(lttng_ust_tracer, paused, tracer_pid(), tracer_tid(), since,
                       tracer_now());
}

/* A pause still on when the process ends lasted until then. */
__attribute__((destructor)) static void tracer_recording_fini(void) { tracer_recording_resume(); }

/* The limit file's page, writable: NULL when unmapped or mapped read-only (the process
 * then spends no budget; the tracer's watch still bounds the trace). */
static struct tracer_limit_file *limit_page;

/* Maps the tracer's limit file (tracer_limit.h). Shared, so the tracer's write is seen at
 * once by every process, forked children included; a process that cannot map it records
 * on, and the tracer stops the session when the trace reaches the bound. */
static void map_limit(void) {
  const char *path = getenv("TRACER_LIMIT_FILE");
  if (!path || !*path)
    return;
  bool writable = true;
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    writable = false;
    fd = open(path, O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    tracer_debug("cannot open the limit file %s", path);
    return;
  }
  struct stat st;
  void *page = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(struct tracer_limit_file))
    page = mmap(NULL, sizeof(struct tracer_limit_file), PROT_READ | (writable ? PROT_WRITE : 0),
                MAP_SHARED, fd, 0);
  close(fd);
  if (page == MAP_FAILED) {
    tracer_debug("cannot map the limit file %s", path);
    return;
  }
  if (writable)
    limit_page = page;
  __atomic_store_n(&tracer_limit, (const volatile int *)&((struct tracer_limit_file *)page)->limited,
                   __ATOMIC_RELEASE);
}

static pthread_once_t limit_mapped = PTHREAD_ONCE_INIT;

void tracer_limit_note_clock_read(uint64_t cost) {
  pthread_once(&limit_mapped, map_limit); /* the runtime's constructor may run first */
  struct tracer_limit_file *page = limit_page;
  if (!page || !cost)
    return;
  uint64_t least = __atomic_load_n(&page->clock_read_least, __ATOMIC_RELAXED);
  while ((!least || cost < least) &&
         !__atomic_compare_exchange_n(&page->clock_read_least, &least, cost, true,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

void tracer_limit_spend(unsigned calls) {
  struct tracer_limit_file *page = limit_page;
  if (!page || !page->call_budget || __atomic_load_n(&page->limited, __ATOMIC_RELAXED))
    return;
  uint64_t spent = __atomic_add_fetch(&page->calls_spent, calls, __ATOMIC_RELAXED);
  if (spent < page->call_budget)
    return;
  /* The first to get past the budget writes the time, then the word the wrappers read. */
  int32_t none = TRACER_NOT_LIMITED;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  uint64_t at = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
  if (__atomic_compare_exchange_n(&page->limited_at_ns, &(uint64_t){0}, at, false,
                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    __atomic_compare_exchange_n(&page->limited, &none, TRACER_LIMITED_BY_CALLS, false,
                                __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void tracer_recording_init(void) {
  pthread_once(&limit_mapped, map_limit);
  const char *start_paused = getenv("TRACER_START_PAUSED");
  if (start_paused && strcmp(start_paused, "1") == 0)
    tracer_recording_pause();
}

/* Each thread's open regions, innermost last. Deeper ones than the array holds are
 * counted but not kept, so closes still pair with their opens. */
enum { REGION_DEPTH = 64, REGION_NAME = 128 };
struct open_region {
  uint64_t start;
  bool paused; /* the recording was paused when it opened */
  char name[REGION_NAME];
};
/* Allocated on a thread's first region: the runtime may be loaded by dlopen (with a
 * collector), where static TLS has room for a few words only. Never freed: a thread's
 * regions may outlive any destructor we could register. */
static __thread struct open_region *regions;
static __thread unsigned region_depth;

void tracer_region_open(const char *backend, const char *name, uint64_t start) {
  (void)backend;
  unsigned d = region_depth++;
  if (!regions && !(regions = calloc(REGION_DEPTH, sizeof *regions)))
    return;
  if (d >= REGION_DEPTH)
    return;
  regions[d].start = start;
  regions[d].paused = tracer_recording_paused();
  const char *shown = name ? name : "(unnamed)";
  size_t n = strnlen(shown, REGION_NAME - 1);
  memcpy(regions[d].name, shown, n);
  regions[d].name[n] = '\0';
}

void tracer_region_close(const char *backend, uint64_t end) {
  if (region_depth == 0)
    return;
  unsigned d = --region_depth;
  if (!regions || d >= REGION_DEPTH || regions[d].paused || tracer_recording_paused())
    return;
  lttng_ust_tracepoint(lttng_ust_tracer, region, tracer_pid(), tracer_tid(), backend,
                       regions[d].name, (uint16_t)d, regions[d].start, end);
}

void tracer_region_mark(const char *backend, const char *name, uint64_t at) {
  tracer_region_open(backend, name, at);
  tracer_region_close(backend, at);
}

static struct {
  uint64_t id; /* 0: free */
  uint64_t start;
  char name[REGION_NAME];
} ranges[TRACER_RANGES];
static uint64_t last_range;
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t tracer_range_start(const char *backend, const char *name, uint64_t start) {
  (void)backend;
  const char *shown = name ? name : "(unnamed)";
  pthread_mutex_lock(&ranges_lock);
  uint64_t id = ++last_range;
  size_t i = 0;
  while (i < TRACER_RANGES && ranges[i].id)
    i++;
  if (i < TRACER_RANGES) { /* a full table drops the range, never the app's call */
    ranges[i].id = id, ranges[i].start = start;
    snprintf(ranges[i].name, sizeof ranges[i].name, "%s", shown);
  }
  pthread_mutex_unlock(&ranges_lock);
  return id;
}

void tracer_range_end(const char *backend, uint64_t id, uint64_t end) {
  char name[REGION_NAME] = "";
  uint64_t start = 0;
  bool found = false;
  pthread_mutex_lock(&ranges_lock);
  for (size_t i = 0; id && i < TRACER_RANGES && !found; i++)
    if ((found = ranges[i].id == id)) {
      memcpy(name, ranges[i].name, sizeof name);
      start = ranges[i].start;
      ranges[i].id = 0;
    }
  pthread_mutex_unlock(&ranges_lock);
  if (!found)
    return;
  tracer_region_open(backend, name, start);
  tracer_region_close(backend, end);
}
