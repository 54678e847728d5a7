/* daemon_orphans: see daemon_orphans.h. */
#include "daemon_orphans.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lttng_ctl_library.h"
#include "session.h"

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* The daemon's pid, from the pid file lttng-sessiond writes in its run folder. */
static pid_t daemon_pid(const char *home) {
  char path[4096];
  snprintf(path, sizeof path, "%s/.lttng/lttng-sessiond.pid", home);
  FILE *f = fopen(path, "r");
  long pid = 0;
  if (f) {
    if (fscanf(f, "%ld", &pid) != 1)
      pid = 0;
    fclose(f);
  }
  return (pid_t)pid;
}

bool daemon_orphan_flush(const char *home, pid_t tracer) {
  struct stat st;
  if (!home || !home[0] || stat(home, &st) != 0 || !S_ISDIR(st.st_mode) ||
      st.st_uid != geteuid() || (tracer > 0 && session_tracer_alive(tracer)))
    return false;
  char *saved = getenv("LTTNG_HOME") ? strdup(getenv("LTTNG_HOME")) : NULL;
  setenv("LTTNG_HOME", home, 1);
  bool flushed = true;
  if (session_daemon_alive()) {
    session_reap_stale();
    struct lttng_session *sessions = NULL;
    int left = lttng_list_sessions(&sessions);
    free(sessions);
    flushed = left == 0;
    pid_t pid = flushed ? daemon_pid(home) : 0;
    if (pid > 0 && kill(pid, SIGTERM) == 0) {
      /* Wait for it to go (10 s at most) before its folder is removed. */
      for (int i = 0; i < 200 && session_tracer_alive(pid); i++) {
        struct timespec nap = {0, 50 * 1000 * 1000};
        nanosleep(&nap, NULL);
      }
    }
    if (pid > 0 && session_tracer_alive(pid))
      flushed = false; /* still there: its folder stays */
  }
  if (flushed)
    nftw(home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (saved)
    setenv("LTTNG_HOME", saved, 1);
  else
    unsetenv("LTTNG_HOME");
  free(saved);
  return flushed;
}
