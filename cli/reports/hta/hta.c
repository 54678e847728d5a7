/* hta: see hta.h. */
#include "hta.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "spans.h"
#include "tracer_device.h"
#include "units.h"

enum command_class { CLASS_COMPUTE, CLASS_COMMUNICATION, CLASS_COPY };

/* A command kept from the first pass. */
struct command {
  uint64_t start, end;
  uint64_t call_start, call_end; /* call_end: 0 until the second pass finds it */
  int64_t call_tid;              /* 0: the submitting call is unknown */
  uint32_t gpu;
  uint8_t class;
};

struct gpu_key {
  const char *host; /* the trace's string: lives while it is open */
  int64_t pid;
  const char *backend; /* static */
  int device;
  char name[TRACER_DEVICE_NAME];
};

/* A call that submits device work (a launch, a copy: its function's meaning). */
struct launch {
  int64_t pid, tid;
  uint64_t start, end;
};

struct hta {
  struct gpu_key *gpus;
  size_t gpu_count;
  struct command *commands;
  size_t command_count, command_cap;
  struct launch *launches;
  size_t launch_count, launch_cap;
  /* The ranks of a job's processes (lttng_ust_tracer:rank), to name the rows by rank. */
  struct process_rank {
    const char *host; /* the trace's string: lives while it is open */
    int64_t pid;
    long rank;
  } *ranks;
  size_t rank_count;
  bool failed; /* out of memory */
};

bool hta_is_communication(const char *kernel) {
  for (const char *p = kernel; *p; p++)
    if ((tolower((unsigned char)p[0]) == 'n' || tolower((unsigned char)p[0]) == 'r') &&
        strncasecmp(p + 1, "ccl", 3) == 0)
      return true;
  return false;
}

static long gpu_of(struct hta *a, const struct gpu_key *key) {
  for (size_t i = 0; i < a->gpu_count; i++) {
    const struct gpu_key *g = &a->gpus[i];
    if (g->pid == key->pid && g->device == key->device && strcmp(g->backend, key->backend) == 0 &&
        strcmp(g->host, key->host) == 0)
      return (long)i;
  }
  struct gpu_key *grown = realloc(a->gpus, (a->gpu_count + 1) * sizeof *grown);
  if (!grown)
    return -1;
  a->gpus = grown;
  a->gpus[a->gpu_count] = *key;
  return (long)a->gpu_count++;
}

/* Appends one item of size bytes to a growable array. */
static bool push(void **items, size_t *count, size_t *cap, size_t size, const void *item) {
  if (*count == *cap) {
    size_t grown_cap = *cap ? 2 * *cap : 1024;
    void *grown = realloc(*items, grown_cap * size);
    if (!grown)
      return false;
    *items = grown, *cap = grown_cap;
  }
  memcpy((char *)*items + *count * size, item, size);
  (*count)++;
  return true;
}

static bool command_push(struct hta *a, const struct command *c) {
  return push((void **)&a->commands, &a->command_count, &a->command_cap, sizeof *c, c);
}

static int on_device(void *context, const struct trace_device *dev) {
  struct hta *a = context;
  if (!dev->has_ids || dev->kind == TRACER_COMMAND_OTHER)
    return 0;
  struct gpu_key key = {dev->from.host_name, dev->pid, dev->desc ? dev->desc->name : "unknown",
                        dev->device, ""};
  snprintf(key.name, sizeof key.name, "%s", dev->device_name ? dev->device_name : "");
  /* A backend timed on the host (HIP) gives its calls' own times: no launch to measure. */
  bool host_timed = dev->desc && dev->desc->device_times_host;
  long gpu = gpu_of(a, &key);
  uint8_t class = dev->kind == TRACER_COMMAND_TRANSFER ? CLASS_COPY
                  : hta_is_communication(dev->name)    ? CLASS_COMMUNICATION
                                                       : CLASS_COMPUTE;
  struct command c = {.start = dev->start,
                      .end = dev->end > dev->start ? dev->end : dev->start,
                      .call_start = host_timed ? 0 : dev->call_start,
                      .call_tid = host_timed ? 0 : dev->call_tid,
                      .gpu = (uint32_t)gpu,
                      .class = class};
  if (gpu < 0 || !command_push(a, &c))
    a->failed = true;
  return 0;
}

static bool launch_push(struct hta *a, const struct launch *l) {
  return push((void **)&a->launches, &a->launch_count, &a->launch_cap, sizeof *l, l);
}

/* The calls that submit device work, for their ends (the launch delay). */
static int on_call(void *context, const struct trace_call *call) {
  struct hta *a = context;
  enum tracer_meaning m = call->desc->functions[call->function].meaning;
  if (m != TRACER_MEANING_KERNEL_LAUNCH && m != TRACER_MEANING_TRANSFER &&
      m != TRACER_MEANING_COMMAND)
    return 0;
  struct launch l = {call->pid, call->tid, call->start, call->end};
  if (!launch_push(a, &l))
    a->failed = true;
  return 0;
}

