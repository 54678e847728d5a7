/* hta_unit_test: the GPUs' time per rank (cli/reports/hta/, HTA's definitions in
 * docs/analysis-output.md) as a consumer of the read, fed commands and their calls the
 * way the reader hands them out, against the answers worked out here the slow way: each
 * nanosecond of a GPU's span classed by the commands running then (compute, else
 * communication, else copies, else idle), an idle nanosecond host wait when the next
 * command to start was submitted by a call that started after the device's last command
 * before it ended; launch delays listed and sorted, a kernel queued behind earlier work
 * delayed only from when its GPU became free.
 * The commands: two processes, one with two GPUs; on the first GPU compute and NCCL
 * kernels that overlap, a copy, idle gaps of both kinds, a launch delay over the outlier
 * cutoff and a command whose call is unknown (as CUPTI's). Fed once on one thread, and
 * again split over two workers (fork and join): the same report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hta.h"
#include "tracer_backend_desc.h"
#include "tracer_device.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

static const char *host = "node1";
static struct tracer_function_desc functions[] = {
    {.name = "cuLaunchKernel", .meaning = TRACER_MEANING_KERNEL_LAUNCH},
    {.name = "cuMemcpyAsync", .meaning = TRACER_MEANING_TRANSFER},
    {.name = "cuCtxSynchronize", .meaning = TRACER_MEANING_SYNC}};
static struct tracer_backend_desc backend = {
    .name = "cuda", .functions = functions, .function_count = 3};

struct command {
  int64_t pid;
  int device;
  const char *device_name, *name;
  int kind;
  uint64_t start, end;
  int64_t call_tid; /* 0: unknown (as CUPTI's) */
  uint64_t call_start, call_end;
};

#define KERNEL TRACER_COMMAND_KERNEL
#define COPY TRACER_COMMAND_TRANSFER
static const struct command commands[] = {
    /* pid 100, GPU 0 */
    {100, 0, "Null GPU 0", "gemm", KERNEL, 1000, 5000, 1, 500, 800},
    {100, 0, "Null GPU 0", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", KERNEL, 4000, 9000, 1, 900,
     950},
    {100, 0, "Null GPU 0", "cuMemcpyAsync(D2H pinned)", COPY, 8000, 10000, 1, 7000, 7100},
    {100, 0, "Null GPU 0", "relu", KERNEL, 20000, 22000, 1, 15000, 15500},   /* after a host wait */
    {100, 0, "Null GPU 0", "relu", KERNEL, 30000, 31000, 2, 21000, 21500},   /* submitted early */
    {100, 0, "Null GPU 0", "late", KERNEL, 200000, 201000, 1, 40000, 40100}, /* an outlier */
    {100, 0, "Null GPU 0", "cupti", KERNEL, 201000, 201500, 0, 0, 0},
    /* pid 100, GPU 1 */
    {100, 1, "Null GPU 1", "gemm", KERNEL, 3000, 6000, 3, 2000, 2500},
    {100, 1, "Null GPU 1", "ncclDevKernel_AllGather", KERNEL, 7000, 8000, 3, 2600, 2700},
    /* pid 200: a trace from before devices were named */
    {200, -1, "", "gemm", KERNEL, 1000, 2000, 7, 100, 900},
};
enum { COMMANDS = sizeof commands / sizeof *commands };

static void feed(struct trace_consumer *c, void *context, size_t from, size_t to) {
  if (from == 0) { /* pid 100 is rank 3 of a launcher's job; pid 200 says no rank */
    struct trace_rank rank = {.pid = 100, .launcher = "torchrun", .rank = 3, .size = 4};
    rank.from.host_name = host;
    CHECK(c->rank(context, &rank) == 0, "rank");
  }
  for (size_t i = from; i < to; i++) {
    const struct command *k = &commands[i];
    if (k->call_tid) {
      struct trace_call call = {.desc = &backend,
                                .function = k->kind == KERNEL ? 0 : 1,
                                .pid = k->pid,
                                .tid = k->call_tid,
                                .start = k->call_start,
                                .end = k->call_end};
      call.from.host_name = host;
      CHECK(c->call(context, &call) == 0, "call");
      /* A call that submits nothing is not a launch. */
      struct trace_call sync = call;
      sync.function = 2, sync.start = k->call_start + 1;
      CHECK(c->call(context, &sync) == 0, "call");
    }
    struct trace_device d = {.desc = &backend,
                             .pid = k->pid,
                             .tid = k->call_tid,
                             .has_ids = true,
                             .kind = k->kind,
                             .name = k->name,
                             .name_len = strlen(k->name),
                             .device = k->device,
                             .device_name = k->device_name,
                             .device_name_len = strlen(k->device_name),
                             .start = k->start,
                             .end = k->end,
                             .call_tid = k->call_tid,
                             /* as converted apart from the call's own start: 1 ns off */
                             .call_start = k->call_start ? k->call_start + (i % 2) : 0};
    d.from.host_name = host;
    CHECK(c->device(context, &d) == 0, "device");
  }
}

