/* node_gather: see node_gather.h. */
#include "node_gather.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "id_set.h"
#include "job_folder.h"
#include "result_file.h"
#include "run_record.h"

enum { PATH_SIZE = 4096 };

static const struct timespec nap = {0, 50 * 1000 * 1000};

/* A hostname as a file name: no '/', no leading '.'. */
static void node_file(const char *job_dir, const char *node, const char *suffix, char *out,
                      size_t size) {
  char name[300];
  snprintf(name, sizeof name, "%s", node[0] ? node : "unknown");
  for (char *c = name; *c; c++)
    if (*c == '/' || (c == name && *c == '.'))
      *c = '_';
  snprintf(out, size, "%s/" NODE_GATHER_FOLDER "/%s%s", job_dir, name, suffix);
}

static void rank_result_path(const char *job_dir, long rank, char *out, size_t size) {
  char folder[PATH_SIZE];
  job_rank_folder(job_dir, rank, folder, sizeof folder);
  if (snprintf(out, size, "%s/" RESULT_FILE_RANK, folder) >= (int)size)
    out[0] = '\0'; /* no such file */
}

static double seconds_since(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* A rank whose app failed (its run record says how it ended, not cleanly): its tracer
 * ended with the app, as the launcher ends the job, and writes no result; its trace is
 * counted from its events by whoever reads the job later. Nobody waits for it. */
static bool rank_failed(const char *job_dir, long rank) {
  char folder[PATH_SIZE];
  job_rank_folder(job_dir, rank, folder, sizeof folder);
  struct run_record run;
  run_record_read(folder, &run);
  return run.present && run.exit_code >= 0 && !run.clean;
}

int node_gather_register(const char *job_dir, const char *node, long rank, bool traced) {
  char path[PATH_SIZE];
  snprintf(path, sizeof path, "%s/" NODE_GATHER_FOLDER, job_dir);
  mkdir(path, 0700);
  node_file(job_dir, node, ".ranks", path, sizeof path);
  mkdir(path, 0700);
  size_t used = strlen(path);
  snprintf(path + used, sizeof path - used, "/%ld", rank);
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fputs(traced ? "traced\n" : "untraced\n", f);
  return fclose(f);
}

int node_gather_rank(const char *job_dir, long rank, unsigned threads,
                     const struct window_request *window, const char *steps_pattern) {
  char folder[PATH_SIZE], path[PATH_SIZE];
  job_rank_folder(job_dir, rank, folder, sizeof folder);
  rank_result_path(job_dir, rank, path, sizeof path);
  struct job_result r;
  int rc = job_result_init(&r);
  struct diag error;
  diag_init(&error);
  r.want_actors = true; /* a rank's result carries its actors, for -e and --ranks */
  r.window = window;
  r.steps_pattern = steps_pattern;
  if (rc == 0 && job_result_reduce(folder, rank, threads, &r, &error)) {
    /* Nothing readable (the app made no traced call, or the trace is damaged): the
     * result still covers the rank and says why. */
    job_result_free(&r);
    rc = job_result_init(&r);
    char chain[1024];
    diag_join(&error, chain, sizeof chain);
    if (rc == 0 && !(r.tally.error = strdup(chain[0] ? chain : "Cannot read the trace")))
      rc = -1;
    if (rc == 0)
      rc = job_result_add_rank(&r, rank);
    struct run_record run;
    run_record_read(folder, &run);
    if (rc == 0 && !run.clean) {
      struct job_rank_status s;
      job_rank_status_of(rank, &run, &s);
      rc = job_result_add_failed(&r, &s);
    }
  }
  diag_clear(&error);
  if (rc == 0)
    rc = result_file_write(path, &r);
  job_result_free(&r);
  return rc;
}

struct registered {
  long *ranks; /* owned */
  bool *traced; /* owned */
  size_t n, cap;
};

static void registered_read(const char *dir, struct registered *reg) {
  reg->n = 0;
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long rank = strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end)
      continue;
    if (reg->n == reg->cap) {
      size_t cap = reg->cap ? 2 * reg->cap : 64;
      long *ranks = realloc(reg->ranks, cap * sizeof *ranks);
      if (ranks)
        reg->ranks = ranks;
      bool *traced = realloc(reg->traced, cap * sizeof *traced);
      if (traced)
        reg->traced = traced;
      if (!ranks || !traced)
        break;
      reg->cap = cap;
    }
    char path[PATH_SIZE], word[16] = "";
    FILE *f = snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path
                  ? fopen(path, "r")
                  : NULL;
    if (f) {
      if (!fgets(word, sizeof word, f))
        word[0] = '\0';
      fclose(f);
    }
    reg->ranks[reg->n] = rank;
    reg->traced[reg->n++] = strncmp(word, "untraced", 8) != 0;
  }
  closedir(d);
}

