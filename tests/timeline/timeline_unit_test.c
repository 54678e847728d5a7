/* timeline_unit_test DIR: writes timelines through the timeline writer's API
 * (cli/exports/timeline/) and its Perfetto and JSON sinks, and reads them back
 * with the tests' own decoder: tracks and their tree, nesting, names, arguments, times,
 * flows, counters, overlapping slices on lanes, split parts that each decode alone, the
 * summary, the JSON output and a bad path. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chrome_json.h"
#include "perfetto.h"
#include "pftrace_read.h"
#include "timeline.h"
#include "timeline_sink.h"

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

static const char *dir;

/* A timeline to a Perfetto file (o), and to a JSON file too when json is not NULL. */
static int open_timeline(const struct perfetto_options *o, const char *json,
                         struct timeline **tl, char *error, size_t size) {
  struct timeline_sink sinks[2];
  struct diag d;
  diag_init(&d);
  *tl = NULL;
  int rc = perfetto_sink_open(o, &sinks[0], &d);
  if (rc == 0 && json && chrome_json_sink_open(json, &sinks[1], &d)) {
    sinks[0].ops->close(sinks[0].state, NULL, NULL, 0);
    rc = -1;
  }
  if (rc == 0)
    rc = timeline_open(sinks, json ? 2 : 1, tl);
  diag_join(&d, error, size);
  diag_clear(&d);
  return rc;
}

static char *path_of(const char *name) {
  static char buf[4][4096];
  static int next;
  char *p = buf[next++ % 4];
  snprintf(p, sizeof buf[0], "%s/%s", dir, name);
  return p;
}

static const struct pft_slice *find_slice(const struct pftrace *t, const char *name,
                                          uint64_t start) {
  for (size_t i = 0; i < t->slice_count; i++)
    if (strcmp(t->slices[i].name, name) == 0 && t->slices[i].start == start)
      return &t->slices[i];
  return NULL;
}

static void slice(struct timeline *tl, timeline_track track, uint64_t s, uint64_t e,
                  const char *name) {
  struct timeline_slice sl = {.track = track, .start = s, .end = e, .name = name};
  CHECK(timeline_slice(tl, &sl) == 0, "%s", timeline_error(tl));
}

/* Host calls that nest, in order of their end (as calls come from the trace), with
 * arguments; a device command with a flow from its call; a memory counter. */
