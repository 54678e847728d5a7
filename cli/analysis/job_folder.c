/* job_folder: see job_folder.h. */
#include "job_folder.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  return n > 0;
}

static bool finished(const char *job_dir, long rank) {
  char folder[4096];
  job_rank_folder(job_dir, rank, folder, sizeof folder);
  struct run_record run;
  run_record_read(folder, &run);
  return run.present && run.exit_code >= 0;
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

size_t job_wait_ranks(const char *job_dir, const long *ranks, size_t n, unsigned timeout_s,
                      char *missing, size_t size) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  size_t left;
  for (;;) {
    left = 0;
    for (size_t i = 0; i < n; i++)
      left += !finished(job_dir, ranks[i]);
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!left || now.tv_sec - start.tv_sec >= (time_t)timeout_s)
      break;
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
  }
  missing[0] = '\0';
  for (size_t i = 0; i < n; i++)
    if (!finished(job_dir, ranks[i])) {
      size_t used = strlen(missing);
      snprintf(missing + used, size - used, "%s%ld", used ? ", " : "", ranks[i]);
    }
  return left;
}