long node_gather_node(const char *job_dir, const char *node, long local_size,
                      unsigned timeout_s) {
  char dir[PATH_SIZE], path[PATH_SIZE];
  node_file(job_dir, node, ".ranks", dir, sizeof dir);
  struct registered reg = {0};
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  long waiting;
  for (;;) {
    registered_read(dir, &reg);
    waiting = local_size > 0 && (long)reg.n < local_size ? local_size - (long)reg.n : 0;
    for (size_t i = 0; i < reg.n; i++) {
      rank_result_path(job_dir, reg.ranks[i], path, sizeof path);
      waiting += reg.traced[i] && access(path, F_OK) != 0 && !rank_failed(job_dir, reg.ranks[i]);
    }
    if (!waiting || seconds_since(&start) >= (double)timeout_s)
      break;
    nanosleep(&nap, NULL);
  }
  struct job_result node_result;
  long rc = job_result_init(&node_result) ? -1 : waiting;
  node_result.want_actors = true; /* passed on to rank 0, which reads them when asked */
  char error[512];
  for (size_t i = 0; rc >= 0 && i < reg.n; i++) {
    rank_result_path(job_dir, reg.ranks[i], path, sizeof path);
    if (!reg.traced[i] || access(path, F_OK) != 0)
      continue;
    struct job_result one;
    /* Read apart first: a damaged result must not leave half of itself in the node's. */
    int made = job_result_init(&one);
    one.want_actors = true;
    if (made == 0 && result_file_read(path, &one, error, sizeof error) == 0 &&
        job_result_merge(&node_result, &one))
      rc = -1;
    job_result_free(&one);
  }
  node_file(job_dir, node, ".result", path, sizeof path);
  if (rc >= 0) {
    job_result_sort(&node_result);
    if (result_file_write(path, &node_result))
      rc = -1;
  }
  job_result_free(&node_result);
  free(reg.ranks);
  free(reg.traced);
  return rc;
}

/* Which expected ranks are covered, and how. */
enum { NOT_COVERED, BY_NODE, BY_RANK };

struct expectation {
  long *ranks; /* sorted; owned */
  unsigned char *how;
  size_t n;
};

static int by_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static long find(const struct expectation *e, long rank) {
  const long *at = bsearch(&rank, e->ranks, e->n, sizeof *e->ranks, by_long);
  return at ? at - e->ranks : -1;
}

struct node_files {
  char **paths;        /* the node results taken; owned */
  size_t n;
  struct id_set seen;  /* every node result looked at, by its name's 64-bit hash */
};

/* True when name was looked at before; notes it otherwise. */
static bool seen_before(struct node_files *nf, const char *name) {
  uint64_t h = 1469598103934665603ull;
  for (const char *c = name; *c; c++)
    h = (h ^ (unsigned char)*c) * 1099511628211ull;
  size_t before = nf->seen.len;
  return id_set_add(&nf->seen, h) != 0 || nf->seen.len == before;
}