static void test_basic(void) {
  struct timeline *tl;
  char *file = path_of("basic.pftrace");
  struct perfetto_options o = {.path = file};
  char why[512];
  CHECK(open_timeline(&o, path_of("basic.json"), &tl, why, sizeof why) == 0, "%s", why);
  timeline_track host = timeline_host(tl, "nodeA");
  timeline_track proc = timeline_process(tl, host, 42, "app");
  timeline_track thread = timeline_thread(tl, proc, 42, 43, "app");
  CHECK(timeline_thread(tl, proc, 42, 43, "app") == thread, "same key, same track");
  timeline_track dev = timeline_device(tl, host, "opencl device 0");
  timeline_track queue = timeline_queue(tl, dev, 0x1234, "queue 0x1234");
  timeline_track mem = timeline_counter_track(tl, proc, "host memory", TIMELINE_UNIT_BYTES);
  slice(tl, thread, 200, 300, "clGetPlatformIDs");
  slice(tl, thread, 500, 600, "inner");
  slice(tl, thread, 400, 900, "clFinish");
  struct trace_arg args[] = {
      {.name = "bytes", .kind = TRACE_ARG_UINT, .v.u = 4096},
      {.name = "buffer", .kind = TRACE_ARG_POINTER, .v.u = 0xabc},
      {.name = "status", .kind = TRACE_ARG_STRING, .v.s = "CL_SUCCESS"},
  };
  struct timeline_slice call = {.track = thread, .start = 1000, .end = 1100,
                                .name = "clEnqueueWriteBuffer", .args = args, .arg_count = 3,
                                .flow_out = 7};
  CHECK(timeline_slice(tl, &call) == 0, "%s", timeline_error(tl));
  struct timeline_slice dev_slice = {.track = queue, .start = 1150, .end = 1400,
                                     .name = "write 4096 B", .flow_in = 7};
  CHECK(timeline_slice(tl, &dev_slice) == 0, "%s", timeline_error(tl));
  slice(tl, thread, 100, 2000, "main");
  CHECK(timeline_counter(tl, mem, 1000, 4096) == 0, "%s", timeline_error(tl));
  CHECK(timeline_counter(tl, mem, 3000, 0) == 0, "%s", timeline_error(tl));
  CHECK(timeline_instant(tl, thread, 1500, "marker", NULL, 0) == 0, "%s", timeline_error(tl));
  struct timeline_stats st;
  char error[512];
  CHECK(timeline_close(tl, &st, error, sizeof error) == 0, "%s", error);
  CHECK(st.parts == 1 && !st.summary && st.slices == 6 && st.lanes == 0,
        "parts=%u slices=%llu lanes=%llu", st.parts, (unsigned long long)st.slices,
        (unsigned long long)st.lanes);
  struct stat sb;
  char summary[4096];
  perfetto_part_path(file, 0, summary, sizeof summary);
  CHECK(stat(summary, &sb) != 0, "no summary without a split");

  struct pftrace t = {0};
  CHECK(pftrace_read(file, &t, error, sizeof error) == 0, "%s", error);
  CHECK(pftrace_check(&t, error, sizeof error) == 0, "%s", error);
  CHECK(t.track_count == 6, "tracks=%zu", t.track_count);
  const struct pft_track *h = pftrace_track(&t, host), *p = pftrace_track(&t, proc),
                         *th = pftrace_track(&t, thread), *q = pftrace_track(&t, queue),
                         *d = pftrace_track(&t, dev), *m = pftrace_track(&t, mem);
  CHECK(h && h->kind == 'n' && strcmp(h->name, "nodeA") == 0 && h->parent == 0, "host");
  CHECK(p && p->kind == 'p' && p->pid == 42 && p->parent == host, "process");
  CHECK(th && th->kind == 't' && th->pid == 42 && th->tid == 43 && th->parent == proc, "thread");
  CHECK(d && d->parent == host && strcmp(d->name, "opencl device 0") == 0, "device");
  CHECK(q && q->parent == dev && strcmp(q->name, "queue 0x1234") == 0, "queue");
  CHECK(m && m->kind == 'c' && m->unit == 3 && m->parent == proc, "counter track");
  CHECK(t.slice_count == 6, "slices=%zu", t.slice_count);
  const struct pft_slice *s = find_slice(&t, "clFinish", 400);
  CHECK(s && s->end == 900 && s->track == thread, "clFinish");
  s = find_slice(&t, "clEnqueueWriteBuffer", 1000);
  CHECK(s && s->end == 1100 && s->flow_out == 7 && s->flow_in == 0, "call with flow");
  CHECK(s && strcmp(s->args, "bytes=4096;buffer=0xabc;status=CL_SUCCESS;") == 0, "args=%s",
        s ? s->args : "");
  s = find_slice(&t, "write 4096 B", 1150);
  CHECK(s && s->end == 1400 && s->flow_in == 7 && s->track == queue, "device slice");
  CHECK(t.counter_count == 2 && t.counters[0].ts == 1000 && t.counters[0].value == 4096 &&
            t.counters[1].value == 0 && t.counters[1].track == mem,
        "counters");
  CHECK(t.instant_count == 1 && strcmp(t.instants[0].name, "marker") == 0, "instant");
  pftrace_free(&t);

  FILE *f = fopen(path_of("basic.json"), "r");
  CHECK(f != NULL, "json written");
  if (f) {
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    int x = 0;
    for (char *at = text; (at = strstr(at, "\"ph\":\"X\"")); at++)
      x++;
    CHECK(x == 6, "X events=%d", x);
    CHECK(strstr(text, "\"name\":\"clFinish\",\"pid\":42,\"tid\":43,\"ts\":0.400,\"dur\":0.500"),
          "clFinish in JSON");
    CHECK(strstr(text, "\"ph\":\"s\"") && strstr(text, "\"ph\":\"f\""), "flow in JSON");
  }
}

/* Device commands that overlap without nesting, and a parent written after a child
 * that starts at the same time: every one kept, none cut, on lanes. */
static void test_overlap(void) {
  struct timeline *tl;
  char *file = path_of("overlap.pftrace");
  struct perfetto_options o = {.path = file};
  char why[512];
  CHECK(open_timeline(&o, NULL, &tl, why, sizeof why) == 0, "%s", why);
  timeline_track dev = timeline_device(tl, timeline_host(tl, "h"), "dev");
  timeline_track q = timeline_queue(tl, dev, 1, "q");
  slice(tl, q, 0, 100, "a");
  slice(tl, q, 50, 150, "b");   /* overlaps a */
  slice(tl, q, 120, 200, "c");  /* overlaps b, not a */
  slice(tl, q, 300, 350, "d0"); /* same start as e, ends first */
  slice(tl, q, 300, 400, "e");
  struct timeline_stats st;
  char error[512];
  CHECK(timeline_close(tl, &st, error, sizeof error) == 0, "%s", error);
  CHECK(st.lanes >= 1, "lanes=%llu", (unsigned long long)st.lanes);
  struct pftrace t = {0};
  CHECK(pftrace_read(file, &t, error, sizeof error) == 0, "%s", error);
  CHECK(t.slice_count == 5, "slices=%zu", t.slice_count);
  CHECK(pftrace_check(&t, error, sizeof error) == 0, "%s", error);
  const struct pft_slice *b = find_slice(&t, "b", 50);
  const struct pft_track *lane = b ? pftrace_track(&t, b->track) : NULL;
  CHECK(lane && b->track != q && lane->parent == dev && strcmp(lane->name, "q #2") == 0,
        "b on lane %s", lane ? lane->name : "?");
  pftrace_free(&t);
}

