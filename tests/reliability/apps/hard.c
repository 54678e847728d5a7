/* hard: apps that are hard on an interposer. Each prints only what is the same in every
 * run, so its stdout can be compared byte for byte traced and untraced; its count file is
 * $REL_COUNT (rel_count.h), written at the end.
 *
 *   threads N      64 threads start together, each makes N rounds of clGetPlatformIDs
 *                  and clGetPlatformInfo
 *   recurse DEPTH  a thread with a 256 MiB stack recurses DEPTH levels deep, calling
 *                  clGetPlatformIDs at each level on the way down
 *   sigalrm MS     a 1 kHz ITIMER_REAL whose SIGALRM handler calls clGetPlatformIDs,
 *                  while main calls clGetPlatformIDs in a loop (one call every 2 us)
 *                  for MS milliseconds; stderr says how many calls each made, and how
 *                  many of the handler's interrupted main inside its own call
 *   bigout MIB     writes MIB MiB of a fixed pattern to stdout in 64 KiB writes, with a
 *                  clGetPlatformIDs per MiB
 *   cat            copies stdin to stdout in reads of up to 64 KiB, with a
 *                  clGetPlatformIDs per read
 *   exit42 N       N rounds of clGetPlatformIDs and clGetPlatformInfo, then exit(42)
 *   closefds N     closes every descriptor from 0 to 1023 first (as daemons and some MPI
 *                  launchers do), then makes N rounds and exits 0
 *   orphan N       N rounds, then starts a helper that daemonizes (fork, setsid, fork:
 *                  init, or the tracer, becomes its parent) and returns; the helper waits
 *                  until the main process has ended, then makes N rounds of its own,
 *                  counted in $REL_COUNT.child
 *   daemon N       as orphan, but the helper ignores SIGTERM and never ends: after its N
 *                  rounds it makes one every 10 ms (a daemon)
 *   reexec N       N rounds, then runs itself again (execv) with an LD_PRELOAD of its own
 *                  (libm.so.6, loaded anyway); the new image makes N rounds, counted in
 *                  $REL_COUNT.child
 *
 * usage: hard MODE [ARG] */
#include "rel_count.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

enum { NTHREADS = 64, CHUNK = 64 * 1024 };

static cl_platform_id platform;

static void one_round(void) {
  cl_uint n = 0;
  char name[256];
  rel_platform_ids(0, NULL, &n);
  rel_platform_name(platform, name, sizeof name);
}

/* ---- threads ---- */
static pthread_barrier_t barrier;
static int rounds;

static void *thread_main(void *arg) {
  (void)arg;
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < rounds; i++)
    one_round();
  return NULL;
}

static int run_threads(int n) {
  rounds = n;
  pthread_t tids[NTHREADS];
  pthread_barrier_init(&barrier, NULL, NTHREADS);
  for (int t = 0; t < NTHREADS; t++)
    if (pthread_create(&tids[t], NULL, thread_main, NULL) != 0) {
      fprintf(stderr, "hard: pthread_create failed\n");
      return 1;
    }
  for (int t = 0; t < NTHREADS; t++)
    pthread_join(tids[t], NULL);
  printf("hard threads: %d threads x %d rounds: ok\n", NTHREADS, n);
  return 0;
}

/* ---- recurse ---- */
static __attribute__((noinline)) long descend(long level, long depth) {
  cl_uint n = 0;
  if (rel_platform_ids(0, NULL, &n) != CL_SUCCESS)
    return level;
  if (level + 1 >= depth)
    return level + 1;
  long reached = descend(level + 1, depth);
  __asm__ volatile("" ::: "memory"); /* keeps the recursion from becoming a loop */
  return reached;
}

static void *recurse_main(void *arg) {
  long depth = (long)(intptr_t)arg;
  return (void *)(intptr_t)descend(0, depth);
}

static int run_recurse(long depth) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)256 << 20);
  pthread_t tid;
  if (pthread_create(&tid, &attr, recurse_main, (void *)(intptr_t)depth) != 0) {
    fprintf(stderr, "hard: pthread_create (256 MiB stack) failed\n");
    return 1;
  }
  void *reached = NULL;
  pthread_join(tid, &reached);
  printf("hard recurse: %ld levels reached of %ld\n", (long)(intptr_t)reached, depth);
  return (long)(intptr_t)reached == depth ? 0 : 1;
}

/* ---- sigalrm ---- */
static unsigned long handler_calls, handler_calls_inside, main_calls;
static volatile sig_atomic_t main_inside; /* main is in its clGetPlatformIDs call */

static void on_alarm(int sig) {
  (void)sig;
  int saved = errno;
  cl_uint n = 0;
  if (main_inside)
    __atomic_add_fetch(&handler_calls_inside, 1, __ATOMIC_SEQ_CST);
  rel_platform_ids(0, NULL, &n);
  __atomic_add_fetch(&handler_calls, 1, __ATOMIC_SEQ_CST);
  errno = saved;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_sigalrm(long ms) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_alarm;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, NULL);
  struct itimerval timer = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &timer, NULL);
  double t = now_s(), end = t + (double)ms / 1000.0;
  while (t < end) {
    cl_uint n = 0;
    main_inside = 1;
    rel_platform_ids(0, NULL, &n);
    main_inside = 0;
    main_calls++;
    /* One call every 2 us at most: a tight loop on one thread writes events faster than
     * the consumer daemon drains the default buffers, and events lost that way would blur
     * what this mode checks. */
    double next = t + 2e-6;
    while ((t = now_s()) < next)
      ;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  fprintf(stderr, "hard sigalrm: main made %lu calls, the handler %lu (%lu while main was in its call)\n",
          main_calls, __atomic_load_n(&handler_calls, __ATOMIC_SEQ_CST),
          __atomic_load_n(&handler_calls_inside, __ATOMIC_SEQ_CST));
  printf("hard sigalrm: %ld ms: ok\n", ms);
  return __atomic_load_n(&handler_calls, __ATOMIC_SEQ_CST) > 0 ? 0 : 1;
}

