/* trace_paths: where traces go (~/tracer-traces, its `latest` link) and where the
 * tracer's own libraries are; see commands.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "commands.h"

#ifndef TRACER_LIB_SUBDIR
#define TRACER_LIB_SUBDIR "lib/tracer"
#endif

/* The folder of the tracer's own executable, so an installed or built tracer finds its
 * libraries wherever it is run from. */
static char *exe_dir(void) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0)
    return strdup(".");
  path[n] = '\0';
  char *slash = strrchr(path, '/');
  if (slash)
    *slash = '\0';
  return strdup(path);
}

char *find_library(const char *backend) {
  const char *path_dir = backends_path_dir(backend); /* a backend of TRACER_BACKEND_PATH */
  if (path_dir) {
    char path[PATH_MAX], resolved[PATH_MAX];
    snprintf(path, sizeof path, "%s/libtracer_%s.so", path_dir, backend);
    return access(path, R_OK) == 0 && realpath(path, resolved) ? strdup(resolved) : NULL;
  }
  char *dir = exe_dir();
  const char *subdirs[] = {"../" TRACER_LIB_SUBDIR, "../lib"};
  char *found = NULL;
  for (size_t i = 0; i < 2 && !found && dir; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/libtracer_%s.so", dir, subdirs[i], backend);
    char resolved[PATH_MAX];
    if (access(path, R_OK) == 0 && realpath(path, resolved))
      found = strdup(resolved);
  }
  free(dir);
  return found;
}

char *find_sampler(void) {
  char *dir = exe_dir();
  char path[PATH_MAX], resolved[PATH_MAX];
  snprintf(path, sizeof path, "%s/tracer-sampler", dir ? dir : ".");
  free(dir);
  return access(path, X_OK) == 0 && realpath(path, resolved) ? strdup(resolved) : NULL;
}

int mkdir_parents(const char *path, unsigned mode) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
      return -1;
    *p = '/';
  }
  return mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST ? -1 : 0;
}

char *traces_home(void) {
  const char *home = getenv("HOME");
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/tracer-traces", home && *home ? home : ".");
  return strdup(path);
}

char *default_trace_dir(const char *app) {
  char *home = traces_home();
  const char *base = strrchr(app, '/') ? strrchr(app, '/') + 1 : app;
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  char stamp[32];
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s-%s-%ld", home, base, stamp, (long)getpid());
  free(home);
  return strdup(path);
}

/* ~/tracer-traces/latest points at the newest trace, for `tracer -r`. */
void mark_latest(const char *trace_dir) {
  char *home = traces_home();
  char link[PATH_MAX], tmp[PATH_MAX];
  snprintf(link, sizeof link, "%s/latest", home);
  snprintf(tmp, sizeof tmp, "%s/.latest.%ld", home, (long)getpid());
  if (mkdir_parents(home, 0700) == 0 && symlink(trace_dir, tmp) == 0 && rename(tmp, link) != 0)
    unlink(tmp);
  free(home);
}

/* The clock plugin a daemon this job starts gets: the tracer's TSC clock
 * (runtime/tracer_clock_plugin.c, which keeps LTTng's monotonic clock where the TSC is
 * not the kernel's clocksource), unless --clock monotonic, or the user's own
 * LTTNG_UST_CLOCK_PLUGIN, which the daemon then inherits. */
char *trace_clock_plugin(const struct tracer_options *o) {
  const char *users = getenv("LTTNG_UST_CLOCK_PLUGIN");
  if ((users && *users) || o->monotonic_clock)
    return NULL;
  return find_library("clock");
}