/* The answer the slow way, for the commands of one pid and device. */
struct expected {
  uint64_t span, compute, communication, copies, idle, host_wait, overlap, comm_all;
  uint64_t launched, outliers;
  int64_t median, max, mean;
};

static int by_value(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

static struct expected slow_way(int64_t pid, int device) {
  struct expected e = {0};
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t i = 0; i < COMMANDS; i++)
    if (commands[i].pid == pid && commands[i].device == device) {
      first = commands[i].start < first ? commands[i].start : first;
      last = commands[i].end > last ? commands[i].end : last;
    }
  e.span = last - first;
  for (uint64_t t = first; t < last; t++) {
    bool compute = false, comm = false, copy = false;
    uint64_t dry = 0, next_start = UINT64_MAX;
    const struct command *next = NULL;
    for (size_t i = 0; i < COMMANDS; i++) {
      const struct command *k = &commands[i];
      if (k->pid != pid || k->device != device)
        continue;
      bool on = k->start <= t && t < k->end;
      bool nccl = strncmp(k->name, "nccl", 4) == 0;
      compute |= on && k->kind == KERNEL && !nccl;
      comm |= on && k->kind == KERNEL && nccl;
      copy |= on && k->kind == COPY;
      if (k->end <= t && k->end > dry)
        dry = k->end;
      if (k->start > t && k->start < next_start)
        next_start = k->start, next = k;
    }
    e.compute += compute;
    e.communication += comm && !compute;
    e.copies += copy && !compute && !comm;
    e.comm_all += comm;
    e.overlap += comm && compute;
    bool idle = !compute && !comm && !copy;
    e.idle += idle;
    e.host_wait += idle && next && next->call_tid && next->call_start > dry;
  }
  int64_t delays[COMMANDS], sum = 0;
  for (size_t i = 0; i < COMMANDS; i++) {
    const struct command *k = &commands[i];
    if (k->pid != pid || k->device != device || k->kind != KERNEL || !k->call_tid)
      continue;
    /* Queued behind earlier work (the GPU busy when the call returned): the delay counts
     * from when the GPU became free, at 0 when it starts on another queue before then. */
    uint64_t free_at = 0;
    for (size_t j = 0; j < COMMANDS; j++)
      if (commands[j].pid == pid && commands[j].device == device &&
          commands[j].start < k->start && commands[j].end > free_at)
        free_at = commands[j].end;
    int64_t delay = free_at > k->call_end
                        ? (k->start > free_at ? (int64_t)(k->start - free_at) : 0)
                        : (int64_t)k->start - (int64_t)k->call_end;
    delays[e.launched++] = delay;
    sum += delay;
    e.outliers += delay > (int64_t)HTA_LAUNCH_OUTLIER_NS;
  }
  qsort(delays, e.launched, sizeof *delays, by_value);
  e.median = e.launched ? delays[e.launched / 2] : 0;
  e.max = e.launched ? delays[e.launched - 1] : 0;
  e.mean = e.launched ? sum / (int64_t)e.launched : 0;
  return e;
}