static int on_rank(void *context, const struct trace_rank *r) {
  struct hta *a = context;
  struct process_rank *grown = realloc(a->ranks, (a->rank_count + 1) * sizeof *grown);
  if (!grown) {
    a->failed = true;
    return 0;
  }
  a->ranks = grown;
  a->ranks[a->rank_count++] = (struct process_rank){r->from.host_name, r->pid, r->rank};
  return 0;
}

static long rank_of(const struct hta *a, const char *host, int64_t pid) {
  for (size_t i = 0; i < a->rank_count; i++)
    if (a->ranks[i].pid == pid && strcmp(a->ranks[i].host, host) == 0)
      return a->ranks[i].rank;
  return -1;
}

/* ---- workers ---- */

static void *hta_fork(void *context) {
  (void)context;
  return calloc(1, sizeof(struct hta));
}

static int hta_join(void *context, void *worker) {
  struct hta *a = context, *w = worker;
  a->failed |= w->failed;
  for (size_t i = 0; i < w->command_count && !a->failed; i++) {
    struct command c = w->commands[i];
    long gpu = gpu_of(a, &w->gpus[c.gpu]);
    c.gpu = (uint32_t)gpu;
    if (gpu < 0 || !command_push(a, &c))
      a->failed = true;
  }
  for (size_t i = 0; i < w->launch_count && !a->failed; i++)
    if (!launch_push(a, &w->launches[i]))
      a->failed = true;
  for (size_t i = 0; i < w->rank_count && !a->failed; i++)
    on_rank(a, &(struct trace_rank){.from = {.host_name = w->ranks[i].host},
                                    .pid = w->ranks[i].pid,
                                    .rank = w->ranks[i].rank});
  free(w->ranks);
  free(w->gpus);
  free(w->commands);
  free(w->launches);
  free(w);
  return 0;
}

int hta_open(struct hta **out, struct trace_consumer *consumer, struct diag *d) {
  struct hta *a = calloc(1, sizeof *a);
  if (!a)
    return diag_error(d, "Cannot analyse the GPUs' time: out of memory");
  *consumer = (struct trace_consumer){.name = "hta",
                                      .needs = TRACE_NEEDS_TIMES,
                                      .context = a,
                                      .fork = hta_fork,
                                      .join = hta_join,
                                      .call = on_call,
                                      .device = on_device,
                                      .rank = on_rank};
  *out = a;
  return 0;
}

/* ---- the analyses, once both passes are read ---- */

