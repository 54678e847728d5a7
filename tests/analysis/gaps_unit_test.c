/* gaps_unit_test: the gap report (cli/reports/gaps/) as a consumer of the read, fed
 * records the way the reader hands them out (in read order, and again when its finish()
 * asks for another pass), against the answer worked out here the slow way: every command
 * sorted by start, their union, its longest gaps, and for each the shortest call spanning
 * its middle (the first read of those as long).
 *   - in order: one pass; the gaps and the calls the host was in;
 *   - a command that comes long after it started (a long kernel on another queue): the
 *     early taking of commands runs out of order, and the analysis reads the trace
 *     twice more, the two-step way: busy time and gaps as the slow way says;
 *   - a gap whose call left the history (more calls since than GAPS_HISTORY): one more
 *     pass over the calls finds it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaps.h"
#include "tracer_backend_desc.h"
#include "tracer_runtime.h"

static int failures;
#define CHECK(cond, ...)                                                                    \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      failures++;                                                                           \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);              \
      fprintf(stderr, __VA_ARGS__);                                                         \
      fputc('\n', stderr);                                                                  \
    }                                                                                       \
  } while (0)

static const char *host = "node1"; /* one string, as the reader hands out the trace's own */
static struct tracer_function_desc functions[] = {{.name = "short_call"},
                                                  {.name = "long_call"},
                                                  {.name = "filler"}};
static struct tracer_backend_desc backend = {.name = "fake", .functions = functions,
                                             .function_count = 3};

/* A record as the reader hands it out: a call or a device command, at the event's time. */
struct record {
  bool device;
  uint64_t start, end, time;
  int function;   /* calls */
  uint64_t queue; /* commands */
};

struct feed {
  struct record *records;
  size_t count, cap;
};

static void add(struct feed *f, struct record r) {
  if (f->count == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 64;
    f->records = realloc(f->records, f->cap * sizeof *f->records);
  }
  f->records[f->count++] = r;
}

static void add_call(struct feed *f, uint64_t start, uint64_t end, int function) {
  add(f, (struct record){false, start, end, end + 1, function, 0});
}

/* A command read at `time` (it is recorded once it completed). */
static void add_command(struct feed *f, uint64_t start, uint64_t end, uint64_t time,
                        uint64_t queue) {
  add(f, (struct record){true, start, end, time, 0, queue});
}

/* Runs the analysis over the feed as the reader would; returns how many passes it took. */
static int run(const struct feed *f, struct gap_report *report) {
  struct gaps *g;
  struct trace_consumer c;
  struct diag d;
  diag_init(&d);
  CHECK(gaps_open(&g, &c, &d) == 0, "open");
  int passes = 0, again;
  do {
    passes++;
    for (size_t i = 0; i < f->count; i++) {
      const struct record *r = &f->records[i];
      struct trace_source from = {.host_name = host, .time = r->time};
      if (r->device) {
        struct trace_device dev = {.from = from, .has_ids = true, .pid = 7, .tid = 7,
                                   .kind = TRACER_COMMAND_KERNEL, .name = "k",
                                   .queue = r->queue, .start = r->start, .end = r->end};
        c.device(c.context, &dev);
      } else {
        struct trace_call call = {.from = from, .desc = &backend, .function = r->function,
                                  .pid = 7, .tid = 8, .start = r->start, .end = r->end};
        c.call(c.context, &call);
      }
    }
    struct trace_summary summary = {.first = f->records[0].time,
                                    .last = f->records[f->count - 1].time};
    again = c.finish(c.context, &summary);
  } while (again == TRACE_READ_AGAIN && passes < 5);
  CHECK(gaps_close(g, report, &d) == 0, "close");
  diag_clear(&d);
  return passes;
}