/* Takes the node results not looked at yet whose ranks are expected and not covered. */
static void scan_nodes(const char *job_dir, struct expectation *e, struct node_files *nf) {
  char dir[PATH_SIZE], path[PATH_SIZE * 2];
  snprintf(dir, sizeof dir, "%s/" NODE_GATHER_FOLDER, job_dir);
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *ent;
  while ((ent = readdir(d))) {
    size_t len = strlen(ent->d_name);
    if (len < 8 || strcmp(ent->d_name + len - 7, ".result") != 0 || seen_before(nf, ent->d_name))
      continue;
    char **paths = realloc(nf->paths, (nf->n + 1) * sizeof *paths);
    if (!paths)
      break;
    nf->paths = paths;
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    long *ranks;
    long count = result_file_ranks(path, &ranks);
    bool usable = count > 0;
    for (long i = 0; usable && i < count; i++) {
      long at = find(e, ranks[i]);
      usable = at >= 0 && e->how[at] != BY_NODE;
    }
    if (usable && (nf->paths[nf->n] = strdup(path))) {
      nf->n++;
      for (long i = 0; i < count; i++)
        e->how[find(e, ranks[i])] = BY_NODE;
    }
    free(ranks);
  }
  closedir(d);
}

static bool ends_whole(const char *path) {
  char tail[5] = "";
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  bool whole = fseek(f, -4, SEEK_END) == 0 && fread(tail, 1, 4, f) == 4 &&
               memcmp(tail, "end\n", 4) == 0;
  fclose(f);
  return whole;
}

static void append_rank(char *list, size_t size, long rank) {
  size_t used = strlen(list);
  if (used + 24 < size)
    snprintf(list + used, size - used, "%s%ld", used ? ", " : "", rank);
  else if (used + 5 < size && strcmp(list + used - 3, "...") != 0)
    snprintf(list + used, size - used, ", ...");
}

/* Without a list: the ranks whose folders the job has, and those its node results cover
 * (a folder of results alone, as the bench makes, is a job too). */
static size_t expected_ranks(const char *job_dir, long **out) {
  long *ranks;
  size_t n = job_folder_ranks(job_dir, &ranks), cap = n;
  char dir[PATH_SIZE], path[PATH_SIZE * 2];
  snprintf(dir, sizeof dir, "%s/" NODE_GATHER_FOLDER, job_dir);
  DIR *d = opendir(dir);
  struct dirent *ent;
  while (d && (ent = readdir(d))) {
    size_t len = strlen(ent->d_name);
    if (len < 8 || strcmp(ent->d_name + len - 7, ".result") != 0)
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    long *covered;
    long count = result_file_ranks(path, &covered);
    for (long i = 0; i < count; i++) {
      if (n == cap) {
        long *grown = realloc(ranks, (cap = cap ? 2 * cap : 64) * sizeof *grown);
        if (!grown)
          break;
        ranks = grown;
      }
      ranks[n++] = covered[i];
    }
    free(covered);
  }
  if (d)
    closedir(d);
  /* Sorted, each rank once. */
  if (n)
    qsort(ranks, n, sizeof *ranks, by_long);
  size_t unique = 0;
  for (size_t i = 0; i < n; i++)
    if (!unique || ranks[i] != ranks[unique - 1])
      ranks[unique++] = ranks[i];
  *out = ranks;
  return unique;
}

