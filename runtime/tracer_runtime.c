/* tracer_runtime: symbol resolution, clocks, device command events, debug log. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tracer_tracepoints.h"

#include "tracer_recording.h"
#include "tracer_runtime.h"
#include "tracer_signals.h"
#include "tracer_wrappers.h"

#include "tracer_calibration.h"
#include "tracer_clock.h"
#include "rank_env.h"

#include <dlfcn.h>
#include <link.h>
#include <lttng/ust-clock.h>
#include <signal.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static void write_line(const char *prefix, const char *fmt, va_list ap) {
  char line[512];
  int n = snprintf(line, sizeof line, "tracer[%ld/%ld]: %s", (long)getpid(),
                   (long)syscall(SYS_gettid), prefix);
  if (n < 0 || (size_t)n >= sizeof line)
    return;
  int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
  if (len >= sizeof line - 1)
    len = sizeof line - 2;
  line[len++] = '\n';
  ssize_t ignored = write(STDERR_FILENO, line, len);
  (void)ignored;
}

void tracer_debug(const char *fmt, ...) {
  static int enabled = -1;
  if (enabled < 0)
    enabled = getenv("TRACER_DEBUG") != NULL;
  if (!enabled)
    return;
  va_list ap;
  va_start(ap, fmt);
  write_line("", fmt, ap);
  va_end(ap);
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  write_line("error: ", fmt, ap);
  va_end(ap);
  abort();
}

void *tracer_resolve(const char *library, const char *symbol, void **slot) {
  /* The app normally has the library loaded already: find that copy first, so a call
   * never goes to a second instance with its own state. */
  void *handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle)
    handle = dlopen(library, RTLD_LAZY | RTLD_GLOBAL);
  if (!handle)
    fatal("Cannot load the traced library: library=%s: %s", library, dlerror());
  void *fn = dlsym(handle, symbol);
  if (!fn) /* declared with the library's API, exported by another library */
    fn = tracer_find_elsewhere(symbol, __builtin_return_address(0));
  if (!fn)
    fatal("Cannot find the traced function: library=%s, symbol=%s: no loaded library "
          "defines it",
          library, symbol);
  __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  tracer_debug("resolved %s in %s at %p", symbol, library, fn);
  return fn;
}

int32_t tracer_cached_pid;
__thread int32_t tracer_cached_tid __attribute__((tls_model("initial-exec")));

int32_t tracer_pid_slow(void) {
  int32_t pid = (int32_t)getpid();
  __atomic_store_n(&tracer_cached_pid, pid, __ATOMIC_RELAXED);
  return pid;
}

int32_t tracer_tid_slow(void) {
  tracer_cached_tid = (int32_t)syscall(SYS_gettid);
  return tracer_cached_tid;
}

/* A fork child has its own ids; the thread that forked it carries the parent's cache. */
static struct tracer_thread_calls *all_thread_calls;

/* A fork child has its own ids; the thread that forked it carries the parent's cache. Its
 * counted entries are the parent's, which the parent writes: the child starts at zero. */
static void reset_ids_in_child(void) {
  tracer_cached_pid = 0;
  tracer_cached_tid = 0;
  for (struct tracer_thread_calls *t = all_thread_calls; t; t = t->next) {
    memset(t->counted, 0, sizeof t->counted);
    for (int i = 0; i < TRACER_BATCH_BACKENDS; i++)
      t->batches[i].count = 0; /* the parent's calls: the parent writes them */
    if (t == tracer_thread_calls) {
      t->tid = (int)syscall(SYS_gettid); /* the child's one thread */
      for (unsigned i = 0; i < t->poll_count && i < TRACER_POLL_STATES; i++)
        t->polls[i]->pending = t->polls[i]->folded = 0; /* the parent's polls */
    } else {
      t->depth = 0; /* the parent's other threads: not in the child */
      t->alive = 0;
      t->poll_count = 0;
    }
  }
}