static int by_start(const void *a, const void *b) {
  const struct record *x = *(const struct record *const *)a, *y = *(const struct record *const *)b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The slow way: the union of every command, its gaps longest first, and their calls. */
struct expected {
  uint64_t busy;
  size_t gap_count;
  struct {
    uint64_t start, length;
    const char *call;
  } gaps[GAPS_KEPT];
};

static void work_out(const struct feed *f, struct expected *e) {
  memset(e, 0, sizeof *e);
  const struct record **sorted = calloc(f->count, sizeof *sorted);
  size_t n = 0;
  for (size_t i = 0; i < f->count; i++)
    if (f->records[i].device)
      sorted[n++] = &f->records[i];
  qsort(sorted, n, sizeof *sorted, by_start);
  uint64_t open_start = sorted[0]->start, open_end = sorted[0]->end;
  for (size_t i = 1; i <= n; i++) {
    if (i < n && sorted[i]->start <= open_end) {
      if (sorted[i]->end > open_end)
        open_end = sorted[i]->end;
      continue;
    }
    e->busy += open_end - open_start;
    if (i == n)
      break;
    uint64_t length = sorted[i]->start - open_end;
    size_t at = e->gap_count < GAPS_KEPT ? e->gap_count++ : GAPS_KEPT;
    while (at > 0 && e->gaps[at - 1].length < length) {
      if (at < GAPS_KEPT)
        e->gaps[at] = e->gaps[at - 1];
      at--;
    }
    if (at < GAPS_KEPT) {
      e->gaps[at].start = open_end;
      e->gaps[at].length = length;
      e->gaps[at].call = NULL;
    }
    open_start = sorted[i]->start;
    open_end = sorted[i]->end;
  }
  for (size_t g = 0; g < e->gap_count; g++) {
    uint64_t middle = e->gaps[g].start + e->gaps[g].length / 2, best = UINT64_MAX;
    for (size_t i = 0; i < f->count; i++) {
      const struct record *r = &f->records[i];
      if (!r->device && r->start <= middle && r->end >= middle && r->end - r->start < best) {
        best = r->end - r->start;
        e->gaps[g].call = functions[r->function].name;
      }
    }
  }
  free(sorted);
}

static void compare(const char *what, const struct gap_report *got, const struct expected *e) {
  CHECK(got->device_count == 1, "%s: devices=%zu", what, got->device_count);
  if (got->device_count != 1)
    return;
  const struct gap_device *d = &got->devices[0];
  CHECK(d->busy == e->busy, "%s: busy %llu, the slow way %llu", what,
        (unsigned long long)d->busy, (unsigned long long)e->busy);
  CHECK(d->gap_count == e->gap_count, "%s: %zu gaps, the slow way %zu", what, d->gap_count,
        e->gap_count);
  for (size_t g = 0; g < d->gap_count && g < e->gap_count; g++) {
    CHECK(d->gaps[g].start == e->gaps[g].start &&
              d->gaps[g].end - d->gaps[g].start == e->gaps[g].length,
          "%s: gap %zu at %llu (%llu long), the slow way at %llu (%llu)", what, g,
          (unsigned long long)d->gaps[g].start,
          (unsigned long long)(d->gaps[g].end - d->gaps[g].start),
          (unsigned long long)e->gaps[g].start, (unsigned long long)e->gaps[g].length);
    const char *want = e->gaps[g].call ? e->gaps[g].call : "";
    CHECK(strcmp(d->gaps[g].host_call, want) == 0, "%s: gap %zu in '%s', the slow way '%s'",
          what, g, d->gaps[g].host_call, want);
  }
}

enum { MS = 1000000 };

/* Commands in order with gaps of different lengths; calls spanning some middles, a
 * shorter one nested in a longer one. */
static void test_in_order(void) {
  struct feed f = {0};
  uint64_t t = 0;
  for (int i = 0; i < 12; i++) {
    uint64_t gap = (uint64_t)(i + 1) * MS;
    add_command(&f, t, t + MS, t + MS + 1000, 1);
    /* A long call across the gap to come, and a short one at its middle for the even
     * ones (read when they return, before the next command). */
    uint64_t middle = t + MS + gap / 2;
    if (i % 2 == 0)
      add_call(&f, middle - 1000, middle + 1000, 0);
    add_call(&f, t + MS / 2, t + MS + gap, 1);
    t += MS + gap;
  }
  add_command(&f, t, t + MS, t + MS + 1000, 1);
  struct gap_report report;
  struct expected e;
  int passes = run(&f, &report);
  work_out(&f, &e);
  CHECK(passes == 1, "in order: %d passes", passes);
  compare("in order", &report, &e);
  gaps_free(&report);
  free(f.records);
}

/* A 400 ms kernel on queue 2 read when it ends, after short ones on queue 1 that started
 * later were taken: out of start order on the device. */
static void test_late_command(void) {
  struct feed f = {0};
  add_command(&f, 0, MS, MS, 1);
  add_command(&f, 110 * (uint64_t)MS, 120 * (uint64_t)MS, 120 * (uint64_t)MS, 1);
  add_command(&f, 200 * (uint64_t)MS, 210 * (uint64_t)MS, 210 * (uint64_t)MS, 1);
  add_call(&f, 250 * (uint64_t)MS, 260 * (uint64_t)MS, 0);
  add_command(&f, 300 * (uint64_t)MS, 310 * (uint64_t)MS, 310 * (uint64_t)MS, 1);
  add_command(&f, 100 * (uint64_t)MS, 500 * (uint64_t)MS, 500 * (uint64_t)MS, 2);
  add_command(&f, 600 * (uint64_t)MS, 610 * (uint64_t)MS, 610 * (uint64_t)MS, 1);
  add_call(&f, 505 * (uint64_t)MS, 590 * (uint64_t)MS, 1);
  add_command(&f, 700 * (uint64_t)MS, 701 * (uint64_t)MS, 701 * (uint64_t)MS, 1);
  struct gap_report report;
  struct expected e;
  int passes = run(&f, &report);
  work_out(&f, &e);
  CHECK(passes == 3, "late command: %d passes, expected 3 (the two-step way)", passes);
  compare("late command", &report, &e);
  gaps_free(&report);
  free(f.records);
}

/* The call the host was in at a gap's middle returned before more than GAPS_HISTORY
 * other calls did, and the gap is found after them. */
static void test_history(void) {
  struct feed f = {0};
  add_command(&f, 0, 10, 20, 1);
  add_call(&f, 100, 900000000, 1); /* spans the gap's middle */
  for (uint64_t i = 0; i < GAPS_HISTORY + 10; i++)
    add_call(&f, 900000100 + 2 * i, 900000101 + 2 * i, 2);
  add_command(&f, 1000000000, 1000000010, 1000000020, 1);
  struct gap_report report;
  struct expected e;
  int passes = run(&f, &report);
  work_out(&f, &e);
  CHECK(passes == 2, "history: %d passes, expected 2", passes);
  CHECK(e.gap_count == 1 && e.gaps[0].call && strcmp(e.gaps[0].call, "long_call") == 0,
        "the test's own answer");
  compare("history", &report, &e);
  gaps_free(&report);
  free(f.records);
}

int main(void) {
  test_in_order();
  test_late_command();
  test_history();
  if (failures)
    return 1;
  printf("gaps: in order (1 pass), a late command (3), a gap older than the history (2)\n");
  return 0;
}
