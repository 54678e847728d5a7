/* tracer_runtime: symbol resolution, clocks, device command events, debug log. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tracer_tracepoints.h"

#include "tracer_runtime.h"

#include <dlfcn.h>
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
  if (!fn)
    fatal("Cannot find the traced function: library=%s, symbol=%s: %s", library, symbol,
          dlerror());
  __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  tracer_debug("resolved %s in %s at %p", symbol, library, fn);
  return fn;
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

uint64_t tracer_clock_raw_to_trace(uint64_t raw_ns) {
  /* MONOTONIC and MONOTONIC_RAW drift apart slowly (NTP slews only the former), so the
   * offset is measured at each conversion, between two reads of the raw clock. */
  uint64_t raw_before = clock_ns(CLOCK_MONOTONIC_RAW);
  uint64_t mono = clock_ns(CLOCK_MONOTONIC);
  uint64_t raw_after = clock_ns(CLOCK_MONOTONIC_RAW);
  uint64_t raw_mid = raw_before + (raw_after - raw_before) / 2;
  return raw_ns + (mono - raw_mid);
}

void tracer_device_command(const char *backend, enum tracer_command_kind kind, const char *name,
                           uint64_t bytes, uintptr_t queue, uint64_t start, uint64_t end) {
  lttng_ust_tracepoint(lttng_ust_tracer, device_command, backend, (uint8_t)kind,
                       name ? name : "", bytes, queue, start, end);
}

/* Children: a tracer whose session records only the app's processes names a socket in
 * TRACER_FORK_SOCKET. The runtime sends the pid of each new process there and waits for
 * the tracer to add it (cli/fork_listener.c): from a fork child before LTTng-UST
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

__attribute__((constructor)) static void tracer_runtime_init(void) {
  const char *path = getenv("TRACER_FORK_SOCKET");
  if (path && *path && strlen(path) < sizeof fork_socket) {
    memcpy(fork_socket, path, strlen(path) + 1);
    pthread_atfork(NULL, NULL, notify_fork_child);
    notify_fork_child();
  }
}
