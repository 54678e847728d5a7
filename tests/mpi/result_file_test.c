/* result_file_test: per-node results (cli/job/result_file.c, job_result.c) written,
 * read back and written again give the same file; merging is exact and independent of
 * order (ties go to the lower rank); a file cut short, of another version or with a bad
 * line is refused with its file and line; message sizes fall in their buckets; the
 * sampling ranks' device counters (tracer --sample) go through a file exactly, in rank
 * order whatever the merge order, and a file of version 3 (none) still reads; the top
 * source lines add up over ranks with their spread, through a file exactly. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "result_file.h"

#include "expect.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  char *text = calloc(1, 1 << 20);
  size_t n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
  (void)n;
  fclose(f);
  return text;
}

/* One rank's result: a function of the first backend called twice, a device row, a
 * message size, a matrix row, a failed status. */
static void rank_result(struct job_result *r, long rank, uint64_t ns) {
  job_result_init(r);
  r->want_actors = true;
  struct tally_backend *b = &r->tally.backends[0];
  b->host[0] = (struct tally_stat){2, 0, ns, ns / 4, ns - ns / 4};
  b->processes.len = 1;
  b->threads.len = 2;
  b->events = 2;
  r->tally.events = 5;
  r->tally.counted_calls = 3;
  r->tally.batched_calls = 64; /* minimal mode: two batches */
  r->tally.batch_events = 2;
  if (rank == 2) { /* one rank made the calibration: the merge keeps its figures */
    r->tally.has_calibration = true;
    r->tally.calibration_event_ps = 150000, r->tally.calibration_byte_ps = 900;
    r->tally.calibration_call_ps = 25000;
  }
  id_set_add(&b->hosts, (uint64_t)job_result_host(r, rank < 2 ? "alpha" : "beta"));
  r->function_ns[0][0] = (struct job_spread){ns, ns, ns, 1, rank, rank};
  r->host_share[0] = (struct job_spread){500000, 500000, 500000, 1, rank, rank};
  struct job_size_row size = {0, 0, job_size_bucket(800), 1, 800};
  job_result_add_size(r, &size);
  job_result_add_matrix(r, rank, rank ^ 1, 800, 1);
  job_result_add_rank(r, rank);
  r->ranks_timed = 1;
  if (rank == 3) {
    struct job_rank_status s = {.rank = 3,
                                .status = "end was not seen (the tracer was stopped before it)"};
    job_result_add_failed(r, &s);
  }
  b->device = calloc(1, sizeof *b->device);
  b->device[0] = (struct tally_device){strdup("kernel with spaces"), 0, {1, 0, ns, ns, ns}, 64, 64, 64, NULL};
  b->device_count = b->device_cap = 1;
  /* Its two threads: the first made the calls, the second recorded the device row. */
  int host = job_result_host(r, rank < 2 ? "alpha" : "beta");
  long caller = actors_find(&r->tally.actors, rank, host, 100 + rank, 100 + rank);
  long helper = actors_find(&r->tally.actors, rank, host, 100 + rank, 200 + rank);
  actors_row(&r->tally.actors, (uint32_t)caller, 0, 0, 0, NULL, 0)->time = b->host[0];
  struct actor_row *d = actors_row(&r->tally.actors, (uint32_t)helper, 0, -1, 0,
                                   "kernel with spaces", 18);
  d->time = b->device[0].time;
  d->bytes = 64;
  if (rank % 2 == 0) { /* a node's first local rank samples its devices */
    struct samples_report sampled = {0};
    struct samples_device *dev = samples_add_device(&sampled, "nvml", 0, "Null GPU 80GB", -1);
    struct samples_counter *c = samples_add_counter(dev, "power", "W");
    *c = (struct samples_counter){c->name, c->unit, 12, 100.0 / 3, 123.456789012345678, 250,
                                  1000 + ns, 1000, 2000 + ns, true, 1.0 / 7};
    c = samples_add_counter(dev, "memory_used", "B");
    *c = (struct samples_counter){c->name, c->unit, 12, 1 << 20, 6.5 * (1 << 20), 12 << 20,
                                  1900, 1000, 2000, false, 0};
    if (rank == 2)
      samples_add_unavailable(&sampled, "ze: libze_loader.so.1: cannot open shared object file");
    samples_append(&r->samples, &sampled, rank);
    samples_free(&sampled);
  }
  /* Its top source lines: every rank's step() launches `k`, the even ranks' a line of
   * two kernels too (a tab in a name is written as a space). */
  struct sources_table lines = {0};
  struct sources_line *l = sources_table_line(&lines, 0, 10, "/app/train.py", "step",
                                              "train.py:10 step");
  sources_line_add(l, "k", ns, 2);
  if (rank % 2 == 0) {
    l = sources_table_line(&lines, 1, 7, "/app/fused.c", "fused", "fused\tkernel");
    sources_line_add(l, "k", 100, 1);
    sources_line_add(l, "k2 with spaces", 300, 1);
  }
  lines.stacked_ns = ns + (rank % 2 == 0 ? 400 : 0);
  lines.other_ns = 5;
  sources_table_set_rank(&lines, rank);
  sources_table_merge(&r->sources, &lines);
  sources_table_free(&lines);
}

