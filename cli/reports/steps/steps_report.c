/* steps_report: see steps_report.h. */
#include "steps_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "hta.h"
#include "spans.h"
#include "tracer_device.h"
#include "units.h"
#include "verdict.h"

enum command_class { CLASS_COMPUTE, CLASS_COMMUNICATION, CLASS_COPY };

struct kept_command {
  uint64_t start, end, call_start; /* trace clock; call_start 0: its call is unknown */
  uint32_t gpu;                    /* in gpus[] */
  uint8_t class;
};

struct kept_call {
  uint32_t process; /* in steps->processes */
  uint64_t start, ns;
};

struct gpu_key {
  uint32_t process;
  char backend[24];
  int device;
  char label[32]; /* "GPU 0" */
};

struct steps_reading {
  const struct steps *steps;
  struct gpu_key *gpus;
  size_t gpu_count;
  struct kept_command *commands;
  size_t command_count, command_cap;
  struct kept_call *calls;
  size_t call_count, call_cap;
  size_t last; /* the process found last */
  struct verdict_inputs verdict; /* the host's depth-0 calls made in steps */
  bool failed;
};

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

/* The index of the process in steps, -1 when it has no steps. */
static long process_index(struct steps_reading *r, int host, int64_t pid) {
  const struct steps *s = r->steps;
  if (r->last < s->count && s->processes[r->last].pid == pid &&
      s->processes[r->last].host == host)
    return s->processes[r->last].count ? (long)r->last : -1;
  for (size_t i = 0; i < s->count; i++)
    if (s->processes[i].pid == pid && s->processes[i].host == host) {
      r->last = i;
      return s->processes[i].count ? (long)i : -1;
    }
  return -1;
}

static long gpu_of(struct steps_reading *r, const struct gpu_key *key) {
  for (size_t i = 0; i < r->gpu_count; i++)
    if (r->gpus[i].process == key->process && r->gpus[i].device == key->device &&
        strcmp(r->gpus[i].backend, key->backend) == 0)
      return (long)i;
  struct gpu_key *grown = realloc(r->gpus, (r->gpu_count + 1) * sizeof *grown);
  if (!grown)
    return -1;
  r->gpus = grown;
  r->gpus[r->gpu_count] = *key;
  return (long)r->gpu_count++;
}

static int on_device(void *context, const struct trace_device *dev) {
  struct steps_reading *r = context;
  if (!dev->has_ids || dev->kind == TRACER_COMMAND_OTHER)
    return 0;
  long process = process_index(r, dev->from.host, dev->pid);
  if (process < 0)
    return 0;
  struct gpu_key key = {.process = (uint32_t)process, .device = dev->device};
  snprintf(key.backend, sizeof key.backend, "%s", dev->desc ? dev->desc->name : "unknown");
  device_label(key.backend, dev->device, NULL, key.label, sizeof key.label);
  long gpu = gpu_of(r, &key);
  struct kept_command c = {
      .start = dev->start_clock,
      .end = dev->end_clock > dev->start_clock ? dev->end_clock : dev->start_clock,
      .gpu = (uint32_t)gpu,
      .class = dev->kind == TRACER_COMMAND_TRANSFER ? CLASS_COPY
               : hta_is_communication(dev->name)    ? CLASS_COMMUNICATION
                                                    : CLASS_COMPUTE};
  /* The call's start on the trace clock, from the record's two clocks. */
  if (dev->call_tid > 0 && dev->call_start && dev->start) {
    double ticks = ((double)dev->call_start - (double)dev->start) / r->steps->ns_per_tick;
    double at = (double)dev->start_clock + ticks;
    c.call_start = at > 1 ? (uint64_t)at : 1;
  }
  if (gpu < 0 || !push((void **)&r->commands, &r->command_count, &r->command_cap, sizeof c, &c))
    r->failed = true;
  return 0;
}

/* Whether clock lies in one of p's steps. */
static bool in_a_step(const struct steps_process *p, uint64_t clock) {
  size_t lo = 0, hi = p->count; /* the first step that ends after clock */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->steps[mid].end <= clock)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < p->count && p->steps[lo].start <= clock;
}

static int on_call(void *context, const struct trace_call *c) {
  struct steps_reading *r = context;
  if (c->depth)
    return 0;
  long process = process_index(r, c->from.host, c->pid);
  if (process < 0)
    return 0;
  if (in_a_step(&r->steps->processes[process], c->start_clock))
    verdict_add_call(&r->verdict, c->desc, (uint32_t)c->function, c->duration_ns);
  if (c->desc->functions[c->function].message.kind != TRACER_MESSAGE_COLLECTIVE)
    return 0;
  struct kept_call k = {(uint32_t)process, c->start_clock, c->duration_ns};
  if (!push((void **)&r->calls, &r->call_count, &r->call_cap, sizeof k, &k))
    r->failed = true;
  return 0;
}