/* ---- bigout and cat ---- */
static int write_all(const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(STDOUT_FILENO, buf, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      perror("hard: write");
      return -1;
    }
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

static int run_bigout(long mib) {
  static char chunk[CHUNK];
  for (long m = 0; m < mib; m++) {
    cl_uint n = 0;
    rel_platform_ids(0, NULL, &n);
    for (int c = 0; c < (1 << 20) / CHUNK; c++) {
      for (int i = 0; i < CHUNK; i++)
        chunk[i] = (char)('a' + (m * 31 + c * 7 + i) % 26);
      chunk[CHUNK - 1] = '\n';
      if (write_all(chunk, sizeof chunk))
        return 1;
    }
  }
  return 0;
}

static int run_cat(void) {
  static char buf[CHUNK];
  for (;;) {
    ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      perror("hard: read");
      return 1;
    }
    if (got == 0)
      return 0;
    cl_uint n = 0;
    rel_platform_ids(0, NULL, &n);
    if (write_all(buf, (size_t)got))
      return 1;
  }
}

/* ---- orphan and reexec: a second count file for the other process or image ---- */
static void count_as_child(void) {
  const char *path = getenv("REL_COUNT");
  static char child[4096];
  snprintf(child, sizeof child, "%s.child", path ? path : "");
  setenv("REL_COUNT", path && *path ? child : "", 1);
  if (rel_fd >= 0)
    close(rel_fd);
  rel_fd = -2;
  for (int f = 0; f < REL_FUNCTIONS; f++)
    rel_calls[f] = 0;
}

static int run_orphan(long rounds, bool forever) {
  for (long i = 0; i < rounds; i++)
    one_round();
  int ended[2];
  if (pipe(ended) != 0)
    return 1;
  fflush(stdout);
  pid_t child = fork();
  if (child < 0)
    return 1;
  if (child == 0) {
    setsid();
    if (fork() != 0)
      _exit(0); /* the grandchild is orphaned at once */
    close(ended[1]);
    char byte;
    while (read(ended[0], &byte, 1) != 0) /* end of file: the main process has ended */
      ;
    struct timespec settle = {0, 50 * 1000 * 1000};
    nanosleep(&settle, NULL);
    count_as_child();
    rel_flush();
    for (long i = 0; i < rounds; i++)
      one_round();
    rel_flush();
    if (forever) {
      signal(SIGTERM, SIG_IGN);
      for (;;) {
        struct timespec tick = {0, 10 * 1000 * 1000};
        nanosleep(&tick, NULL);
        one_round();
        rel_flush();
      }
    }
    _exit(0);
  }
  close(ended[0]);
  waitpid(child, NULL, 0); /* the first child only */
  printf("hard orphan: %ld rounds, a helper left running\n", rounds);
  return 0; /* ended[1] closes with the process */
}

static int run_reexec(char **argv, long rounds) {
  for (long i = 0; i < rounds; i++)
    one_round();
  printf("hard reexec: %ld rounds, then again with LD_PRELOAD of its own\n", rounds);
  fflush(stdout);
  rel_flush();
  setenv("LD_PRELOAD", "libm.so.6", 1);
  char *again[] = {argv[0], (char *)"reexec-child", argv[2], NULL};
  execv("/proc/self/exe", again);
  perror("hard: execv");
  return 1;
}

static int run_reexec_child(long rounds) {
  rel_flush();
  for (long i = 0; i < rounds; i++)
    one_round();
  printf("hard reexec-child: %ld rounds\n", rounds);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hard MODE [ARG]\n");
    return 2;
  }
  const char *mode = argv[1];
  long arg = argc > 2 ? atol(argv[2]) : 0;
  if (strcmp(mode, "closefds") == 0)
    for (int fd = 0; fd < 1024; fd++)
      close(fd);
  if (strcmp(mode, "reexec-child") == 0)
    count_as_child(); /* before rel_start's calls */
  platform = rel_start();
  int rc;
  if (strcmp(mode, "threads") == 0)
    rc = run_threads((int)arg);
  else if (strcmp(mode, "recurse") == 0)
    rc = run_recurse(arg);
  else if (strcmp(mode, "sigalrm") == 0)
    rc = run_sigalrm(arg);
  else if (strcmp(mode, "bigout") == 0)
    rc = run_bigout(arg);
  else if (strcmp(mode, "cat") == 0)
    rc = run_cat();
  else if (strcmp(mode, "closefds") == 0) {
    for (long i = 0; i < arg; i++)
      one_round();
    rc = 0;
  } else if (strcmp(mode, "orphan") == 0 || strcmp(mode, "daemon") == 0)
    rc = run_orphan(arg, strcmp(mode, "daemon") == 0);
  else if (strcmp(mode, "reexec") == 0)
    rc = run_reexec(argv, arg);
  else if (strcmp(mode, "reexec-child") == 0)
    rc = run_reexec_child(arg);
  else if (strcmp(mode, "exit42") == 0) {
    for (long i = 0; i < arg; i++)
      one_round();
    printf("hard exit42: %ld rounds, exiting with 42\n", arg);
    rel_flush();
    exit(42);
  } else {
    fprintf(stderr, "hard: unknown mode %s\n", mode);
    return 2;
  }
  rel_flush();
  return rc;
}