int main(void) {
  EXPECT(backends_count() > 0);
  EXPECT(job_size_bucket(0) == 0 && job_size_bucket(1) == 1 && job_size_bucket(64) == 1);
  EXPECT(job_size_bucket(65) == 2 && job_size_bucket(1024) == 3 && job_size_bucket(1025) == 4);
  EXPECT(job_size_bucket(UINT64_MAX) == JOB_SIZE_BUCKETS - 1);
  EXPECT(job_size_bucket_limit(3) == 1024 && job_size_bucket_limit(JOB_SIZE_BUCKETS - 1) == UINT64_MAX);

  char dir[] = "/tmp/result_file_test.XXXXXX";
  if (!mkdtemp(dir))
    return perror("mkdtemp"), 1;
  char a[4200], b[4200], c[4200], bad[4200];
  snprintf(a, sizeof a, "%s/a.result", dir);
  snprintf(b, sizeof b, "%s/b.result", dir);
  snprintf(c, sizeof c, "%s/c.result", dir);
  snprintf(bad, sizeof bad, "%s/bad.result", dir);

  /* Ranks 0..3 merged in two orders give the same figures (ties to the lower rank). */
  struct job_result ranks[4], forward, backward, again;
  for (long i = 0; i < 4; i++)
    rank_result(&ranks[i], i, i == 1 || i == 2 ? 1000 : 2000 + (uint64_t)i);
  job_result_init(&forward);
  job_result_init(&backward);
  forward.want_actors = backward.want_actors = true;
  for (int i = 0; i < 4; i++) {
    EXPECT(job_result_merge(&forward, &ranks[i]) == 0);
    EXPECT(job_result_merge(&backward, &ranks[3 - i]) == 0);
  }
  job_result_sort(&forward);
  job_result_sort(&backward);
  EXPECT(forward.function_ns[0][0].min_rank == 1 && backward.function_ns[0][0].min_rank == 1);
  EXPECT(forward.function_ns[0][0].max_rank == 3 && forward.function_ns[0][0].count == 4);
  EXPECT(forward.tally.backends[0].host[0].calls == 8 && forward.tally.counted_calls == 12);
  EXPECT(forward.tally.backends[0].hosts.len == 2 && forward.tally.backends[0].threads.len == 8);
  EXPECT(forward.matrix_count == 4 && forward.size_count == 1 && forward.sizes[0].calls == 4);
  EXPECT(forward.tally.backends[0].device_count == 1 &&
         forward.tally.backends[0].device[0].time.calls == 4);
  EXPECT(forward.tally.actors.count == 8 && forward.tally.actors.row_count == 8);
  /* The source lines: summed over ranks, in how many, the most of one (ties to the
   * lower rank), whatever the order. */
  EXPECT(forward.sources.count == 2 && backward.sources.count == 2);
  EXPECT(forward.sources.stacked_ns == 1000 + 1000 + 2000 + 2003 + 800 &&
         forward.sources.other_ns == 20);
  for (size_t i = 0; i < forward.sources.count; i++) {
    const struct sources_line *l = &forward.sources.lines[i];
    if (l->line == 10)
      EXPECT(l->ranks == 4 && l->ns == 6003 && l->commands == 8 && l->least_ns == 1000 &&
             l->least_rank == 1 && l->most_ns == 2003 && l->most_rank == 3 &&
             l->kernel_count == 1);
    else
      EXPECT(l->line == 7 && l->ranks == 2 && l->ns == 800 && l->commands == 4 &&
             l->least_rank == 0 && l->most_rank == 0 && l->kernel_count == 2);
  }
  EXPECT(result_file_write(a, &forward) == 0 && result_file_write(b, &backward) == 0);
  char *ta = slurp(a), *tb = slurp(b);
  EXPECT(ta && tb && strcmp(ta, tb) == 0);
  EXPECT(forward.samples.device_count == 2 && forward.samples.devices[0].rank == 0 &&
         forward.samples.devices[1].rank == 2 && forward.samples.unavailable_count == 1);
  EXPECT(strcmp(forward.samples.unavailable[0],
                "rank 2: ze: libze_loader.so.1: cannot open shared object file") == 0);
  if (ta && tb && strcmp(ta, tb) != 0)
    fprintf(stderr, "%s---\n%s", ta, tb);

  /* Read back and written again: the same file. */
  char error[1024] = "";
  job_result_init(&again);
  again.want_actors = true;
  EXPECT(result_file_read(a, &again, error, sizeof error) == 0);
  EXPECT(again.tally.actors.count == 8 && again.tally.actors.row_count == 8);
  EXPECT(again.tally.batched_calls == 256 && again.tally.batch_events == 8);
  EXPECT(again.tally.has_calibration && again.tally.calibration_call_ps == 25000 &&
         again.tally.calibration_event_ps == 150000 && again.tally.calibration_byte_ps == 900);
  /* The device counters read back as they were, to the bit. */
  EXPECT(again.samples.device_count == 2 && again.samples.unavailable_count == 1);
  for (size_t i = 0; i < again.samples.device_count && i < 2; i++) {
    const struct samples_device *x = &again.samples.devices[i], *y = &forward.samples.devices[i];
    EXPECT(x->rank == y->rank && x->index == y->index && strcmp(x->name, y->name) == 0 &&
           strcmp(x->backend, y->backend) == 0 && x->counter_count == 2);
    for (size_t k = 0; k < x->counter_count && k < 2; k++) {
      const struct samples_counter *p = &x->counters[k], *q = &y->counters[k];
      EXPECT(strcmp(p->name, q->name) == 0 && strcmp(p->unit, q->unit) == 0 &&
             p->readings == q->readings && p->least == q->least && p->mean == q->mean &&
             p->most == q->most && p->joules == q->joules && p->energy == q->energy &&
             p->most_at == q->most_at && p->first == q->first && p->last == q->last);
    }
  }
  /* A calibration line of before batching (three numbers) still reads, with no call cost. */
  char old_calibration[] = "/tmp/result_file_test_old_XXXXXX";
  int fd = mkstemp(old_calibration);
  EXPECT(fd >= 0);
  const char *old = "tracer-result 2\ncalibration 150000 900 1\nend\n";
  EXPECT(write(fd, old, strlen(old)) == (ssize_t)strlen(old) && close(fd) == 0);
  struct job_result older;
  job_result_init(&older);
  EXPECT(result_file_read(old_calibration, &older, error, sizeof error) == 0 &&
         older.tally.has_calibration && older.tally.calibration_byte_ps == 900 &&
         older.tally.calibration_call_ps == 0);
  job_result_free(&older);
  /* Version 3, of before the device counters: read, with none. */
  fd = open(old_calibration, O_WRONLY | O_TRUNC);
  const char *v3 = "tracer-result 3\nranks 5\nend\n";
  EXPECT(fd >= 0 && write(fd, v3, strlen(v3)) == (ssize_t)strlen(v3) && close(fd) == 0);
  job_result_init(&older);
  EXPECT(result_file_read(old_calibration, &older, error, sizeof error) == 0 &&
         older.rank_count == 1 && older.samples.device_count == 0);
  job_result_free(&older);
  unlink(old_calibration);
  EXPECT(strstr(ta, "\na 3 103 203 beta\n") && strstr(ta, "\nad 7 0 1 0 2003 2003 2003 64 kernel"));
  EXPECT(strstr(ta, "\nst 6803 20\nsl 1 7 800 4 2 400 0 400 0\t/app/fused.c\tfused\tfused kernel\n"
                    "sk 200 2 k\nsk 600 2 k2 with spaces\nsl 0 10 6003 8 4 1000 1 2003 3\t"
                    "/app/train.py\tstep\ttrain.py:10 step\nsk 6003 8 k\n"));
  EXPECT(again.sources.count == 2 && again.sources.stacked_ns == 6803);
  /* Without the views that need them, the actors' lines are skipped. */
  struct job_result plain;
  job_result_init(&plain);
  EXPECT(result_file_read(a, &plain, error, sizeof error) == 0 && plain.tally.actors.count == 0 &&
         plain.tally.backends[0].host[0].calls == 8);
  job_result_free(&plain);
  job_result_sort(&again);
  EXPECT(result_file_write(c, &again) == 0);
  char *tc = slurp(c);
  EXPECT(ta && tc && strcmp(ta, tc) == 0);
  long *covered;
  EXPECT(result_file_ranks(a, &covered) == 4 && covered[3] == 3);
  free(covered);

  /* Cut short (no `end`), another version, a bad line: refused, naming file and line. */
  FILE *f = fopen(bad, "w");
  fprintf(f, "%.*s", (int)(strstr(ta, "\nend\n") - ta + 1), ta);
  fclose(f);
  struct job_result junk;
  job_result_init(&junk);
  EXPECT(result_file_read(bad, &junk, error, sizeof error) != 0);
  EXPECT(strstr(error, bad) && strstr(error, "ends before its `end` line"));
  f = fopen(bad, "w");
  fputs("tracer-result 99\nend\n", f);
  fclose(f);
  EXPECT(result_file_read(bad, &junk, error, sizeof error) != 0 && strstr(error, ":1: Cannot"));
  f = fopen(bad, "w");
  fprintf(f, "tracer-result %d\nranks 1\nbogus 3\nend\n", RESULT_FILE_VERSION);
  fclose(f);
  EXPECT(result_file_read(bad, &junk, error, sizeof error) != 0 &&
         strstr(error, ":3: Cannot read the result: unexpected line `bogus 3`"));
  job_result_free(&junk);

  for (int i = 0; i < 4; i++)
    job_result_free(&ranks[i]);
  job_result_free(&forward);
  job_result_free(&backward);
  job_result_free(&again);
  free(ta);
  free(tb);
  free(tc);
  unlink(a);
  unlink(b);
  unlink(c);
  unlink(bad);
  rmdir(dir);
  if (failures)
    return 1;
  puts("PASS: result_file");
  return 0;
}
