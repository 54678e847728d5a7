/* rank_timeline: see rank_timeline.h. */
#include "rank_timeline.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_folder.h"
#include "run_record.h"
#include "perfetto.h"
#include "timeline_build.h"
#include "trace_reader.h"

#define RANK_TIMELINE_FILE "timeline.pftrace"

/* The app's name from the run record's command: its first word, without its folder. */
static void app_name(const char *dir, char *out, size_t size) {
  struct run_record run;
  run_record_read(dir, &run);
  out[0] = '\0';
  if (!run.present || !run.command[0])
    return;
  size_t len = strcspn(run.command, " ");
  const char *name = run.command;
  for (size_t i = 0; i < len; i++)
    if (run.command[i] == '/')
      name = run.command + i + 1;
  snprintf(out, size, "%.*s", (int)(run.command + len - name), name);
}

int rank_timeline_write(const char *rank_dir, uint64_t split_bytes,
                        const struct window_request *window, const char *steps_pattern,
                        struct timeline_stats *stats, struct diag *d) {
  long rank;
  if (!job_folder_rank_of(rank_dir, &rank))
    return diag_error(d, "Cannot write the rank's timeline: %s is no rank-N folder", rank_dir);
  struct trace_reader *reader;
  if (trace_reader_open(rank_dir, &reader, d))
    return diag_error(d, "Cannot read the rank's trace");
  struct trace_window kept = {0}; /* the window asked for (docs/steps.md) */
  if (window && window_apply(reader, window, steps_pattern, 0, &kept, d)) {
    trace_reader_close(reader);
    trace_window_free(&kept);
    return -1;
  }
  char path[PATH_MAX], app[256];
  snprintf(path, sizeof path, "%s/" RANK_TIMELINE_FILE, rank_dir);
  app_name(rank_dir, app, sizeof app);
  /* Per rank: 2^32 track uuids, 2^40 flow ids, one packet sequence (never 0). */
  struct perfetto_options options = {.path = path, .split_bytes = split_bytes,
                                     .uuid_base = (uint64_t)(rank + 1) << 32,
                                     .sequence_id = (uint32_t)(rank + 1)};
  struct timeline_build_options build = {.app_name = app[0] ? app : NULL, .is_rank = true,
                                         .rank = rank,
                                         .flow_base = (uint64_t)(rank + 1) << 40};
  struct timeline *tl;
  struct timeline_sink sink;
  char message[512] = "";
  if (perfetto_sink_open(&options, &sink, d)) {
    trace_reader_close(reader);
    trace_window_free(&kept);
    return -1;
  }
  int rc = timeline_open(&sink, 1, &tl);
  if (rc == 0)
    rc = timeline_build(reader, tl, &build, d);
  if (timeline_close(tl, stats, message, sizeof message) && rc == 0)
    rc = diag_error(d, "%s", message);
  trace_reader_close(reader);
  trace_window_free(&kept);
  return rc;
}

static int append_file(int out, const char *path, uint64_t *bytes) {
  int in = open(path, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return -1;
  char buffer[1 << 16];
  ssize_t n;
  int rc = 0;
  while ((n = read(in, buffer, sizeof buffer)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      rc = -1;
      break;
    }
    for (ssize_t done = 0; done < n;) {
      ssize_t w = write(out, buffer + done, (size_t)(n - done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        rc = -1;
        break;
      }
      done += w;
    }
    if (rc)
      break;
    *bytes += (uint64_t)n;
  }
  close(in);
  return rc;
}

int rank_timeline_join(const char *job_dir, const char *path, unsigned *joined, uint64_t *bytes,
                       struct diag *d) {
  *joined = 0;
  *bytes = 0;
  char tmp[PATH_MAX];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
    return diag_error(d, "Cannot write the job's timeline: file=%s, name too long", path);
  int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0)
    return diag_error(d, "Cannot create the timeline: file=%s, %s", path, strerror(errno));
  long *ranks = NULL;
  size_t n = job_folder_ranks(job_dir, &ranks);
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    char folder[PATH_MAX], first[PATH_MAX + 32], part[PATH_MAX + 32];
    job_rank_folder(job_dir, ranks[i], folder, sizeof folder);
    snprintf(first, sizeof first, "%s/" RANK_TIMELINE_FILE, folder);
    struct stat st;
    if (stat(first, &st) != 0)
      continue; /* an untraced rank, or one whose timeline failed (it said why) */
    (*joined)++;
    /* Every part, in order: each begins with its tracks again, which is harmless. */
    for (unsigned p = 1; rc == 0 && perfetto_part_path(first, p, part, sizeof part) == 0 &&
                         stat(part, &st) == 0;
         p++)
      if (append_file(out, part, bytes))
        rc = diag_error(d, "Cannot join the ranks' timelines: file=%s, %s", part, strerror(errno));
  }
  free(ranks);
  if (close(out) != 0 && rc == 0)
    rc = diag_error(d, "Cannot write the timeline: file=%s, %s", path, strerror(errno));
  if (rc == 0 && rename(tmp, path) != 0)
    rc = diag_error(d, "Cannot write the timeline: file=%s, %s", path, strerror(errno));
  if (rc)
    unlink(tmp);
  return rc;
}