/* A small size limit: several parts, each decodes alone with every track; together
 * they hold every slice once; the summary holds the longest slices and the counter. */
static void test_split(void) {
  struct timeline *tl;
  char *file = path_of("split.pftrace");
  struct perfetto_options o = {.path = file, .split_bytes = 8192, .summary_slices = 10};
  char why[512];
  CHECK(open_timeline(&o, NULL, &tl, why, sizeof why) == 0, "%s", why);
  timeline_track host = timeline_host(tl, "h");
  timeline_track proc = timeline_process(tl, host, 1, "p");
  timeline_track th = timeline_thread(tl, proc, 1, 1, "p");
  timeline_track ctr = timeline_counter_track(tl, proc, "mem", TIMELINE_UNIT_BYTES);
  enum { N = 2000 };
  static const char *names[] = {"clEnqueueNDRangeKernel", "clFinish", "clSetKernelArg"};
  for (uint64_t i = 0; i < N; i++) {
    slice(tl, th, i * 1000, i * 1000 + 10 + i % 500, names[i % 3]);
    CHECK(timeline_counter(tl, ctr, i * 1000 + 5, (double)i) == 0, "%s", timeline_error(tl));
  }
  struct timeline_stats st;
  char error[512];
  CHECK(timeline_close(tl, &st, error, sizeof error) == 0, "%s", error);
  CHECK(st.parts > 3 && st.summary, "parts=%u", st.parts);
  size_t total = 0, counters = 0;
  for (unsigned p = 1; p <= st.parts; p++) {
    char name[4096];
    struct stat sb;
    perfetto_part_path(file, p, name, sizeof name);
    CHECK(stat(name, &sb) == 0 && (uint64_t)sb.st_size <= o.split_bytes, "%s size", name);
    struct pftrace t = {0};
    CHECK(pftrace_read(name, &t, error, sizeof error) == 0, "%s", error);
    CHECK(pftrace_check(&t, error, sizeof error) == 0, "%s: %s", name, error);
    CHECK(t.track_count == 4, "%s: tracks=%zu", name, t.track_count);
    CHECK(t.slice_count > 0, "%s: slices", name);
    total += t.slice_count;
    counters += t.counter_count;
    pftrace_free(&t);
  }
  CHECK(total == N && counters == N, "slices=%zu counters=%zu", total, counters);
  char summary[4096];
  perfetto_part_path(file, 0, summary, sizeof summary);
  struct pftrace t = {0};
  CHECK(pftrace_read(summary, &t, error, sizeof error) == 0, "%s", error);
  CHECK(pftrace_check(&t, error, sizeof error) == 0, "%s", error);
  CHECK(t.slice_count == 10 && t.track_count == 4, "summary slices=%zu", t.slice_count);
  for (size_t i = 0; i < t.slice_count; i++)
    CHECK(t.slices[i].end - t.slices[i].start >= 10 + 490, "summary slice %zu is not among "
          "the longest", i);
  /* One value per ms of the 2 ms-long run: 2000 values at 1 us apart thin to a few. */
  CHECK(t.counter_count >= 2 && t.counter_count <= 3, "summary counters=%zu", t.counter_count);
  pftrace_free(&t);
}

static void test_bad_path(void) {
  struct timeline *tl;
  struct perfetto_options o = {.path = "/nonexistent-dir/x.pftrace"};
  char why[512];
  CHECK(open_timeline(&o, NULL, &tl, why, sizeof why) != 0, "open must fail");
  CHECK(strstr(why, "Cannot create the timeline: file=/nonexistent-dir/x.pftrace"),
        "message: %s", why);
  CHECK(open_timeline(&(struct perfetto_options){.path = path_of("fine.pftrace")},
                      "/nonexistent-dir/x.json", &tl, why, sizeof why) != 0, "open must fail");
  CHECK(strstr(why, "Cannot create the JSON timeline: file=/nonexistent-dir/x.json"),
        "message: %s", why);
}

