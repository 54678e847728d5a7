/* daemon_watchdog: ends a tracer whose session daemon stopped answering. */
#include "daemon_watchdog.h"

#include <signal.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The main thread and the fork listener's: two at once at most, with room to spare. */
#define WATCH_SLOTS 8

struct watch {
  bool armed;
  struct timespec deadline; /* CLOCK_MONOTONIC */
  char message[sizeof ((struct session_error *)0)->message];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed;
static bool thread_started;
static struct watch watches[WATCH_SLOTS];
static session_hang_handler hang_handler;

static void default_handler(const char *message)
{
  /* Only async-signal-safe calls: the process is about to end with a thread blocked in
   * liblttng-ctl, which may hold stdio or malloc locks. */
  size_t len = strlen(message);
  ssize_t ignored = write(STDERR_FILENO, message, len);
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  _exit(SESSION_HANG_EXIT_STATUS);
}

static bool before(const struct timespec *a, const struct timespec *b)
{
  return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *watch_main(void *unused)
{
  (void)unused;
  pthread_mutex_lock(&lock);
  for (;;) {
    struct watch *next = NULL;
    for (size_t i = 0; i < WATCH_SLOTS; i++) {
      if (watches[i].armed && (next == NULL || before(&watches[i].deadline, &next->deadline))) {
        next = &watches[i];
      }
    }
    if (next == NULL) {
      pthread_cond_wait(&changed, &lock);
      continue;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (before(&now, &next->deadline)) {
      pthread_cond_timedwait(&changed, &lock, &next->deadline);
      continue;
    }
    char message[sizeof next->message];
    memcpy(message, next->message, sizeof message);
    next->armed = false;
    session_hang_handler handler = hang_handler != NULL ? hang_handler : default_handler;
    pthread_mutex_unlock(&lock);
    handler(message);
    default_handler(message); /* a handler must not return; if it does, end anyway */
  }
  return NULL;
}

/* Called with the lock held. */
static bool start_thread(void)
{
  if (thread_started) {
    return true;
  }
  pthread_condattr_t attributes;
  if (pthread_condattr_init(&attributes) != 0 ||
      pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) != 0 ||
      pthread_cond_init(&changed, &attributes) != 0) {
    return false;
  }
  pthread_condattr_destroy(&attributes);
  pthread_t thread;
  pthread_attr_t thread_attributes;
  if (pthread_attr_init(&thread_attributes) != 0) {
    return false;
  }
  pthread_attr_setdetachstate(&thread_attributes, PTHREAD_CREATE_DETACHED);
  /* The watchdog must not take signals meant for the tracer (forwarded to the app). */
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  int rc = pthread_create(&thread, &thread_attributes, watch_main, NULL);
  pthread_sigmask(SIG_SETMASK, &previous, NULL);
  pthread_attr_destroy(&thread_attributes);
  thread_started = rc == 0;
  return thread_started;
}

int daemon_watchdog_arm(int timeout_ms, const char *fmt, ...)
{
  pthread_mutex_lock(&lock);
  int slot = -1;
  if (start_thread()) {
    for (int i = 0; i < WATCH_SLOTS && slot < 0; i++) {
      if (!watches[i].armed) {
        slot = i;
      }
    }
  }
  if (slot >= 0) {
    struct watch *watch = &watches[slot];
    va_list args;
    va_start(args, fmt);
    vsnprintf(watch->message, sizeof watch->message, fmt, args);
    va_end(args);
    clock_gettime(CLOCK_MONOTONIC, &watch->deadline);
    watch->deadline.tv_sec += timeout_ms / 1000;
    watch->deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (watch->deadline.tv_nsec >= 1000000000L) {
      watch->deadline.tv_sec++;
      watch->deadline.tv_nsec -= 1000000000L;
    }
    watch->armed = true;
    pthread_cond_signal(&changed);
  }
  pthread_mutex_unlock(&lock);
  return slot;
}

void daemon_watchdog_disarm(int slot)
{
  if (slot < 0 || slot >= WATCH_SLOTS) {
    return;
  }
  pthread_mutex_lock(&lock);
  watches[slot].armed = false;
  pthread_mutex_unlock(&lock);
}

void daemon_watchdog_set_handler(session_hang_handler handler)
{
  pthread_mutex_lock(&lock);
  hang_handler = handler;
  pthread_mutex_unlock(&lock);
}