static void check_gpu(const struct hta_report *r, int64_t pid, const char *label, int device) {
  const struct hta_gpu *g = NULL;
  for (size_t i = 0; i < r->gpu_count; i++)
    if (r->gpus[i].pid == pid && strcmp(r->gpus[i].label, label) == 0)
      g = &r->gpus[i];
  CHECK(g, "no row for pid %lld %s", (long long)pid, label);
  if (!g)
    return;
  struct expected e = slow_way(pid, device);
  CHECK(g->span == e.span, "%s span %llu, want %llu", label, (unsigned long long)g->span,
        (unsigned long long)e.span);
  CHECK(g->compute == e.compute && g->communication == e.communication && g->copies == e.copies &&
            g->idle == e.idle,
        "%s compute/comm/copies/idle %llu %llu %llu %llu, want %llu %llu %llu %llu", label,
        (unsigned long long)g->compute, (unsigned long long)g->communication,
        (unsigned long long)g->copies, (unsigned long long)g->idle, (unsigned long long)e.compute,
        (unsigned long long)e.communication, (unsigned long long)e.copies,
        (unsigned long long)e.idle);
  CHECK(g->compute + g->communication + g->copies + g->idle == g->span, "%s: no sum", label);
  CHECK(g->comm_overlap == e.overlap && g->communication + g->comm_overlap == e.comm_all,
        "%s overlap %llu, want %llu of %llu", label, (unsigned long long)g->comm_overlap,
        (unsigned long long)e.overlap, (unsigned long long)e.comm_all);
  CHECK(g->host_wait == e.host_wait, "%s host wait %llu, want %llu", label,
        (unsigned long long)g->host_wait, (unsigned long long)e.host_wait);
  CHECK(g->launched == e.launched && g->delay_outliers == e.outliers &&
            g->delay_median == e.median && g->delay_max == e.max && g->delay_mean == e.mean,
        "%s launch delay n=%llu median %lld mean %lld max %lld outliers %llu, want n=%llu %lld "
        "%lld %lld %llu",
        label, (unsigned long long)g->launched, (long long)g->delay_median,
        (long long)g->delay_mean, (long long)g->delay_max, (unsigned long long)g->delay_outliers,
        (unsigned long long)e.launched, (long long)e.median, (long long)e.mean, (long long)e.max,
        (unsigned long long)e.outliers);
}

static void check_report(const struct hta_report *r) {
  CHECK(r->gpu_count == 3, "%zu GPUs, want 3", r->gpu_count);
  check_gpu(r, 100, "GPU 0: Null GPU 0", 0);
  check_gpu(r, 100, "GPU 1: Null GPU 1", 1);
  check_gpu(r, 200, "cuda device", -1);
  /* The scenario has what it is for: both idle kinds, an overlap, an outlier. */
  struct expected e = slow_way(100, 0);
  CHECK(e.host_wait > 0 && e.host_wait < e.idle && e.overlap > 0 && e.outliers == 1,
        "the scenario lost a case");
}

int main(void) {
  struct diag d;
  diag_init(&d);
  /* One thread. */
  struct hta *h;
  struct trace_consumer c;
  struct hta_report one, two;
  CHECK(hta_open(&h, &c, &d) == 0, "open");
  CHECK(!(c.needs & TRACE_NEEDS_ORDER) && (c.needs & TRACE_NEEDS_TIMES), "needs");
  feed(&c, c.context, 0, COMMANDS);
  CHECK(hta_close(h, &one, &d) == 0, "close");
  check_report(&one);
  /* Two workers, each with part of the commands, joined. */
  CHECK(hta_open(&h, &c, &d) == 0, "open");
  void *w1 = c.fork(c.context), *w2 = c.fork(c.context);
  feed(&c, w1, COMMANDS / 2, COMMANDS);
  feed(&c, w2, 0, COMMANDS / 2);
  CHECK(c.join(c.context, w1) == 0 && c.join(c.context, w2) == 0, "join");
  CHECK(hta_close(h, &two, &d) == 0, "close");
  check_report(&two);
  CHECK(two.gpu_count == one.gpu_count &&
            memcmp(one.gpus, two.gpus, one.gpu_count * sizeof *one.gpus) == 0,
        "the workers' report differs");
  /* The text fits a terminal: no line over 100 columns. */
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  hta_print_text(&one, out);
  fclose(out);
  CHECK(strstr(text, "rank 3 GPU 0") && strstr(text, "rank 3 GPU 1") && strstr(text, "pid 200 "),
        "rows by rank where the trace says it, else by pid:\n%s", text);
  for (size_t i = 0; i < one.gpu_count; i++)
    CHECK(one.gpus[i].rank == (one.gpus[i].pid == 100 ? 3 : -1), "pid %lld: rank %ld",
          (long long)one.gpus[i].pid, one.gpus[i].rank);
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
    CHECK(strlen(line) <= 100, "a line of %zu columns: %s", strlen(line), line);
  free(text);
  CHECK(hta_is_communication("ncclKernel_AllReduce_RING_LL_Sum_float") &&
            hta_is_communication("void rccl::all_reduce") && !hta_is_communication("gemm_kernel"),
        "communication kernels by name");
  hta_free(&one);
  hta_free(&two);
  diag_clear(&d);
  if (failures)
    return 1;
  printf("hta_unit: ok\n");
  return 0;
}