struct code_search {
  uintptr_t address;
  struct tracer_code *code;
};

static int find_code(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct code_search *search = data;
  struct tracer_code found = {.count = 0};
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (search->address >= lo && search->address < hi)
      contains = true;
    if ((ph->p_flags & PF_X) && found.count < 4) {
      found.lo[found.count] = lo;
      found.hi[found.count++] = hi;
    }
  }
  if (!contains)
    return 0;
  *search->code = found;
  return 1;
}

void tracer_code_of(const void *address, struct tracer_code *code) {
  struct code_search search = {(uintptr_t)address, code};
  code->count = 0;
  dl_iterate_phdr(find_code, &search);
}

void *tracer_loaded_library(const char *library) {
  return dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
}

void tracer_resolve_from(void *handle, const char *symbol, void **slot) {
  void *fn = dlsym(handle, symbol);
  if (fn)
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
}

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool tracer_clock_is_tsc;
/* A (TSC, raw) pair read when the runtime started: with a pair read at conversion time,
 * the TSC's rate over the app's life so far. */
static uint64_t start_tsc, start_raw;

/* LTTng-UST loads its clock plugin in its own constructors, which run before ours. */
static void detect_trace_clock(void) {
  lttng_ust_clock_name_function name = NULL;
  tracer_clock_is_tsc = lttng_ust_trace_clock_get_name_cb(&name) == 0 && name &&
                        strcmp(name(), TRACER_CLOCK_TSC_NAME) == 0;
  if (tracer_clock_is_tsc)
    tracer_clock_tsc_pair(&start_tsc, &start_raw);
  tracer_debug("trace clock: %s", tracer_clock_is_tsc ? TRACER_CLOCK_TSC_NAME : "monotonic");
}

static uint64_t raw_to_tsc(uint64_t raw_ns) {
  uint64_t tsc, raw;
  tracer_clock_tsc_pair(&tsc, &raw);
  /* An error of ~20 ns in the pairs, scaled by how far back raw_ns is over how long
   * the app has run: nanoseconds for a command that ended just before its callback. */
  double elapsed = raw - start_raw > 1000 ? (double)(raw - start_raw) : 1000.0;
  double ticks_per_ns = (double)(tsc - start_tsc) / elapsed;
  return tsc - (uint64_t)((double)(int64_t)(raw - raw_ns) * ticks_per_ns);
}

/* What to add to a CLOCK_MONOTONIC_RAW time to have it on CLOCK_MONOTONIC, now. */
static uint64_t raw_to_monotonic_offset(void) {
  /* MONOTONIC and MONOTONIC_RAW drift apart slowly (NTP slews only the former), so the
   * offset is measured at each conversion, between two reads of the raw clock: the
   * tightest of a few tries, since a thread preempted between the reads would put its
   * device times off by the preemption (milliseconds on a loaded machine). */
  uint64_t best_gap = UINT64_MAX, offset = 0;
  for (int attempt = 0; attempt < 8 && best_gap > 1000; attempt++) {
    uint64_t raw_before = clock_ns(CLOCK_MONOTONIC_RAW);
    uint64_t mono = clock_ns(CLOCK_MONOTONIC);
    uint64_t raw_after = clock_ns(CLOCK_MONOTONIC_RAW);
    if (raw_after - raw_before < best_gap) {
      best_gap = raw_after - raw_before;
      offset = mono - (raw_before + best_gap / 2);
    }
  }
  return offset;
}

uint64_t tracer_clock_raw_to_trace(uint64_t raw_ns) {
  return tracer_clock_is_tsc ? raw_to_tsc(raw_ns) : raw_ns + raw_to_monotonic_offset();
}

void tracer_clock_raw_span_to_trace(uint64_t *start, uint64_t *end) {
  if (tracer_clock_is_tsc) {
    *start = raw_to_tsc(*start);
    *end = raw_to_tsc(*end);
    return;
  }
  uint64_t offset = raw_to_monotonic_offset();
  *start += offset;
  *end += offset;
}