int node_gather_job(const char *job_dir, const long *expected, size_t n, unsigned timeout_s,
                    unsigned threads, struct job_result *r, struct node_gather_report *report) {
  memset(report, 0, sizeof *report);
  struct expectation e = {0};
  if (expected) {
    e.ranks = malloc((n + 1) * sizeof *e.ranks);
    if (e.ranks)
      memcpy(e.ranks, expected, n * sizeof *expected);
    e.n = n;
  } else {
    e.n = expected_ranks(job_dir, &e.ranks);
    timeout_s = 0;
  }
  e.how = calloc(e.n + 1, 1);
  if (!e.ranks || !e.how) {
    free(e.ranks);
    free(e.how);
    return -1;
  }
  qsort(e.ranks, e.n, sizeof *e.ranks, by_long);
  struct node_files nf = {0};
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  double grace_until = -1; /* covered, partly by rank results: a moment for node results */
  char path[PATH_SIZE];
  /* A window or --runtime-calls asked of a saved job: every rank reduced again from its
   * events (the results on disk are of whole runs, counted as their runs were asked). */
  for (; !r->reduce_again;) {
    scan_nodes(job_dir, &e, &nf);
    size_t uncovered = 0, by_rank = 0;
    for (size_t i = 0; i < e.n; i++)
      if (e.how[i] != BY_NODE) {
        rank_result_path(job_dir, e.ranks[i], path, sizeof path);
        if (access(path, F_OK) == 0)
          by_rank++;
        else if (!rank_failed(job_dir, e.ranks[i]))
          uncovered++;
      }
    double elapsed = seconds_since(&start);
    if (!uncovered && !by_rank)
      break;
    if (elapsed >= (double)timeout_s)
      break;
    if (!uncovered && grace_until < 0)
      grace_until = elapsed + 2;
    if (!uncovered && elapsed >= grace_until)
      break;
    nanosleep(&nap, NULL);
  }
  int rc = 0;
  char error[1024];
  for (size_t i = 0; rc == 0 && i < nf.n; i++) {
    /* Read straight into the job's result (no copy per node): a file that does not end
     * whole is left out first, and its ranks count through their own results. */
    if (!ends_whole(nf.paths[i])) {
      long *ranks;
      long count = result_file_ranks(nf.paths[i], &ranks);
      for (long k = 0; k < count; k++)
        e.how[find(&e, ranks[k])] = NOT_COVERED;
      free(ranks);
      continue;
    }
    if (result_file_read(nf.paths[i], r, error, sizeof error))
      rc = -1;
    else
      report->nodes++;
  }
  for (size_t i = 0; rc == 0 && i < e.n; i++) {
    if (e.how[i] == BY_NODE)
      continue;
    rank_result_path(job_dir, e.ranks[i], path, sizeof path);
    if (!r->reduce_again && access(path, F_OK) == 0) {
      struct job_result one;
      int made = job_result_init(&one);
      one.want_actors = r->want_actors;
      bool ok = made == 0 && result_file_read(path, &one, error, sizeof error) == 0;
      if (ok && job_result_merge(r, &one))
        rc = -1;
      job_result_free(&one);
      if (ok) {
        report->rank_results++;
        e.how[i] = BY_RANK;
        continue;
      }
    }
    char folder[PATH_SIZE];
    job_rank_folder(job_dir, e.ranks[i], folder, sizeof folder);
    struct stat st;
    struct diag ignored; /* the rank is then reported missing */
    diag_init(&ignored);
    if (stat(folder, &st) == 0 && S_ISDIR(st.st_mode)) {
      struct job_result one;
      int made = job_result_init(&one);
      one.want_actors = r->want_actors;
      one.window = r->window;
      one.steps_pattern = r->steps_pattern;
      one.runtime_calls = r->runtime_calls;
      int reduced = made == 0 ? job_result_reduce(folder, e.ranks[i], threads, &one, &ignored)
                              : -1;
      diag_clear(&ignored);
      if (one.window_error[0] && !r->window_error[0])
        memcpy(r->window_error, one.window_error, sizeof r->window_error);
      if (reduced == 0) {
        if (job_result_merge(r, &one))
          rc = -1;
        if (!r->reduce_again) { /* through its events by choice, not lateness */
          report->from_events++;
          append_rank(report->late, sizeof report->late, e.ranks[i]);
        }
        job_result_free(&one);
        continue;
      }
      job_result_free(&one);
    }
    report->missing_count++;
    append_rank(report->missing, sizeof report->missing, e.ranks[i]);
  }
  memcpy(report->window_error, r->window_error, sizeof report->window_error);
  if (rc == 0 && !r->rank_count)
    rc = -1;
  if (rc == 0)
    job_result_sort(r);
  for (size_t i = 0; i < nf.n; i++)
    free(nf.paths[i]);
  free(nf.paths);
  id_set_free(&nf.seen);
  free(e.ranks);
  free(e.how);
  return rc;
}
