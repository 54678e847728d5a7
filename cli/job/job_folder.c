/* job_folder: see job_folder.h. */
#include "job_folder.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_record.h"

void job_rank_folder(const char *job_dir, long rank, char *out, size_t size) {
  snprintf(out, size, "%s/" JOB_RANK_PREFIX "%ld", job_dir, rank);
}

static bool rank_of(const char *name, long *rank) {
  size_t n = strlen(JOB_RANK_PREFIX);
  if (strncmp(name, JOB_RANK_PREFIX, n) != 0 || !name[n])
    return false;
  char *end;
  *rank = strtol(name + n, &end, 10);
  return !*end && *rank >= 0;
}

bool job_folder_rank_of(const char *dir, long *rank) {
  const char *base = strrchr(dir, '/');
  return rank_of(base ? base + 1 : dir, rank);
}

static int by_rank(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

size_t job_folder_ranks(const char *dir, long **ranks) {
  *ranks = NULL;
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  size_t n = 0, cap = 0;
  struct dirent *e;
  long rank;
  while ((e = readdir(d)))
    if (rank_of(e->d_name, &rank)) {
      if (n == cap) {
        long *grown = realloc(*ranks, (cap = cap ? 2 * cap : 16) * sizeof *grown);
        if (!grown)
          break;
        *ranks = grown;
      }
      (*ranks)[n++] = rank;
    }
  closedir(d);
  if (n)
    qsort(*ranks, n, sizeof **ranks, by_rank);
  return n;
}

bool job_folder_is_job(const char *dir) {
  long *ranks;
  size_t n = job_folder_ranks(dir, &ranks);
  free(ranks);
  if (n)
    return true;
  /* Per-node results alone (node_gather.h). */
  char nodes[4096];
  snprintf(nodes, sizeof nodes, "%s/nodes", dir);
  DIR *d = opendir(nodes);
  bool found = false;
  struct dirent *e;
  while (d && !found && (e = readdir(d)))
    found = strlen(e->d_name) > 7 && strcmp(e->d_name + strlen(e->d_name) - 7, ".result") == 0;
  if (d)
    closedir(d);
  return found;
}

bool job_folder_has_unfinished(const char *dir) {
  long *ranks;
  size_t n = job_folder_ranks(dir, &ranks);
  bool unfinished = false;
  for (size_t i = 0; i < n && !unfinished; i++) {
    char folder[4096];
    job_rank_folder(dir, ranks[i], folder, sizeof folder);
    struct run_record run;
    run_record_read(folder, &run);
    unfinished = run.present && run.exit_code < 0;
  }
  free(ranks);
  return unfinished;
}

bool job_folder_process_runs(long pid, const char *comm) {
  char path[64], line[512], state = 0;
  if (pid <= 0 || kill((pid_t)pid, 0) != 0)
    return false;
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "re");
  if (!f)
    return false;
  size_t n = fread(line, 1, sizeof line - 1, f);
  fclose(f);
  line[n] = '\0';
  /* "PID (COMM) STATE ...": COMM may hold spaces and parentheses. */
  const char *open = strchr(line, '('), *close = strrchr(line, ')');
  if (!open || !close || close < open || sscanf(close + 1, " %c", &state) != 1 ||
      state == 'Z' || state == 'X')
    return false; /* a zombie: ended, its parent has not reaped it (yet, or ever: a PID 1
                   * that reaps nothing, in a container) */
  return !comm || strncmp(open + 1, comm, strlen(comm)) == 0;
}

/* The app of a run whose tracer was killed, running on this host; 0 when none. */
static pid_t running_app(const char *trace_dir, const char *host) {
  struct run_record run;
  run_record_read(trace_dir, &run);
  if (!run.present || run.exit_code >= 0 || run.app_pid <= 0 ||
      strcmp(run.daemon_host, host) != 0 || job_folder_process_runs(run.tracer_pid, NULL))
    return 0; /* the end was seen, elsewhere, or its tracer still runs */
  return job_folder_process_runs(run.app_pid, NULL) ? (pid_t)run.app_pid : 0;
}

void job_folder_wait_apps(const char *dir, unsigned timeout_ms) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  long *ranks;
  size_t count = job_folder_ranks(dir, &ranks);
  for (unsigned waited = 0; waited < timeout_ms; waited += 10) {
    bool running = count == 0 && running_app(dir, host);
    for (size_t i = 0; i < count && !running; i++) {
      char folder[4096];
      job_rank_folder(dir, ranks[i], folder, sizeof folder);
      running = running_app(folder, host) != 0;
    }
    if (!running)
      break;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  free(ranks);
}

static void add_orphan(const char *trace_dir, const char *host, struct run_record **records,
                       size_t *n) {
  struct run_record run;
  run_record_read(trace_dir, &run);
  if (!run.present || run.exit_code >= 0 || !run.daemon_home[0] ||
      strcmp(run.daemon_host, host) != 0)
    return;
  struct run_record *grown = realloc(*records, (*n + 1) * sizeof *grown);
  if (!grown)
    return;
  *records = grown;
  (*records)[(*n)++] = run;
}

size_t job_folder_orphans(const char *dir, struct run_record **records) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  size_t n = 0;
  *records = NULL;
  long *ranks;
  size_t count = job_folder_ranks(dir, &ranks);
  for (size_t i = 0; i < count; i++) {
    char folder[4096];
    job_rank_folder(dir, ranks[i], folder, sizeof folder);
    add_orphan(folder, host, records, &n);
  }
  free(ranks);
  if (!count)
    add_orphan(dir, host, records, &n);
  return n;
}
