/* tracer_signals: see tracer_signals.h. Everything the handler touches is async-signal-safe:
 * the views are plain data (two copies per signal, switched atomically), the kernel's
 * disposition is set with the C library's sigaction, and tracepoints may be written from
 * a handler. */
#include "tracer_signals.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "tracer_runtime.h"

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef void (*signal_handler)(int);

enum signal_class {
  UNWATCHED,
  CRASH,   /* the process crashed: what is pending is written before any handler runs */
  ENDING,  /* written only when the default action is to follow */
  JOB_END, /* the rank's tracer died: written, then the app's group killed */
};

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
static const int ending_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,
                                     SIGUSR2, SIGPIPE, SIGALRM, SIGXCPU};

static uint8_t classes[NSIG];
/* The app's view of each handled signal: what it set last, or what was there when the
 * runtime loaded. Two copies: a writer fills the one not current, then switches. */
static struct sigaction views[NSIG][2];
static volatile uint8_t current_view[NSIG];
static volatile bool ready;
static int view_lock;
/* The job's end (TRACER_END_SIGNAL): the process the tracer started, and its parent then. */
static pid_t job_app, job_tracer;

static sigaction_fn *real_sigaction(void) {
  static sigaction_fn *cached;
  sigaction_fn *fn = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
  if (!fn) {
    /* dlvsym is not interposed (the runtime's dlsym is): the C library's own. */
    fn = (sigaction_fn *)dlvsym(RTLD_NEXT, "sigaction", "GLIBC_2.2.5");
    if (!fn)
      fn = (sigaction_fn *)dlsym(RTLD_NEXT, "sigaction");
    __atomic_store_n(&cached, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

static bool is_handler(const struct sigaction *a) {
  return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

static void on_signal(int sig, siginfo_t *info, void *context);

/* The disposition the kernel gets for the app's view of sig. */
static int install(int sig, const struct sigaction *view) {
  struct sigaction k;
  memset(&k, 0, sizeof k);
  if (view->sa_handler == SIG_IGN && classes[sig] != CRASH) {
    k.sa_handler = SIG_IGN; /* nothing arrives, nothing to write */
    sigemptyset(&k.sa_mask);
  } else if (!is_handler(view)) {
    /* The default action after the handler (default_action). The signal stays blocked
     * while it writes: a second one (a group's signal passed on by the tracer too, the
     * parent-death signal sent as each of the tracer's threads ends) must not end the
     * process half-way; it is let in by the default action. */
    k.sa_sigaction = on_signal;
    k.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&k.sa_mask);
  } else {
    /* The app's handler runs under the mask and flags it asked for. */
    k.sa_sigaction = on_signal;
    k.sa_mask = view->sa_mask;
    k.sa_flags = view->sa_flags | SA_SIGINFO;
  }
  return real_sigaction()(sig, &k, NULL);
}

static void lock_views(sigset_t *saved) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, saved); /* no handler of this thread waits on the lock */
  while (__atomic_exchange_n(&view_lock, 1, __ATOMIC_ACQUIRE))
    ;
}

static void unlock_views(const sigset_t *saved) {
  __atomic_store_n(&view_lock, 0, __ATOMIC_RELEASE);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* Sets the app's view of sig (and the kernel's disposition from it); returns the old view
 * in *old. From a handler too: sigaction is async-signal-safe. */
static int set_view(int sig, const struct sigaction *act, struct sigaction *old) {
  sigset_t saved;
  lock_views(&saved);
  unsigned cur = current_view[sig];
  struct sigaction previous = views[sig][cur];
  int rc = 0;
  /* A handler set back from what the raw system call gave (the runtime's own) leaves the
   * view as it was. */
  if (act && act->sa_sigaction != on_signal) {
    unsigned next = !cur;
    views[sig][next] = *act;
    rc = install(sig, &views[sig][next]);
    if (rc == 0)
      __atomic_store_n(&current_view[sig], next, __ATOMIC_RELEASE);
  } else if (act) {
    rc = install(sig, &previous);
  }
  unlock_views(&saved);
  if (rc == 0 && old)
    *old = previous;
  return rc;
}

static void default_action(int sig) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real_sigaction()(sig, &dfl, NULL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  pthread_sigmask(SIG_UNBLOCK, &only, NULL);
  raise(sig);
}

static void on_signal(int sig, siginfo_t *info, void *context) {
  int saved_errno = errno;
  struct sigaction view = views[sig][__atomic_load_n(&current_view[sig], __ATOMIC_ACQUIRE)];
  enum signal_class cls = (enum signal_class)classes[sig];
  if (cls == JOB_END && getpid() == job_app && info && info->si_code == SI_USER &&
      info->si_pid == job_tracer) {
    /* The rank's tracer is ending (the launcher killed its group): the app would have been
     * killed with it. The parent-death signal comes from the tracer's pid as each of its
     * threads ends, before the app has another parent; the tracer sends it no other way. */
    tracer_debug("the tracer ended: signal %d, the app's process group killed", sig);
    tracer_write_pending();
    kill(0, SIGKILL);
    raise(SIGKILL);
  }
  bool handled = is_handler(&view);
  tracer_debug("signal %d: %s", sig, handled ? "the app's handler" : "default action");
  if (cls == CRASH || !handled)
    tracer_write_pending();
  if (!handled) {
    if (view.sa_handler == SIG_IGN && !(info && info->si_code > 0)) {
      errno = saved_errno; /* a crash signal sent, not a fault: ignored as asked */
      return;
    }
    default_action(sig);
    errno = saved_errno;
    return;
  }
  if (view.sa_flags & SA_RESETHAND) { /* the kernel reset it: so does the view */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    set_view(sig, &dfl, NULL);
  }
  errno = saved_errno;
  if (view.sa_flags & SA_SIGINFO)
    view.sa_sigaction(sig, info, context);
  else
    view.sa_handler(sig);
}

static void watch(int sig, enum signal_class cls) {
  struct sigaction now;
  if (real_sigaction()(sig, NULL, &now) != 0)
    return;
  classes[sig] = (uint8_t)cls;
  views[sig][0] = now;
  current_view[sig] = 0;
  install(sig, &now);
}

void tracer_signals_init(void) {
  if (!real_sigaction())
    return;
  for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; i++)
    watch(crash_signals[i], CRASH);
  for (size_t i = 0; i < sizeof ending_signals / sizeof *ending_signals; i++)
    watch(ending_signals[i], ENDING);
  /* The job's end: only in the process the tracer started with that parent-death signal
   * (not its children, which do not inherit it). */
  const char *end = getenv("TRACER_END_SIGNAL");
  int sig = end && *end ? atoi(end) : 0, death = 0;
  if (sig > 0 && sig < NSIG && !classes[sig] && prctl(PR_GET_PDEATHSIG, &death) == 0 &&
      death == sig) {
    job_app = getpid();
    job_tracer = getppid();
    watch(sig, JOB_END);
  }
  __atomic_store_n(&ready, true, __ATOMIC_RELEASE);
}

