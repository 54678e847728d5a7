/* tracing_cost: see tracing_cost.h. */
#include "tracing_cost.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int cache_path(char *path, size_t size, bool create_dir) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  char dir[PATH_MAX - 16];
  if (xdg && *xdg)
    snprintf(dir, sizeof dir, "%s/tracer", xdg);
  else if (home && *home)
    snprintf(dir, sizeof dir, "%s/.cache/tracer", home);
  else
    return -1;
  if (create_dir) {
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
      *slash = '\0';
      mkdir(parent, 0700);
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
      return -1;
  }
  return snprintf(path, size, "%s/calibration", dir) < (int)size ? 0 : -1;
}

static void this_host(char *host, size_t size) {
  if (gethostname(host, size) != 0)
    snprintf(host, size, "unknown");
  host[size - 1] = '\0';
}

bool tracing_cost_cached(const char *clock, struct tracing_cost *cost) {
  char path[PATH_MAX], host[256], line[512];
  if (cache_path(path, sizeof path, false))
    return false;
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  this_host(host, sizeof host);
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    char h[256], c[64];
    uint64_t e, b, k;
    /* A line of four fields predates batched calls: measured again. */
    if (sscanf(line, "%255s %63s %" SCNu64 " %" SCNu64 " %" SCNu64, h, c, &e, &b, &k) == 5 &&
        strcmp(h, host) == 0 && strcmp(c, clock) == 0 && e > 0) {
      *cost = (struct tracing_cost){e, b, k};
      found = true;
    }
  }
  fclose(f);
  return found;
}

int tracing_cost_lock(void) {
  char path[PATH_MAX], host[256];
  if (cache_path(path, sizeof path, true))
    return -1;
  this_host(host, sizeof host);
  size_t len = strlen(path);
  snprintf(path + len, sizeof path - len, ".lock.%s", host);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
    close(fd);
    fd = -1;
  }
  return fd;
}

void tracing_cost_unlock(int lock) {
  if (lock >= 0)
    close(lock); /* releases the flock */
}

int tracing_cost_save(const char *clock, const struct tracing_cost *cost) {
  char path[PATH_MAX], tmp[PATH_MAX + 32], host[256], line[512];
  if (cache_path(path, sizeof path, true))
    return -1;
  this_host(host, sizeof host);
  snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
  FILE *out = fopen(tmp, "w");
  if (!out)
    return -1;
  /* Other hosts' and clocks' lines stay (a home shared by a cluster's nodes). */
  FILE *in = fopen(path, "r");
  while (in && fgets(line, sizeof line, in)) {
    char h[256], c[64];
    if (sscanf(line, "%255s %63s", h, c) == 2 && !(strcmp(h, host) == 0 && strcmp(c, clock) == 0))
      fputs(line, out);
  }
  if (in)
    fclose(in);
  fprintf(out, "%s %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", host, clock, cost->event_ps,
          cost->byte_ps, cost->call_ps);
  if (fclose(out) != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

uint64_t tracing_cost_ns(const struct tracing_cost *cost, const struct tracing_load *load) {
  /* A batched call's cost includes its share of the batch's event and its three slots. */
  uint64_t batch_bytes = load->batched_calls * 3 * sizeof(uint64_t);
  uint64_t events = load->events - (load->batch_events < load->events ? load->batch_events
                                                                      : load->events);
  uint64_t bytes = load->bytes - (batch_bytes < load->bytes ? batch_bytes : load->bytes);
  double ps = (double)events * (double)cost->event_ps + (double)bytes * (double)cost->byte_ps +
              (double)load->batched_calls * (double)cost->call_ps;
  return (uint64_t)(ps / 1000.0 + 0.5);
}