void tracer_device_command(const char *backend, enum tracer_command_kind kind, const char *name,
                           uint64_t bytes, uintptr_t queue, uint64_t start, uint64_t end) {
  tracer_device_command_of(NULL, backend, kind, name, bytes, queue, start, end);
}

void tracer_device_command_of(const struct tracer_call_id *call, const char *backend,
                              enum tracer_command_kind kind, const char *name, uint64_t bytes,
                              uintptr_t queue, uint64_t start, uint64_t end) {
  tracer_device_command_on(call, backend, TRACER_DEVICE_UNKNOWN, kind, name, bytes, queue, start,
                           end);
}

void tracer_device_command_on(const struct tracer_call_id *call, const char *backend,
                              int32_t device, enum tracer_command_kind kind, const char *name,
                              uint64_t bytes, uintptr_t queue, uint64_t start, uint64_t end) {
  char device_name[TRACER_DEVICE_NAME] = "";
  if (device != TRACER_DEVICE_UNKNOWN)
    tracer_device_name_of(backend, device, device_name, sizeof device_name);
  struct tracer_command_origin origin = {call ? *call : (struct tracer_call_id){0, 0, 0}, device,
                                         device_name};
  if (tracer_recording_limited())
    return; /* the trace reached its bound: its host calls are counted, not recorded */
  lttng_ust_tracepoint(lttng_ust_tracer, device_command, tracer_pid(), tracer_tid(), backend,
                       (uint8_t)kind, name ? name : "", bytes, queue, start, end, &origin);
}

void tracer_pc_sample(const char *function, uint64_t pc_offset, const char *stall,
                      uint64_t samples) {
  if (tracer_recording_limited())
    return;
  lttng_ust_tracepoint(lttng_ust_tracer, pc_sample, tracer_pid(), tracer_tid(), function,
                       pc_offset, stall, samples);
}

struct tracer_call_id tracer_call_returned(void) {
  struct tracer_thread_calls *t = tracer_thread_calls;
  if (!t || t->depth >= TRACER_INFLIGHT_DEPTH || !t->calls[t->depth].start)
    return (struct tracer_call_id){0, 0, 0};
  return (struct tracer_call_id){tracer_tid(), t->calls[t->depth].start, t->calls[t->depth].stack};
}

/* Children: a tracer whose session records only the app's processes names a socket in
 * TRACER_FORK_SOCKET. The runtime sends the pid of each new process there and waits for
 * the tracer to add it (cli/control/fork_listener.c): from a fork child before LTTng-UST
 * registers it (pthread_atfork), and from every program started with the preload
 * (the constructor), which covers vfork, posix_spawn and shell scripts, whose children
 * run no atfork handler. Only async-signal-safe calls: the parent may have had other
 * threads when it forked. */
static char fork_socket[sizeof(((struct sockaddr_un *)0)->sun_path)];

static void notify_fork_child(void) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  memcpy(addr.sun_path, fork_socket, sizeof fork_socket);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) {
    char digits[24], text[24];
    long pid = (long)getpid();
    size_t n = 0, len = 0;
    do
      digits[n++] = (char)('0' + pid % 10);
    while ((pid /= 10) > 0);
    while (n > 0)
      text[len++] = digits[--n];
    if (write(fd, text, len) == (ssize_t)len) {
      struct pollfd p = {fd, POLLIN, 0};
      char ack;
      if (poll(&p, 1, 10000) > 0 && read(fd, &ack, 1) == 1)
        tracer_debug("child %ld recorded", (long)getpid());
    }
  }
  close(fd);
}

__thread struct tracer_thread_calls *tracer_thread_calls __attribute__((tls_model("initial-exec")));
static pthread_key_t thread_calls_key;

static void thread_calls_end(void *arg) {
  struct tracer_thread_calls *t = arg;
  tracer_counted_write_all(t);
  tracer_batch_write_all(t);
  t->alive = 0; /* the thread ended with its calls: nothing of it is unfinished */
  t->depth = 0;
}