/* Names the writer may keep by their address (stable_names: the reader's) take the
 * writer's fast way once interned: the same bytes as the general way, for values of
 * every length a varint takes (1 to 10 bytes), negative ones, doubles, pointers, strings,
 * times of 9 bytes, flows, the same value twice in a row and a different one, and a
 * machine id (a job's timeline: tracks of another host). */
static const char fast_name[] = "cuLaunchKernel", fast_u[] = "u", fast_i[] = "i",
                  fast_p[] = "p", fast_d[] = "d", fast_s[] = "s";

static void fast_slices(const char *file, bool stable, uint64_t uuid_base) {
  struct timeline *tl;
  struct perfetto_options o = {.path = file, .uuid_base = uuid_base, .sequence_id = 3};
  char why[512];
  CHECK(open_timeline(&o, NULL, &tl, why, sizeof why) == 0, "%s", why);
  timeline_track host = timeline_host(tl, "nodeB");
  timeline_track thread = timeline_thread(tl, timeline_process(tl, host, 7, "p"), 7, 8, "t");
  static const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, (1u << 21) - 1, 1u << 21,
                                    (1ull << 28), (1ull << 35) + 5, (1ull << 42) + 77,
                                    (1ull << 49) - 1, (1ull << 56) - 1, 1ull << 56,
                                    (1ull << 63) - 1, 1ull << 63, UINT64_MAX};
  size_t n = sizeof values / sizeof *values;
  uint64_t t0 = 1795918843766593424ull; /* a wall-clock time in ns: 9 bytes */
  char text[64];
  for (size_t r = 0; r < 3; r++)
    for (size_t i = 0; i < n; i++) {
      uint64_t v = values[(i + r) % n];
      snprintf(text, sizeof text, "value %zu", i);
      struct trace_arg args[] = {
          {.name = fast_u, .kind = TRACE_ARG_UINT, .v.u = v},
          {.name = fast_i, .kind = TRACE_ARG_INT, .v.i = -(int64_t)(v >> 1) - 1},
          {.name = fast_p, .kind = TRACE_ARG_POINTER, .v.u = r ? v : 0x7ff6fa057068},
          {.name = fast_d, .kind = TRACE_ARG_DOUBLE, .v.d = (double)v / 3},
          {.name = fast_s, .kind = TRACE_ARG_STRING, .v.s = text},
      };
      struct timeline_slice sl = {.track = thread, .start = t0 + 1000 * (r * n + i),
                                  .end = t0 + 1000 * (r * n + i) + v % 997,
                                  .name = fast_name, .args = args, .arg_count = 5,
                                  .flow_out = i % 3 == 0 ? v | 1 : 0,
                                  .flow_in = i % 4 == 1 ? v | 2 : 0, .stable_names = stable};
      CHECK(timeline_slice(tl, &sl) == 0, "%s", timeline_error(tl));
    }
  struct timeline_stats st;
  char error[512];
  CHECK(timeline_close(tl, &st, error, sizeof error) == 0, "%s", error);
}

static bool same_file(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  bool same = fa && fb;
  for (int ca = 0, cb = 0; same && ca != EOF;) {
    ca = fgetc(fa);
    cb = fgetc(fb);
    same = ca == cb;
  }
  if (fa)
    fclose(fa);
  if (fb)
    fclose(fb);
  return same;
}

static void test_fast_path(void) {
  for (uint64_t base = 0; base <= 1000; base += 1000) { /* a job's rank: another machine */
    char *stable = path_of("fast_stable.pftrace"), *general = path_of("fast_general.pftrace");
    fast_slices(stable, true, base);
    fast_slices(general, false, base);
    CHECK(same_file(stable, general), "the fast way wrote other bytes (uuid base %llu)",
          (unsigned long long)base);
    struct pftrace t = {0};
    char error[512];
    CHECK(pftrace_read(stable, &t, error, sizeof error) == 0, "%s", error);
    CHECK(pftrace_check(&t, error, sizeof error) == 0, "%s", error);
    CHECK(t.slice_count == 3 * 17, "slices=%zu", t.slice_count);
    const struct pft_slice *s = find_slice(&t, fast_name, 1795918843766593424ull + 1000 * 16);
    CHECK(s && strncmp(s->args, "u=18446744073709551615;i=-9223372036854775808;", 46) == 0,
          "the largest values: %s", s ? s->args : "none");
    pftrace_free(&t);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: timeline_unit_test DIR\n");
    return 2;
  }
  dir = argv[1];
  test_basic();
  test_overlap();
  test_split();
  test_bad_path();
  test_fast_path();
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("timeline_unit: all checks passed\n");
  return failures ? 1 : 0;
}
