/* trace_runs: the runs a folder given to `tracer -r` holds (commands.h). A trace folder is
 * one run: the tracer's (its tracer-run.txt), an LTTng session's output (ust/, kernel/),
 * a bare CTF trace (a folder with `metadata`), or an MPI job's (rank-N folders, each a
 * run). The traces below a folder (ctf_trace_find: each folder once, links followed) are
 * grouped by the run they belong to; the run of a metadata folder is its nearest folder
 * up that is a run's. */
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "ctf.h"
#include "job_folder.h"
#include "run_record.h"

static bool is_folder(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

static bool holds(const char *folder, const char *name, bool folder_wanted) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", folder, name);
  struct stat info;
  return stat(path, &info) == 0 && (folder_wanted ? S_ISDIR(info.st_mode)
                                                  : S_ISREG(info.st_mode));
}

/* A run's own folder (its trace's top): the tracer's, an LTTng session's, a job's. */
static bool is_run_root(const char *folder) {
  return holds(folder, RUN_RECORD_FILE, false) || holds(folder, "ust", true) ||
         holds(folder, "kernel", true) || job_folder_is_job(folder);
}

/* The run a metadata folder belongs to (its real path), into root: its nearest folder up
 * that is a run's own, a job's when that is a rank's; the folder itself when none is. */
static void run_of(const char *metadata_folder, char *root, size_t size) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s", metadata_folder);
  snprintf(root, size, "%s", metadata_folder);
  for (;;) {
    if (is_run_root(path)) {
      snprintf(root, size, "%s", path);
      break;
    }
    char *slash = strrchr(path, '/');
    if (!slash || slash == path)
      break;
    *slash = '\0';
  }
  long rank;
  char parent[PATH_MAX];
  snprintf(parent, sizeof parent, "%s", root);
  char *slash = strrchr(parent, '/');
  if (job_folder_rank_of(root, &rank) && slash && slash != parent) {
    *slash = '\0';
    if (job_folder_is_job(parent))
      snprintf(root, size, "%s", parent);
  }
}

/* nftw has no context argument: one sum at a time. */
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t sum_bytes;

static int add_size(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)path;
  (void)ftw;
  if (type == FTW_F)
    sum_bytes += (uint64_t)st->st_size;
  return 0;
}

static void describe(struct trace_run *run, const char *given) {
  size_t n = strlen(given);
  const char *name = strncmp(run->path, given, n) == 0 && run->path[n] == '/'
                         ? run->path + n + 1
                         : run->path;
  snprintf(run->name, sizeof run->name, "%s", name);
  char record[PATH_MAX + 32];
  snprintf(record, sizeof record, "%s/" RUN_RECORD_FILE, run->path);
  struct stat info;
  if (stat(record, &info) == 0 || stat(run->path, &info) == 0)
    run->when = info.st_mtime;
  run->job = job_folder_is_job(run->path);
  if (run->job) {
    long *ranks;
    size_t count = job_folder_ranks(run->path, &ranks);
    free(ranks);
    snprintf(run->app, sizeof run->app, "job, %zu rank%s", count, count == 1 ? "" : "s");
  } else {
    struct run_record r;
    run_record_read(run->path, &r);
    size_t len = strcspn(r.command, " ");
    const char *slash = memrchr(r.command, '/', len);
    const char *app = slash ? slash + 1 : r.command;
    snprintf(run->app, sizeof run->app, "%.*s", (int)(r.command + len - app), app);
  }
  pthread_mutex_lock(&sum_lock);
  sum_bytes = 0;
  nftw(run->path, add_size, 16, FTW_PHYS);
  run->bytes = sum_bytes;
  pthread_mutex_unlock(&sum_lock);
}

static int newest_first(const void *a, const void *b) {
  const struct trace_run *x = a, *y = b;
  return x->when != y->when ? (x->when < y->when ? 1 : -1) : strcmp(x->name, y->name);
}

int trace_runs_find(const char *dir, struct trace_run **runs, size_t *count, struct diag *d) {
  *runs = NULL;
  *count = 0;
  char given[PATH_MAX];
  if (!realpath(dir, given) || !is_folder(given) || job_folder_is_job(given))
    return 0; /* the analysis reads it, or says what is wrong with it */
  char **folders;
  size_t n;
  struct ctf_error error;
  if (ctf_trace_find(given, &folders, &n, &error) != CTF_OK)
    return diag_error(d, "%s", error.message);
  if (n == 0) {
    free(folders);
    return diag_error(d, "Cannot open trace: path=%s: no folder at or below it holds a "
                         "`metadata` file", dir);
  }
  struct trace_run *list = calloc(n + 1, sizeof *list);
  size_t found = 0;
  char root[PATH_MAX] = "";
  for (size_t i = 0; list && i < n; i++) {
    /* Sorted: the next folder is often of the run before (a run's per-process traces). */
    size_t len = strlen(root);
    if (!len || strncmp(folders[i], root, len) != 0 || folders[i][len] != '/')
      run_of(folders[i], root, sizeof root);
    bool known = false;
    for (size_t k = 0; k < found && !known; k++)
      known = strcmp(list[k].path, root) == 0;
    if (!known)
      snprintf(list[found++].path, sizeof list->path, "%s", root);
  }
  for (size_t i = 0; i < n; i++)
    free(folders[i]);
  free(folders);
  if (!list)
    return diag_error(d, "Cannot search %s for traces: out of memory", dir);
  for (size_t i = 0; i < found; i++)
    describe(&list[i], given);
  qsort(list, found, sizeof *list, newest_first);
  *runs = list;
  *count = found;
  return 0;
}