struct tracer_thread_calls *tracer_thread_calls_register(void) {
  /* Allocated once per thread and never freed: an exit handler may walk the list while
   * threads end. Threads that end mark their record dead; records are reused. */
  for (struct tracer_thread_calls *t = __atomic_load_n(&all_thread_calls, __ATOMIC_ACQUIRE); t;
       t = t->next) {
    int dead = 0;
    if (__atomic_compare_exchange_n(&t->alive, &dead, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      t->depth = 0;
      t->last_end = 0;   /* the dead thread's */
      t->poll_count = 0; /* the dead thread's states, whose polls it wrote when it ended */
      t->tid = (int)syscall(SYS_gettid);
      tracer_thread_calls = t;
      pthread_setspecific(thread_calls_key, t);
      return t;
    }
  }
  struct tracer_thread_calls *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->alive = 1;
  t->tid = (int)syscall(SYS_gettid);
  struct tracer_thread_calls *head = __atomic_load_n(&all_thread_calls, __ATOMIC_ACQUIRE);
  do
    t->next = head;
  while (!__atomic_compare_exchange_n(&all_thread_calls, &head, t, 1, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE));
  tracer_thread_calls = t;
  pthread_setspecific(thread_calls_key, t);
  return t;
}

void tracer_write_pending(void) {
  tracer_debug("writing the calls in flight");
  for (struct tracer_thread_calls *t = __atomic_load_n(&all_thread_calls, __ATOMIC_ACQUIRE); t;
       t = t->next) {
    if (!t->alive)
      continue;
    tracer_counted_write_all(t);
    tracer_batch_write_all(t);
    unsigned depth = t->depth < TRACER_INFLIGHT_DEPTH ? t->depth : TRACER_INFLIGHT_DEPTH;
    /* A counted call reads no trace clock at its start: it is written as starting now. */
    for (unsigned i = 0; i < depth; i++)
      lttng_ust_tracepoint(lttng_ust_tracer, unfinished, tracer_pid(), t->tid, t->calls[i].backend,
                           t->calls[i].function,
                           t->calls[i].start ? t->calls[i].start : tracer_now());
    t->depth = 0;
  }
}

void tracer_batch_write_everywhere(int index) {
  for (struct tracer_thread_calls *t = __atomic_load_n(&all_thread_calls, __ATOMIC_ACQUIRE); t;
       t = t->next)
    if (t->alive)
      tracer_batch_write(t, index);
}

__attribute__((destructor)) static void tracer_runtime_fini(void) { tracer_write_pending(); }

__attribute__((constructor)) static void tracer_runtime_init(void) {
  detect_trace_clock();
  pthread_key_create(&thread_calls_key, thread_calls_end);
  pthread_atfork(NULL, NULL, reset_ids_in_child);
  tracer_signals_init();
  const char *path = getenv("TRACER_FORK_SOCKET");
  if (path && *path && strlen(path) < sizeof fork_socket) {
    memcpy(fork_socket, path, strlen(path) + 1);
    pthread_atfork(NULL, NULL, notify_fork_child);
    notify_fork_child();
  }
  uint64_t read_cost = tracer_clock_read_cost();
  tracer_counted_init(read_cost);
  tracer_limit_note_clock_read(read_cost);
  /* After notify_fork_child: only then does the session record this process. */
  lttng_ust_tracepoint(lttng_ust_tracer, clock_read, tracer_pid(), tracer_tid(), read_cost,
                       tracer_counted_call_ps());
  struct rank_env rank;
  rank_env_read(&rank);
  if (rank.present)
    lttng_ust_tracepoint(lttng_ust_tracer, rank, tracer_pid(), tracer_tid(), rank.launcher,
                         rank.rank, rank.size, rank.local_rank, rank.local_size);
  tracer_calibrate_if_asked();
}