static void *reading_fork(void *context) {
  struct steps_reading *r = context, *w = calloc(1, sizeof *w);
  if (w)
    w->steps = r->steps;
  return w;
}

static int reading_join(void *context, void *worker) {
  struct steps_reading *r = context, *w = worker;
  r->failed |= w->failed;
  verdict_merge(&r->verdict, &w->verdict);
  for (size_t i = 0; i < w->command_count && !r->failed; i++) {
    struct kept_command c = w->commands[i];
    long gpu = gpu_of(r, &w->gpus[c.gpu]);
    c.gpu = (uint32_t)gpu;
    if (gpu < 0 || !push((void **)&r->commands, &r->command_count, &r->command_cap, sizeof c, &c))
      r->failed = true;
  }
  for (size_t i = 0; i < w->call_count && !r->failed; i++)
    if (!push((void **)&r->calls, &r->call_count, &r->call_cap, sizeof *w->calls, &w->calls[i]))
      r->failed = true;
  free(w->gpus);
  free(w->commands);
  free(w->calls);
  free(w);
  return 0;
}

int steps_read_open(const struct steps *steps, struct steps_reading **out,
                    struct trace_consumer *consumer, struct diag *d) {
  struct steps_reading *r = calloc(1, sizeof *r);
  if (!r)
    return diag_error(d, "Cannot analyse the steps: out of memory");
  r->steps = steps;
  *consumer = (struct trace_consumer){.name = "steps",
                                      .needs = TRACE_NEEDS_TIMES,
                                      .context = r,
                                      .fork = reading_fork,
                                      .join = reading_join,
                                      .call = on_call,
                                      .device = on_device};
  *out = r;
  return 0;
}

/* ---- the tables ---- */