static int by_launch(const void *x, const void *y) {
  const struct launch *a = x, *b = y;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  if (a->tid != b->tid)
    return a->tid < b->tid ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

/* Each command's call's end, from the launches sorted by_launch: the call of its process,
 * thread and start, within the 1 ns that converting the same clock value twice may
 * differ by. */
static void find_call_ends(struct hta *a) {
  for (size_t i = 0; i < a->command_count; i++) {
    struct command *c = &a->commands[i];
    int64_t pid = a->gpus[c->gpu].pid;
    uint64_t from = c->call_start ? c->call_start - 1 : 0;
    size_t lo = 0, hi = a->launch_count;
    while (c->call_tid && lo < hi) { /* the first launch at (pid, tid, >= from) */
      size_t mid = lo + (hi - lo) / 2;
      const struct launch *l = &a->launches[mid];
      if (l->pid < pid ||
          (l->pid == pid && (l->tid < c->call_tid || (l->tid == c->call_tid && l->start < from))))
        lo = mid + 1;
      else
        hi = mid;
    }
    const struct launch *l = c->call_tid && lo < a->launch_count ? &a->launches[lo] : NULL;
    if (l && l->pid == pid && l->tid == c->call_tid && l->start <= c->call_start + 1)
      c->call_end = l->end;
  }
}

static int by_gpu_then_start(const void *x, const void *y) {
  const struct command *a = x, *b = y;
  if (a->gpu != b->gpu)
    return a->gpu < b->gpu ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

static int by_value(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

/* One GPU's figures from its commands, in start order. spans: room for 5 * count. */
static void analyse_gpu(const struct command *c, size_t count, struct span *room, int64_t *delays,
                        struct hta_gpu *out) {
  struct spans all = {room, 0},
               by_class[3] = {{room + count, 0}, {room + 2 * count, 0}, {room + 3 * count, 0}};
  struct spans busy_other = {room + 4 * count, 0}; /* compute or communication */
  for (size_t i = 0; i < count; i++) {
    spans_add(&all, c[i].start, c[i].end);
    spans_add(&by_class[c[i].class], c[i].start, c[i].end);
    if (c[i].class != CLASS_COPY)
      spans_add(&busy_other, c[i].start, c[i].end);
    out->kernels += c[i].class != CLASS_COPY;
  }
  out->commands = count;
  out->span = all.at[all.count - 1].end - all.at[0].start;
  uint64_t compute = spans_length(&by_class[CLASS_COMPUTE]);
  uint64_t comm = spans_length(&by_class[CLASS_COMMUNICATION]);
  uint64_t copies = spans_length(&by_class[CLASS_COPY]);
  out->comm_overlap = spans_common(&by_class[CLASS_COMMUNICATION], &by_class[CLASS_COMPUTE]);
  out->compute = compute;
  out->communication = comm - out->comm_overlap;
  out->copies = copies - spans_common(&by_class[CLASS_COPY], &busy_other);
  out->idle = out->span - spans_length(&all);
  /* Each idle gap: host wait when the command that ends it was submitted after the
   * device had run dry. Commands come in start order, so the gap's closing command is
   * the first to start at or after its end. */
  size_t next = 0;
  for (size_t g = 1; g < all.count; g++) {
    uint64_t dry = all.at[g - 1].end, resume = all.at[g].start;
    while (next < count && c[next].start < resume)
      next++;
    if (next < count && c[next].call_tid && c[next].call_start > dry)
      out->host_wait += resume - dry;
  }
  /* Launch delay of the kernels whose call's end the second pass found: the time the
   * kernel waited with the GPU idle. A kernel submitted while the GPU was busy with
   * earlier work is queued, not delayed: its delay counts from when the GPU became
   * free (the latest end of the commands that started before it), not from its call. */
  size_t n = 0;
  int64_t sum = 0;
  uint64_t busy_until = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t free_at = busy_until;
    if (c[i].end > busy_until)
      busy_until = c[i].end;
    if (c[i].class == CLASS_COPY || !c[i].call_end)
      continue;
    int64_t delay = (int64_t)(c[i].start - c[i].call_end);
    if (free_at > c[i].call_end) /* queued behind earlier work */
      delay = c[i].start > free_at ? (int64_t)(c[i].start - free_at) : 0;
    delays[n++] = delay;
    sum += delay;
    out->delay_outliers += delay > (int64_t)HTA_LAUNCH_OUTLIER_NS;
  }
  out->launched = n;
  if (n) {
    qsort(delays, n, sizeof *delays, by_value);
    out->delay_median = delays[n / 2];
    out->delay_mean = sum / (int64_t)n;
    out->delay_max = delays[n - 1];
  }
}

static int by_host_pid_device(const void *x, const void *y) {
  const struct hta_gpu *a = x, *b = y;
  int host = strcmp(a->host, b->host);
  if (host)
    return host;
  if (a->rank != b->rank && a->rank >= 0 && b->rank >= 0)
    return a->rank < b->rank ? -1 : 1;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  return strcmp(a->label, b->label);
}

void hta_sort(struct hta_report *report) {
  if (report->gpu_count) /* qsort takes no NULL, even for nothing */
    qsort(report->gpus, report->gpu_count, sizeof *report->gpus, by_host_pid_device);
  report->host_count = 0;
  for (size_t i = 0; i < report->gpu_count; i++)
    report->host_count += i == 0 || strcmp(report->gpus[i].host, report->gpus[i - 1].host);
}

int hta_append(struct hta_report *into, const struct hta_gpu *gpus, size_t count, long rank) {
  if (!count)
    return 0;
  struct hta_gpu *grown = realloc(into->gpus, (into->gpu_count + count) * sizeof *grown);
  if (!grown)
    return -1;
  into->gpus = grown;
  for (size_t i = 0; i < count; i++) {
    grown[into->gpu_count] = gpus[i];
    if (rank >= 0)
      grown[into->gpu_count].rank = rank;
    into->gpu_count++;
  }
  return 0;
}

int hta_close(struct hta *a, struct hta_report *report, struct diag *d) {
  memset(report, 0, sizeof *report);
  bool failed = a->failed;
  struct span *room = malloc((5 * a->command_count + 1) * sizeof *room);
  int64_t *delays = malloc((a->command_count + 1) * sizeof *delays);
  report->gpus = calloc(a->gpu_count + 1, sizeof *report->gpus);
  if (!room || !delays || !report->gpus) {
    failed = true;
  } else {
    if (a->launch_count) /* qsort takes no NULL, even for nothing */
      qsort(a->launches, a->launch_count, sizeof *a->launches, by_launch);
    find_call_ends(a);
    if (a->command_count)
      qsort(a->commands, a->command_count, sizeof *a->commands, by_gpu_then_start);
    for (size_t i = 0; i < a->command_count;) {
      size_t end = i;
      while (end < a->command_count && a->commands[end].gpu == a->commands[i].gpu)
        end++;
      const struct gpu_key *g = &a->gpus[a->commands[i].gpu];
      struct hta_gpu *out = &report->gpus[report->gpu_count++];
      snprintf(out->host, sizeof out->host, "%s", g->host);
      out->pid = g->pid;
      out->rank = rank_of(a, g->host, g->pid);
      device_label(g->backend, g->device, g->name, out->label, sizeof out->label);
      device_label(g->backend, g->device, NULL, out->short_label, sizeof out->short_label);
      analyse_gpu(&a->commands[i], end - i, room, delays, out);
      i = end;
    }
    hta_sort(report);
  }
  free(room);
  free(delays);
  free(a->gpus);
  free(a->commands);
  free(a->launches);
  free(a->ranks);
  free(a);
  return failed ? diag_error(d, "Cannot analyse the GPUs' time: out of memory") : 0;
}

/* ---- the text ---- */

static void share(uint64_t part, uint64_t whole, char *out, size_t size) {
  snprintf(out, size, "%.1f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

static void signed_time(int64_t ns, char *out, size_t size) {
  char magnitude[24];
  units_time((uint64_t)(ns < 0 ? -ns : ns), magnitude, sizeof magnitude);
  snprintf(out, size, "%s%s", ns < 0 ? "-" : "", magnitude);
}

/* A row: the process's rank where the trace says it (a launcher's ranks), else its pid. */
static void row_name(const struct hta_report *r, const struct hta_gpu *g, char *out, size_t size) {
  char process[32];
  if (g->rank >= 0)
    snprintf(process, sizeof process, "rank %ld", g->rank);
  else
    snprintf(process, sizeof process, "pid %" PRId64, g->pid);
  if (r->host_count > 1)
    snprintf(out, size, "%.10s %.23s %.20s", g->host, process, g->short_label);
  else
    snprintf(out, size, "%.23s %.20s", process, g->short_label);
}

/* Fits 100 columns: the GPUs by ordinal (their names are in the device use above). */
void hta_print_text(const struct hta_report *r, FILE *out) {
  if (!r->gpu_count)
    return;
  fprintf(out, "\nDevice time per rank (HTA's definitions) | %zu devices |\n\n", r->gpu_count);
  fprintf(out, "%-24s | %9s | %7s | %6s | %6s | %6s | %9s | %7s |\n", "Rank and device", "Span",
          "Compute", "Comm", "Copies", "Idle", "Host wait", "Overlap");
  for (size_t i = 0; i < r->gpu_count; i++) {
    const struct hta_gpu *g = &r->gpus[i];
    char name[64], span[32], compute[16], comm[16], copies[16], idle[16], wait[16], overlap[16];
    row_name(r, g, name, sizeof name);
    units_time(g->span, span, sizeof span);
    share(g->compute, g->span, compute, sizeof compute);
    share(g->communication, g->span, comm, sizeof comm);
    share(g->copies, g->span, copies, sizeof copies);
    share(g->idle, g->span, idle, sizeof idle);
    share(g->host_wait, g->span, wait, sizeof wait);
    if (g->communication + g->comm_overlap)
      share(g->comm_overlap, g->communication + g->comm_overlap, overlap, sizeof overlap);
    else
      snprintf(overlap, sizeof overlap, "-");
    fprintf(out, "%-24s | %9s | %7s | %6s | %6s | %6s | %9s | %7s |\n", name, span, compute, comm,
            copies, idle, wait, overlap);
  }
  fprintf(out, "\nKernel launch delay (device start - call end) | over %llu us: outliers |\n\n",
          (unsigned long long)(HTA_LAUNCH_OUTLIER_NS / 1000));
  fprintf(out, "%-24s | %8s | %9s | %9s | %9s | %8s |\n", "Rank and device", "Kernels", "Median",
          "Mean", "Max", "Outliers");
  for (size_t i = 0; i < r->gpu_count; i++) {
    const struct hta_gpu *g = &r->gpus[i];
    char name[64], median[32], mean[32], max[32];
    row_name(r, g, name, sizeof name);
    if (!g->launched) {
      fprintf(out, "%-24s | %8llu | %9s | %9s | %9s | %8s |\n", name,
              (unsigned long long)g->kernels, "-", "-", "-", "-");
      continue;
    }
    signed_time(g->delay_median, median, sizeof median);
    signed_time(g->delay_mean, mean, sizeof mean);
    signed_time(g->delay_max, max, sizeof max);
    fprintf(out, "%-24s | %8llu | %9s | %9s | %9s | %8llu |\n", name,
            (unsigned long long)g->launched, median, mean, max,
            (unsigned long long)g->delay_outliers);
  }
}

void hta_free(struct hta_report *r) {
  free(r->gpus);
  memset(r, 0, sizeof *r);
}
