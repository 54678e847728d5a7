/* rank_exports: see rank_exports.h. */
#include "rank_exports.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "flame.h"
#include "job_folder.h"
#include "otf2_merge.h"
#include "otf2_writer.h"
#include "trace_reader.h"

int rank_exports_write(const char *rank_dir, bool otf2, bool flame, unsigned threads,
                       const struct window_request *window, const char *steps_pattern,
                       struct diag *d) {
  long rank;
  if (!job_folder_rank_of(rank_dir, &rank))
    return diag_error(d, "Cannot write the rank's exports: %s is no rank-N folder", rank_dir);
  struct trace_reader *reader;
  if (trace_reader_open(rank_dir, &reader, d))
    return diag_error(d, "Cannot read the rank's trace");
  /* The window asked for (docs/steps.md): the rank's part of the exports holds it alone. */
  struct trace_window kept = {0};
  if (window && window_apply(reader, window, steps_pattern, threads, &kept, d)) {
    trace_reader_close(reader);
    trace_window_free(&kept);
    return -1;
  }
  char otf2_path[PATH_MAX], flame_path[PATH_MAX];
  snprintf(otf2_path, sizeof otf2_path, "%s/" RANK_OTF2_PART, rank_dir);
  snprintf(flame_path, sizeof flame_path, "%s/" RANK_FLAME_FILE, rank_dir);
  struct otf2_export *x = NULL;
  struct flame *f = NULL;
  struct trace_consumer consumers[2];
  const struct trace_consumer *read[2];
  size_t n = 0;
  int rc = 0;
  struct otf2_options otf2_options = {otf2_path, NULL, rank};
  struct flame_options flame_options = {flame_path, NULL, rank};
  if (otf2 && otf2_export_open(&otf2_options, &x, &consumers[n], d) == 0)
    read[n] = &consumers[n], n++;
  else if (otf2)
    rc = -1;
  if (flame && flame_open(&flame_options, &f, &consumers[n], d) == 0)
    read[n] = &consumers[n], n++;
  else if (flame)
    rc = -1;
  struct trace_read_options options = {.threads = threads};
  bool failed = n && trace_read(reader, read, n, &options, d) == TRACE_READ_FAILED;
  if (x && otf2_export_close(x, failed, NULL, d))
    rc = -1;
  if (f && flame_close(f, failed, NULL, d))
    rc = -1;
  trace_reader_close(reader);
  trace_window_free(&kept);
  return rc;
}

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

int rank_exports_join(const char *job_dir, long size, const char *otf2_path,
                      const char *flame_path, struct rank_exports_stats *stats, struct diag *d) {
  *stats = (struct rank_exports_stats){0};
  long *folders = NULL;
  size_t count = job_folder_ranks(job_dir, &folders);
  size_t n = size > 0 ? (size_t)size : 0;
  if (count && (size_t)folders[count - 1] + 1 > n)
    n = (size_t)folders[count - 1] + 1;
  free(folders);
  char **otf2_parts = calloc(n + 1, sizeof *otf2_parts);
  char **flame_parts = calloc(n + 1, sizeof *flame_parts);
  int rc = 0;
  if (!otf2_parts || !flame_parts) {
    rc = diag_error(d, "Cannot write the job's exports: out of memory");
    n = 0;
  }
  for (size_t r = 0; r < n; r++) {
    char folder[PATH_MAX], path[PATH_MAX + 32];
    job_rank_folder(job_dir, (long)r, folder, sizeof folder);
    snprintf(path, sizeof path, "%s/" RANK_OTF2_PART, folder);
    if (otf2_path && exists(path) && (otf2_parts[r] = realpath(path, NULL)))
      stats->otf2_ranks++;
    snprintf(path, sizeof path, "%s/" RANK_FLAME_FILE, folder);
    if (flame_path && exists(path) && (flame_parts[r] = realpath(path, NULL)))
      stats->flame_ranks++;
  }
  if (rc == 0 && otf2_path && !stats->otf2_ranks)
    rc = diag_error(d, "Cannot write the job's OTF2 archive: no rank wrote its part in %s",
                    job_dir);
  else if (rc == 0 && otf2_path) {
    struct otf2_merge_stats merged;
    if (otf2_merge((const char *const *)otf2_parts, n, otf2_path, &merged, d))
      rc = -1;
    stats->otf2_locations = merged.locations;
    stats->otf2_events = merged.events;
  }
  if (flame_path && flame_parts && !stats->flame_ranks)
    rc = diag_error(d, "Cannot write the job's folded stacks: no rank wrote its part in %s",
                    job_dir);
  else if (flame_path && flame_parts) {
    struct flame_stats joined;
    if (flame_join((const char *const *)flame_parts, n, flame_path, &joined, d))
      rc = -1;
    stats->flame_device_lines = joined.device_lines;
    stats->flame_host_lines = joined.host_lines;
  }
  for (size_t r = 0; r < n; r++) {
    free(otf2_parts[r]);
    free(flame_parts[r]);
  }
  free(otf2_parts);
  free(flame_parts);
  return rc;
}