static int by_gpu_then_start(const void *x, const void *y) {
  const struct kept_command *a = x, *b = y;
  if (a->gpu != b->gpu)
    return a->gpu < b->gpu ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

static int by_ns_desc(const void *x, const void *y) {
  const struct steps_row *a = x, *b = y;
  return a->ns > b->ns ? -1 : a->ns < b->ns;
}

static int by_value(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

static uint64_t clip(uint64_t v, uint64_t lo, uint64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* One step on one GPU: c[0, n) the GPU's commands in start order, busy[i] the latest end
 * of the commands before c[i], longest the longest command; room for 5 * n spans. */
static void step_on_gpu(const struct kept_command *c, size_t n, const uint64_t *busy,
                        uint64_t longest, uint64_t s, uint64_t e, struct span *room,
                        struct steps_row *row) {
  size_t lo = 0, hi = n; /* the first command that starts at or after s - longest */
  uint64_t from = s > longest ? s - longest : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c[mid].start < from)
      lo = mid + 1;
    else
      hi = mid;
  }
  struct spans all = {room, 0}, by_class[3] = {{room + n, 0}, {room + 2 * n, 0}, {room + 3 * n, 0}};
  struct spans busy_other = {room + 4 * n, 0};
  size_t first_after = n; /* the first command that starts at or after e */
  for (size_t i = lo; i < n; i++) {
    if (c[i].start >= e) {
      first_after = i;
      break;
    }
    if (c[i].end <= s)
      continue;
    uint64_t a = clip(c[i].start, s, e), b = clip(c[i].end, s, e);
    spans_add(&all, a, b);
    spans_add(&by_class[c[i].class], a, b);
    if (c[i].class != CLASS_COPY) {
      spans_add(&busy_other, a, b);
      row->kernels++;
    }
  }
  uint64_t comm = spans_length(&by_class[CLASS_COMMUNICATION]);
  row->compute = spans_length(&by_class[CLASS_COMPUTE]);
  row->comm_overlap = spans_common(&by_class[CLASS_COMMUNICATION], &by_class[CLASS_COMPUTE]);
  row->comm_all = comm;
  row->communication = comm - row->comm_overlap;
  row->copies = spans_length(&by_class[CLASS_COPY]) -
                spans_common(&by_class[CLASS_COPY], &busy_other);
  row->idle = (e - s) - spans_length(&all);
  /* Each idle gap of the step: host wait when the command that ends it was submitted by
   * a call that started after the GPU had run dry (HTA's idle time breakdown). */
  for (size_t g = 0; g <= all.count; g++) {
    uint64_t g0 = g ? all.at[g - 1].end : s, g1 = g < all.count ? all.at[g].start : e;
    if (g1 <= g0)
      continue;
    size_t j = lo;
    while (j < n && c[j].start < g1)
      j++;
    if (g == all.count)
      j = first_after;
    if (j < n && c[j].call_start && c[j].call_start > busy[j])
      row->host_wait += g1 - g0;
  }
}

static void to_ns(struct steps_row *row, double ns_per_tick) {
  uint64_t *fields[] = {&row->compute, &row->communication, &row->copies, &row->idle,
                        &row->host_wait, &row->comm_overlap, &row->comm_all};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    *fields[i] = (uint64_t)((double)*fields[i] * ns_per_tick + 0.5);
}

static void table_stats(struct steps_table *t) {
  uint64_t *ns = malloc((t->count + 1) * sizeof *ns);
  struct steps_row *sorted = malloc((t->count + 1) * sizeof *sorted);
  if (!ns || !sorted || !t->count) {
    free(ns);
    free(sorted);
    return;
  }
  t->least = UINT64_MAX;
  for (size_t i = 0; i < t->count; i++) {
    ns[i] = t->rows[i].ns;
    if (t->rows[i].ns < t->least)
      t->least = t->rows[i].ns, t->least_step = t->rows[i].number;
    if (t->rows[i].ns > t->most || i == 0)
      t->most = t->rows[i].ns, t->most_step = t->rows[i].number;
  }
  qsort(ns, t->count, sizeof *ns, by_value);
  t->median = t->count % 2 ? ns[t->count / 2] : (ns[t->count / 2 - 1] + ns[t->count / 2]) / 2;
  memcpy(sorted, t->rows, t->count * sizeof *sorted);
  qsort(sorted, t->count, sizeof *sorted, by_ns_desc);
  for (size_t i = 0; i < t->count && i < sizeof t->slowest / sizeof *t->slowest; i++)
    t->slowest[t->slowest_count++] = sorted[i].number;
  free(ns);
  free(sorted);
}

/* A table of process p's steps; on GPU gpu (-1: the host's figures only). */
static bool make_table(struct steps_reading *r, size_t p, long gpu, const struct kept_command *c,
                       size_t n, struct steps_table *t) {
  const struct steps *s = r->steps;
  const struct steps_process *proc = &s->processes[p];
  *t = (struct steps_table){.process = proc};
  if (gpu >= 0)
    snprintf(t->gpu, sizeof t->gpu, "%s", r->gpus[gpu].label);
  t->rows = calloc(proc->count + 1, sizeof *t->rows);
  struct span *room = malloc((5 * n + 1) * sizeof *room);
  uint64_t *busy = malloc((n + 1) * sizeof *busy);
  if (!t->rows || !room || !busy) {
    free(room);
    free(busy);
    return false;
  }
  uint64_t longest = 0, until = 0;
  for (size_t i = 0; i < n; i++) {
    busy[i] = until;
    if (c[i].end > until)
      until = c[i].end;
    if (c[i].end - c[i].start > longest)
      longest = c[i].end - c[i].start;
  }
  for (size_t k = 0; k < proc->count; k++) {
    const struct step *st = &proc->steps[k];
    struct steps_row *row = &t->rows[t->count++];
    *row = (struct steps_row){.number = st->number, .name = st->name, .ns = st->ns};
    if (gpu >= 0) {
      step_on_gpu(c, n, busy, longest, st->start, st->end, room, row);
      to_ns(row, s->ns_per_tick);
    }
    for (size_t i = 0; i < r->call_count; i++)
      if (r->calls[i].process == p && r->calls[i].start >= st->start &&
          r->calls[i].start < st->end)
        row->collectives_ns += r->calls[i].ns;
  }
  free(room);
  free(busy);
  table_stats(t);
  return true;
}

static bool add_table(struct steps_report *report, const struct steps_table *t) {
  struct steps_table *grown = realloc(report->tables, (report->count + 1) * sizeof *grown);
  if (!grown)
    return false;
  report->tables = grown;
  report->tables[report->count++] = *t;
  return true;
}

int steps_read_close(struct steps_reading *r, struct steps_report *report, struct diag *d) {
  memset(report, 0, sizeof *report);
  report->steps = r->steps;
  bool ok = !r->failed;
  if (r->command_count)
    qsort(r->commands, r->command_count, sizeof *r->commands, by_gpu_then_start);
  for (size_t p = 0; ok && p < r->steps->count; p++) {
    if (!r->steps->processes[p].count)
      continue;
    bool any_gpu = false;
    for (size_t i = 0; ok && i < r->command_count;) {
      size_t end = i;
      while (end < r->command_count && r->commands[end].gpu == r->commands[i].gpu)
        end++;
      if (r->gpus[r->commands[i].gpu].process == p) {
        struct steps_table t;
        any_gpu = true;
        ok = make_table(r, p, r->commands[i].gpu, &r->commands[i], end - i, &t) &&
             add_table(report, &t);
      }
      i = end;
    }
    if (ok && !any_gpu) {
      struct steps_table t;
      ok = make_table(r, p, -1, NULL, 0, &t) && add_table(report, &t);
    }
  }
  /* The verdict over the steps. */
  report->verdict = r->verdict;
  report->verdict.device_count = 0;
  for (size_t p = 0; p < r->steps->count; p++) {
    uint64_t total = 0;
    for (size_t k = 0; k < r->steps->processes[p].count; k++)
      total += r->steps->processes[p].steps[k].ns;
    if (total > report->verdict.wall_ns)
      report->verdict.wall_ns = total;
  }
  for (size_t i = 0; i < report->count && report->verdict.device_count < VERDICT_DEVICES; i++) {
    const struct steps_table *t = &report->tables[i];
    if (!t->gpu[0])
      continue;
    struct verdict_device *v = &report->verdict.devices[report->verdict.device_count++];
    char who[48];
    if (t->process->rank >= 0)
      snprintf(who, sizeof who, "rank %ld", t->process->rank);
    else
      snprintf(who, sizeof who, "pid %" PRId64, t->process->pid);
    snprintf(v->name, sizeof v->name, "%s of %s", t->gpu, who);
    for (size_t k = 0; k < t->count; k++) {
      const struct steps_row *row = &t->rows[k];
      v->busy += row->ns > row->idle ? row->ns - row->idle : 0;
      v->kernels += row->compute + row->communication;
      v->communication += row->comm_all;
      v->copies += row->copies;
    }
  }
  report->has_verdict = report->count > 0;
  free(r->gpus);
  free(r->commands);
  free(r->calls);
  free(r);
  return ok ? 0 : diag_error(d, "Cannot analyse the steps: out of memory");
}

/* ---- printing ---- */

static void share(uint64_t part, uint64_t whole, char *out, size_t size) {
  snprintf(out, size, "%.1f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

static void process_name(const struct steps_process *p, char *out, size_t size) {
  if (p->rank >= 0)
    snprintf(out, size, "rank %ld (pid %" PRId64 ")", p->rank, p->pid);
  else
    snprintf(out, size, "pid %" PRId64, p->pid);
}

enum { STEPS_SHOWN = 40, STEPS_SLOWEST_SHOWN = 20 };

static void print_table(const struct steps_table *t, FILE *out) {
  char who[64], median[32], least[32], most[32];
  process_name(t->process, who, sizeof who);
  units_time(t->median, median, sizeof median);
  units_time(t->least, least, sizeof least);
  units_time(t->most, most, sizeof most);
  fprintf(out, "\nSteps of %s%s%s: %zu x %s | median %s | least %s (step %u) | most %s (step "
               "%u) | slowest:",
          who, t->gpu[0] ? " on " : "", t->gpu, t->count, t->process->what, median, least,
          t->least_step, most, t->most_step);
  for (size_t i = 0; i < t->slowest_count; i++)
    fprintf(out, "%s %u", i ? "," : "", t->slowest[i]);
  fputs(" |\n\n", out);
  /* Many steps: the slowest, in step order. */
  uint64_t shown_over = 0;
  if (t->count > STEPS_SHOWN) {
    uint64_t *ns = malloc(t->count * sizeof *ns);
    if (ns) {
      for (size_t i = 0; i < t->count; i++)
        ns[i] = t->rows[i].ns;
      qsort(ns, t->count, sizeof *ns, by_value);
      shown_over = ns[t->count - STEPS_SLOWEST_SHOWN];
      free(ns);
    }
  }
  if (t->gpu[0])
    fprintf(out, "%6s | %-20s | %10s | %7s | %6s | %6s | %6s | %9s | %7s | %11s |\n", "Step",
            "Name", "Time", "Compute", "Comm", "Copies", "Idle", "Host wait", "Overlap",
            "Collectives");
  else
    fprintf(out, "%6s | %-20s | %10s | %11s |\n", "Step", "Name", "Time", "Collectives");
  for (size_t i = 0; i < t->count; i++) {
    const struct steps_row *r = &t->rows[i];
    if (r->ns < shown_over)
      continue;
    char time[32], coll[32], compute[16], comm[16], copies[16], idle[16], wait[16], overlap[16];
    units_time(r->ns, time, sizeof time);
    units_time(r->collectives_ns, coll, sizeof coll);
    if (!t->gpu[0]) {
      fprintf(out, "%6u | %-20.20s | %10s | %11s |\n", r->number, r->name, time, coll);
      continue;
    }
    share(r->compute, r->ns, compute, sizeof compute);
    share(r->communication, r->ns, comm, sizeof comm);
    share(r->copies, r->ns, copies, sizeof copies);
    share(r->idle, r->ns, idle, sizeof idle);
    share(r->host_wait, r->ns, wait, sizeof wait);
    if (r->comm_all)
      share(r->comm_overlap, r->comm_all, overlap, sizeof overlap);
    else
      snprintf(overlap, sizeof overlap, "-");
    fprintf(out, "%6u | %-20.20s | %10s | %7s | %6s | %6s | %6s | %9s | %7s | %11s |\n",
            r->number, r->name, time, compute, comm, copies, idle, wait, overlap, coll);
  }
  if (shown_over)
    fprintf(out, "(the %d slowest of %zu steps; -j lists them all)\n", STEPS_SLOWEST_SHOWN,
            t->count);
}

void steps_print_text(const struct steps_report *report, FILE *out) {
  if (!report->count) {
    if (report->steps && report->steps->pattern)
      fprintf(out, "\nSteps: no region matches %s.\n", report->steps->pattern);
    else
      fputs("\nSteps: none found, no region repeats in this run; mark each step with a "
            "region (NVTX nvtxRangePushA/nvtxRangePop, ITT __itt_task_begin/__itt_task_end, "
            "PyTorch torch.cuda.nvtx.range or torch.profiler.itt.range): docs/steps.md\n",
            out);
    return;
  }
  fputs("\nSteps per rank (HTA's definitions over each step's time) | docs/steps.md |\n", out);
  steps_print_tables(report, out);
}

void steps_print_tables(const struct steps_report *report, FILE *out) {
  for (size_t i = 0; i < report->count; i++)
    print_table(&report->tables[i], out);
}

void steps_print_json(const struct steps_report *report, FILE *out) {
  fputc('[', out);
  size_t printed = 0;
  steps_print_json_tables(report, &printed, out);
  fputs("\n  ]", out);
}

void steps_print_json_tables(const struct steps_report *report, size_t *printed, FILE *out) {
  for (size_t i = 0; i < report->count; i++) {
    const struct steps_table *t = &report->tables[i];
    const struct steps_process *p = t->process;
    fprintf(out, "%s\n    {\"host\": ", (*printed)++ ? "," : "");
    units_json_string(out, p->host_name);
    fprintf(out, ", \"pid\": %" PRId64 ", \"rank\": %ld, \"gpu\": ", p->pid, p->rank);
    if (t->gpu[0])
      units_json_string(out, t->gpu);
    else
      fputs("null", out);
    fputs(", \"what\": ", out);
    units_json_string(out, p->what);
    fprintf(out,
            ", \"count\": %zu, \"median_ns\": %" PRIu64 ", \"least_ns\": %" PRIu64
            ", \"least_step\": %u, \"most_ns\": %" PRIu64 ", \"most_step\": %u, \"slowest\": [",
            t->count, t->median, t->least, t->least_step, t->most, t->most_step);
    for (size_t k = 0; k < t->slowest_count; k++)
      fprintf(out, "%s%u", k ? ", " : "", t->slowest[k]);
    fputs("],\n     \"steps\": [", out);
    for (size_t k = 0; k < t->count; k++) {
      const struct steps_row *r = &t->rows[k];
      fprintf(out, "%s\n      {\"step\": %u, \"name\": ", k ? "," : "", r->number);
      units_json_string(out, r->name);
      fprintf(out, ", \"ns\": %" PRIu64 ", \"collectives_ns\": %" PRIu64, r->ns,
              r->collectives_ns);
      if (t->gpu[0])
        fprintf(out,
                ", \"compute_ns\": %" PRIu64 ", \"communication_ns\": %" PRIu64
                ", \"copies_ns\": %" PRIu64 ", \"idle_ns\": %" PRIu64 ", \"host_wait_ns\": %" PRIu64
                ", \"comm_overlap_ns\": %" PRIu64 ", \"comm_ns\": %" PRIu64 ", \"kernels\": %" PRIu64,
                r->compute, r->communication, r->copies, r->idle, r->host_wait, r->comm_overlap,
                r->comm_all, r->kernels);
      fputc('}', out);
    }
    fputs("]}", out);
  }
}

void steps_report_free(struct steps_report *report) {
  for (size_t i = 0; i < report->count; i++)
    free(report->tables[i].rows);
  free(report->tables);
  memset(report, 0, sizeof *report);
}