static bool watched(int sig) {
  return sig > 0 && sig < NSIG && classes[sig] && __atomic_load_n(&ready, __ATOMIC_ACQUIRE);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (!watched(sig)) {
    sigaction_fn *real = real_sigaction();
    if (!real) {
      errno = ENOSYS;
      return -1;
    }
    return real(sig, act, old);
  }
  return set_view(sig, act, old);
}

/* signal() and its aliases, as the C library defines them on top of sigaction. */
static signal_handler set_handler(int sig, signal_handler handler, int flags, bool mask_self) {
  if (handler == SIG_ERR || sig <= 0 || sig >= NSIG) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (mask_self)
    sigaddset(&act.sa_mask, sig);
  act.sa_flags = flags;
  if (sigaction(sig, &act, &old) < 0)
    return SIG_ERR;
  return old.sa_handler;
}

signal_handler signal(int sig, signal_handler handler) {
  return set_handler(sig, handler, SA_RESTART, true);
}

signal_handler bsd_signal(int sig, signal_handler handler);
signal_handler bsd_signal(int sig, signal_handler handler) {
  return set_handler(sig, handler, SA_RESTART, true);
}

signal_handler ssignal(int sig, signal_handler handler) {
  return set_handler(sig, handler, SA_RESTART, true);
}

signal_handler sysv_signal(int sig, signal_handler handler) {
  return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

signal_handler __sysv_signal(int sig, signal_handler handler);
signal_handler __sysv_signal(int sig, signal_handler handler) {
  return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}
