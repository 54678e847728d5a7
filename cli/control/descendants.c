/* descendants: see descendants.h. The processes are found in /proc: the tracer's children
 * in /proc/self/task/TID/children (orphans land on any of its threads), the whole tree
 * below it by the parent pid of every process. */
#include "descendants.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct pid_list {
  pid_t *pids;
  size_t count, cap;
};

/* The processes below the tracer before the app started: not the app's. They are the
 * session daemon's (lttng-sessiond, its consumers and run-as helpers) where the tracer is
 * its pid namespace's init (`docker run IMAGE tracer APP`, `unshare --pid --fork`), to
 * which the daemon was re-parented when it went into the background. */
static struct pid_list before_app;

static void children(pid_t except, struct pid_list *out);

static bool listed(const struct pid_list *l, pid_t pid) {
  for (size_t i = 0; i < l->count; i++)
    if (l->pids[i] == pid)
      return true;
  return false;
}

int descendants_adopt(void) {
  children(0, &before_app);
  return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static int list_add(struct pid_list *l, pid_t pid) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    pid_t *grown = realloc(l->pids, cap * sizeof *grown);
    if (!grown)
      return -1;
    l->pids = grown;
    l->cap = cap;
  }
  l->pids[l->count++] = pid;
  return 0;
}

static bool all_digits(const char *s) {
  for (; *s; s++)
    if (!isdigit((unsigned char)*s))
      return false;
  return true;
}

/* The tracer's children (but except), from every thread's children file. */
static void children(pid_t except, struct pid_list *out) {
  out->count = 0;
  DIR *tasks = opendir("/proc/self/task");
  if (!tasks)
    return;
  struct dirent *t;
  while ((t = readdir(tasks))) {
    if (!all_digits(t->d_name))
      continue;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%.20s/children", t->d_name);
    FILE *f = fopen(path, "re");
    if (!f)
      continue;
    long pid;
    while (fscanf(f, "%ld", &pid) == 1)
      if ((pid_t)pid != except && !listed(&before_app, (pid_t)pid))
        list_add(out, (pid_t)pid);
    fclose(f);
  }
  closedir(tasks);
}

/* Reaps the children in l that ended; keeps those running. */
static void reap_ended(struct pid_list *l) {
  size_t kept = 0;
  for (size_t i = 0; i < l->count; i++) {
    int status;
    pid_t r = waitpid(l->pids[i], &status, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR))
      l->pids[kept++] = l->pids[i];
  }
  l->count = kept;
}

/* A process's parent and state, from /proc/PID/stat ("PID (COMM) STATE PPID ..."; COMM
 * may hold spaces and parentheses). */
static bool parent_of(const char *pid, pid_t *ppid, char *state) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%.20s/stat", pid);
  FILE *f = fopen(path, "re");
  if (!f)
    return false;
  size_t n = fread(line, 1, sizeof line - 1, f);
  fclose(f);
  line[n] = '\0';
  const char *close = strrchr(line, ')');
  long parent;
  if (!close || sscanf(close + 1, " %c %ld", state, &parent) != 2)
    return false;
  *ppid = (pid_t)parent;
  return true;
}

size_t descendants_running(pid_t except, pid_t *pids, size_t max) {
  struct pid_list kids = {0}, all = {0}, parents = {0};
  children(except, &kids);
  reap_ended(&kids);
  free(kids.pids);
  /* Every running process with its parent, then the tree below the tracer. */
  DIR *proc = opendir("/proc");
  struct dirent *e;
  while (proc && (e = readdir(proc))) {
    pid_t ppid;
    char state;
    if (all_digits(e->d_name) && parent_of(e->d_name, &ppid, &state) && state != 'Z') {
      list_add(&all, (pid_t)atol(e->d_name));
      list_add(&parents, ppid);
    }
  }
  if (proc)
    closedir(proc);
  struct pid_list below = {0};
  list_add(&below, getpid());
  for (size_t head = 0; head < below.count; head++)
    for (size_t i = 0; i < all.count && i < parents.count; i++)
      if (parents.pids[i] == below.pids[head] && all.pids[i] != except &&
          !listed(&before_app, all.pids[i]))
        list_add(&below, all.pids[i]);
  size_t running = below.count ? below.count - 1 : 0; /* the tracer itself first */
  for (size_t i = 0; i < running && i < max; i++)
    pids[i] = below.pids[i + 1];
  free(all.pids);
  free(parents.pids);
  free(below.pids);
  return running;
}

static volatile sig_atomic_t stop_signal, stop_count, stop_from_terminal;

static void on_stop(int signal_number, siginfo_t *info, void *context) {
  (void)context;
  stop_from_terminal = info && info->si_code == SI_KERNEL;
  stop_signal = signal_number;
  stop_count++;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define STOP_COUNT (sizeof stop_signals / sizeof *stop_signals)

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

enum descendants_end descendants_wait(pid_t except, unsigned notice_ms, descendants_notice *notice,
                                      void *context, int *signal_number) {
  struct sigaction saved[STOP_COUNT], action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_stop;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  stop_signal = stop_count = 0;
  sig_atomic_t handled = 0;
  for (size_t i = 0; i < STOP_COUNT; i++)
    sigaction(stop_signals[i], &action, &saved[i]);
  enum descendants_end end = DESCENDANTS_NONE_LEFT;
  struct pid_list kids = {0};
  uint64_t start = now_ms();
  bool noticed = notice == NULL;
  long pause_ms = 5;
  for (;;) {
    children(except, &kids);
    reap_ended(&kids);
    if (kids.count == 0)
      break;
    if (stop_count != handled) {
      *signal_number = stop_signal;
      /* Ctrl-C at the terminal reached the processes of its group already, and means the
       * user wants out; a second signal, that they did not end; the first one sent to
       * the tracer alone is meant for the app: its processes decide. */
      if (stop_from_terminal || handled) {
        end = DESCENDANTS_SIGNALLED;
        break;
      }
      handled = stop_count;
      for (size_t i = 0; i < kids.count; i++)
        kill(kids.pids[i], stop_signal);
      pause_ms = 5;
    }
    if (!noticed && now_ms() - start >= notice_ms) {
      pid_t shown[8];
      size_t running = descendants_running(except, shown, 8);
      notice(context, running, shown, running < 8 ? running : 8);
      noticed = true;
    }
    struct timespec pause = {0, pause_ms * 1000000L};
    nanosleep(&pause, NULL); /* a stop signal ends it early */
    pause_ms = pause_ms < 100 ? pause_ms * 2 : 100;
  }
  free(kids.pids);
  for (size_t i = 0; i < STOP_COUNT; i++)
    sigaction(stop_signals[i], &saved[i], NULL);
  return end;
}
