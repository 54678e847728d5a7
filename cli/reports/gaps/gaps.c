/* gaps: see gaps.h. */
#include "gaps.h"

#include "hta.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "device_label.h"
#include "tracer_runtime.h"
#include "units.h"

enum { REORDER_WINDOW = 1 << 16, GAPS_PREFETCH = 64 };

/* The union of intervals that come in start order: one open block at a time. */
struct union_time {
  bool open;
  uint64_t start, end, total;
};

/* Adds [s, e]; returns the idle span it closes (0 when none), from *gap_start. */
static uint64_t union_add(struct union_time *u, uint64_t s, uint64_t e, uint64_t *gap_start) {
  uint64_t gap = 0;
  if (u->open && s > u->end) {
    u->total += u->end - u->start;
    gap = s - u->end;
    *gap_start = u->end;
    u->open = false;
  }
  if (!u->open) {
    u->open = true;
    u->start = s;
    u->end = e;
  } else if (e > u->end) {
    u->end = e;
  }
  return gap;
}

static void union_close(struct union_time *u) {
  if (u->open)
    u->total += u->end - u->start;
  u->open = false;
}

struct queue_state {
  uint64_t id;
  int64_t pid;
  struct union_time busy;
  uint64_t commands;
};

struct device_state {
  int host;                    /* trace_source.host */
  const char *host_name;       /* the trace's own string (trace_source.host_name) */
  const char *backend;
  int ordinal;                 /* trace_device.device */
  char label[DEVICE_LABEL_SIZE];
  struct union_time all, kernels, copies, either, communication;
  struct queue_state *queues;
  size_t queue_count;
  struct gap gaps[GAPS_KEPT];
  bool uncertain[GAPS_KEPT];   /* its call is for a pass over the calls to find */
  size_t gap_count;
  uint64_t latest_middle;      /* of the gaps kept: a call that starts after it spans none */
  uint64_t commands;
  uint64_t last_start;         /* of the last command taken in start order */
  bool any;
};

struct pending {
  uint64_t start, end;
  size_t device;
  uint64_t queue;
  int64_t pid;
  int kind;
  bool communication; /* a communication kernel (hta_is_communication) */
};

/* A call read, kept for the gaps found after it. key: the greatest event time read so
 * far, which never decreases, so the calls that end after a time t are among those kept
 * from the first key >= t on. */
struct past_call {
  uint64_t key, start, end;
  const struct tracer_backend_desc *desc;
  int32_t function;
  int32_t host;   /* trace_source.host */
  int32_t pid, tid;
};

/* Which pass the analysis is in (see gaps.h). */
enum pass {
  PASS_ONE,          /* commands with early taking, calls with the history */
  PASS_COMMANDS,     /* commands taken only when the heap is full, as in two steps */
  PASS_CALLS,        /* the calls again, for the gaps marked uncertain */
};

struct gaps {
  enum pass pass;
  struct device_state *devices;
  size_t device_count;
  struct pending *heap;        /* min-heap by start; REORDER_WINDOW; owned */
  size_t heap_count;
  uint64_t latest_lateness;    /* the most a command came after its start, ns */
  bool out_of_order;           /* a command came after one that started later */
  /* The calls kept: a ring that grows to GAPS_HISTORY, oldest at history_head. */
  struct past_call *history;   /* owned */
  size_t history_head, history_count, history_cap;
  uint64_t key;                /* the greatest event time read */
  bool dropped;                /* calls left the history for room: up to its oldest key */
  uint64_t forgotten_end;      /* the latest end of the calls forgotten as too old */
  uint64_t horizon;            /* no gap to come of a device seen starts before it */
  uint64_t run_start, run_end;
  bool failed;                 /* out of memory */
};

static size_t device_index(struct gaps *a, int host, const char *host_name, const char *backend,
                           const struct trace_device *dev) {
  for (size_t i = 0; i < a->device_count; i++)
    if (a->devices[i].host == host && a->devices[i].ordinal == dev->device &&
        strcmp(a->devices[i].backend, backend) == 0)
      return i;
  struct device_state *grown = realloc(a->devices, (a->device_count + 1) * sizeof *grown);
  if (!grown)
    return SIZE_MAX;
  a->devices = grown;
  struct device_state *d = &a->devices[a->device_count];
  memset(d, 0, sizeof *d);
  d->host = host;
  d->host_name = host_name;
  d->backend = backend;
  d->ordinal = dev->device;
  device_label(backend, dev->device, dev->device_name, d->label, sizeof d->label);
  a->horizon = 0; /* until it has a command taken, its gaps may start anywhere */
  return a->device_count++;
}

/* The call the host was in at the gap's middle, from the calls kept: the shortest that
 * spans it, the first read of those as long; uncertain when calls that might span it
 * have left the history. */
static void find_host_call(struct gaps *a, struct device_state *d, size_t at) {
  struct gap *gap = &d->gaps[at];
  uint64_t middle = gap->start + (gap->end - gap->start) / 2;
  /* The calls that left for room had keys up to the oldest one kept; those forgotten as
   * too old ended before any gap of the devices seen then (a device seen later may
   * have one). */
  d->uncertain[at] = (a->dropped && middle <= a->history[a->history_head].key) ||
                     middle <= a->forgotten_end;
  if (d->uncertain[at])
    return;
  const struct past_call *best = NULL;
  for (size_t k = 0; k < a->history_count; k++) {
    const struct past_call *c =
        &a->history[(a->history_head + a->history_count - 1 - k) & (a->history_cap - 1)];
    if (c->key < middle)
      break;
    if (c->host != d->host || c->start > middle || c->end < middle)
      continue;
    if (!best || c->end - c->start <= best->end - best->start)
      best = c; /* newest first: an equal one read earlier wins */
  }
  if (!best)
    return;
  snprintf(gap->host_call, sizeof gap->host_call, "%s",
           best->desc->functions[best->function].name);
  gap->host_pid = best->pid;
  gap->host_tid = best->tid;
  gap->call_length = best->end - best->start;
}

/* The GAPS_KEPT longest, longest first; a new one looks for its call. */
static void keep_gap(struct gaps *a, struct device_state *d, uint64_t start, uint64_t length) {
  size_t n = d->gap_count;
  if (n == GAPS_KEPT) {
    if (d->gaps[n - 1].end - d->gaps[n - 1].start >= length)
      return;
    n--; /* the shortest makes room */
  }
  size_t at = n;
  while (at > 0 && d->gaps[at - 1].end - d->gaps[at - 1].start < length) {
    d->gaps[at] = d->gaps[at - 1];
    d->uncertain[at] = d->uncertain[at - 1];
    at--;
  }
  memset(&d->gaps[at], 0, sizeof d->gaps[at]);
  d->gaps[at].start = start;
  d->gaps[at].end = start + length;
  d->gap_count = n + 1;
  d->latest_middle = 0;
  for (size_t g = 0; g < d->gap_count; g++) {
    uint64_t middle = d->gaps[g].start + (d->gaps[g].end - d->gaps[g].start) / 2;
    d->latest_middle = middle > d->latest_middle ? middle : d->latest_middle;
  }
  if (a->pass == PASS_ONE)
    find_host_call(a, d, at);
  else
    d->uncertain[at] = true; /* PASS_COMMANDS: every call is for the next pass */
}

/* The earliest a gap still to come of the devices seen can start: the least of their
 * busy ends (0 while one has had no command yet). */
static uint64_t gap_horizon(const struct gaps *a) {
  uint64_t least = UINT64_MAX;
  for (size_t i = 0; i < a->device_count; i++) {
    const struct device_state *d = &a->devices[i];
    uint64_t end = d->all.open ? d->all.end : 0;
    least = end < least ? end : least;
  }
  return a->device_count ? least : 0;
}

static void consume(struct gaps *a, const struct pending *p) {
  struct device_state *d = &a->devices[p->device];
  if (d->any && p->start < d->last_start)
    a->out_of_order = true;
  d->any = true;
  d->last_start = p->start;
  uint64_t gap_start = 0, gap = union_add(&d->all, p->start, p->end, &gap_start);
  if (gap)
    keep_gap(a, d, gap_start, gap);
  uint64_t ignored;
  if (p->kind == TRACER_COMMAND_KERNEL)
    union_add(&d->kernels, p->start, p->end, &ignored);
  if (p->kind == TRACER_COMMAND_KERNEL && p->communication)
    union_add(&d->communication, p->start, p->end, &ignored);
  if (p->kind == TRACER_COMMAND_TRANSFER)
    union_add(&d->copies, p->start, p->end, &ignored);
  if (p->kind == TRACER_COMMAND_KERNEL || p->kind == TRACER_COMMAND_TRANSFER)
    union_add(&d->either, p->start, p->end, &ignored);
  d->commands++;
  struct queue_state *q = NULL;
  for (size_t i = 0; i < d->queue_count && !q; i++)
    if (d->queues[i].id == p->queue && d->queues[i].pid == p->pid)
      q = &d->queues[i];
  if (!q) {
    struct queue_state *grown = realloc(d->queues, (d->queue_count + 1) * sizeof *grown);
    if (!grown) {
      a->failed = true;
      return;
    }
    d->queues = grown;
    q = &d->queues[d->queue_count++];
    memset(q, 0, sizeof *q);
    q->id = p->queue;
    q->pid = p->pid;
  }
  union_add(&q->busy, p->start, p->end, &ignored);
  q->commands++;
  a->horizon = gap_horizon(a);
}

static struct pending heap_pop(struct gaps *a) {
  struct pending *h = a->heap, top = h[0], last = h[--a->heap_count];
  size_t at = 0, n = a->heap_count;
  for (;;) {
    size_t c = 2 * at + 1;
    if (c >= n)
      break;
    if (c + 1 < n && h[c + 1].start < h[c].start)
      c++;
    if (h[c].start >= last.start)
      break;
    h[at] = h[c];
    at = c;
  }
  if (n)
    h[at] = last;
  return top;
}

static void take_from_heap(struct gaps *a) {
  struct pending p = heap_pop(a);
  consume(a, &p);
}

static int on_device(void *context, const struct trace_device *dev) {
  struct gaps *a = context;
  if (a->pass == PASS_CALLS || !dev->has_ids)
    return 0;
  size_t device = device_index(a, dev->from.host, dev->from.host_name,
                               dev->desc ? dev->desc->name : "unknown", dev);
  if (device == SIZE_MAX) {
    a->failed = true;
    return 0;
  }
  if (a->heap_count == REORDER_WINDOW)
    take_from_heap(a);
  struct pending p = {dev->start, dev->end > dev->start ? dev->end : dev->start, device,
                      dev->queue, dev->pid, dev->kind, hta_is_communication(dev->name)};
  size_t at = a->heap_count++;
  while (at > 0 && a->heap[(at - 1) / 2].start > p.start) {
    a->heap[at] = a->heap[(at - 1) / 2];
    at = (at - 1) / 2;
  }
  a->heap[at] = p;
  if (a->pass != PASS_ONE)
    return 0;
  /* Those that started well before the read position: nothing still to come should
   * start before them. */
  uint64_t now = dev->from.time;
  if (now > dev->start && now - dev->start > a->latest_lateness)
    a->latest_lateness = now - dev->start;
  uint64_t margin = 2 * a->latest_lateness > GAPS_MARGIN_NS ? 2 * a->latest_lateness
                                                              : GAPS_MARGIN_NS;
  while (a->heap_count && a->heap[0].start + margin < now)
    take_from_heap(a);
  return 0;
}

/* Keeps a call for the gaps still to be found: first forgets those that ended before any
 * gap to come, then makes room (the ring grows to GAPS_HISTORY, then drops its oldest). */
static int remember(struct gaps *a, const struct trace_call *c) {
  if (c->from.time > a->key)
    a->key = c->from.time;
  /* No end is before a horizon of 0 (no device seen, or one with no command taken yet):
   * the oldest call, a cache miss away in a full ring, is not read then. */
  while (a->horizon && a->history_count && a->history[a->history_head].end < a->horizon) {
    struct past_call *old = &a->history[a->history_head];
    a->forgotten_end = old->end > a->forgotten_end ? old->end : a->forgotten_end;
    a->history_head = (a->history_head + 1) & (a->history_cap - 1);
    a->history_count--;
  }
  if (a->history_count == a->history_cap && a->history_cap < GAPS_HISTORY) {
    size_t cap = a->history_cap ? 2 * a->history_cap : 4096;
    struct past_call *grown = malloc(cap * sizeof *grown);
    if (!grown) {
      a->failed = true;
      return -1;
    }
    for (size_t k = 0; k < a->history_count; k++) /* unwrapped, oldest first */
      grown[k] = a->history[(a->history_head + k) & (a->history_cap - 1)];
    free(a->history);
    a->history = grown;
    a->history_cap = cap;
    a->history_head = 0;
  }
  if (a->history_count == a->history_cap) {
    a->dropped = true; /* the oldest leaves */
    a->history_head = (a->history_head + 1) & (a->history_cap - 1);
    a->history_count--;
  }
  size_t at = (a->history_head + a->history_count++) & (a->history_cap - 1);
  /* The slot 64 calls on (3 KiB), asked for now into every cache level: on a trace
   * without device work every call stays till the full ring drops it, and the ring is
   * larger than the caches, so each slot written was a cache miss. (A non-temporal
   * prefetch 32 calls on did not help; this took 0.29 s of CPU off 10M calls.) */
  __builtin_prefetch(&a->history[(at + GAPS_PREFETCH) & (a->history_cap - 1)], 1, 3);
  a->history[at] = (struct past_call){a->key, c->start, c->end, c->desc, c->function,
                                      c->from.host, (int32_t)c->pid, (int32_t)c->tid};
  return 0;
}

/* The call's part: in the first pass, kept for the gaps still to be found, and given to
 * those found; in the pass over calls, to the uncertain ones. */
static int on_call(void *context, const struct trace_call *c) {
  struct gaps *a = context;
  if (a->pass == PASS_COMMANDS)
    return 0;
  if (a->pass == PASS_ONE && remember(a, c))
    return -1;
  for (size_t i = 0; i < a->device_count; i++) {
    struct device_state *d = &a->devices[i];
    if (d->host != c->from.host || c->start > d->latest_middle)
      continue;
    for (size_t g = 0; g < d->gap_count; g++) {
      struct gap *gap = &d->gaps[g];
      uint64_t middle = gap->start + (gap->end - gap->start) / 2;
      uint64_t length = c->end - c->start;
      if ((a->pass == PASS_CALLS && !d->uncertain[g]) || c->start > middle ||
          c->end < middle || (gap->host_call[0] && gap->call_length <= length))
        continue;
      snprintf(gap->host_call, sizeof gap->host_call, "%s", c->desc->functions[c->function].name);
      gap->host_pid = c->pid;
      gap->host_tid = c->tid;
      gap->call_length = length;
    }
  }
  return 0;
}

static void forget_devices(struct gaps *a) {
  for (size_t i = 0; i < a->device_count; i++)
    free(a->devices[i].queues);
  free(a->devices);
  a->devices = NULL;
  a->device_count = 0;
  a->heap_count = 0;
}

/* The end of a pass: the commands left in the heap, then what the next pass is for. */
static int on_finish(void *context, const struct trace_summary *summary) {
  struct gaps *a = context;
  if (a->pass == PASS_ONE) {
    a->run_start = summary->first;
    a->run_end = summary->last;
  }
  while (a->pass != PASS_CALLS && a->heap_count)
    take_from_heap(a);
  if (a->failed || a->pass == PASS_CALLS)
    return 0;
  if (a->pass == PASS_ONE && a->out_of_order) {
    forget_devices(a); /* the commands again, in start order as far as the heap holds */
    a->pass = PASS_COMMANDS;
    return TRACE_READ_AGAIN;
  }
  bool uncertain = false;
  for (size_t i = 0; i < a->device_count; i++)
    for (size_t g = 0; g < a->devices[i].gap_count; g++)
      if (a->devices[i].uncertain[g]) {
        memset(a->devices[i].gaps[g].host_call, 0, sizeof a->devices[i].gaps[g].host_call);
        a->devices[i].gaps[g].call_length = 0;
        uncertain = true;
      }
  if (!uncertain)
    return 0;
  a->pass = PASS_CALLS;
  return TRACE_READ_AGAIN;
}

int gaps_open(struct gaps **out, struct trace_consumer *consumer, struct diag *d) {
  struct gaps *a = calloc(1, sizeof *a);
  *out = a;
  if (a) {
    a->heap = malloc(REORDER_WINDOW * sizeof *a->heap);
  }
  if (!a || !a->heap) {
    if (a) {
      free(a->heap);
      free(a->history);
    }
    free(a);
    *out = NULL;
    return diag_error(d, "Cannot analyse the gaps: out of memory");
  }
  *consumer = (struct trace_consumer){.name = "gaps",
                                      .needs = TRACE_NEEDS_ORDER | TRACE_NEEDS_TIMES,
                                      .context = a,
                                      .call = on_call,
                                      .device = on_device,
                                      .finish = on_finish};
  return 0;
}

int gaps_close(struct gaps *a, struct gap_report *report, struct diag *d) {
  memset(report, 0, sizeof *report);
  if (!a)
    return -1;
  report->run_start = a->run_start;
  report->run_end = a->run_end;
  report->devices = calloc(a->device_count ? a->device_count : 1, sizeof *report->devices);
  for (size_t i = 0; i < a->device_count; i++) {
    struct device_state *s = &a->devices[i];
    struct gap_device *out = &report->devices[i];
    union_close(&s->all);
    union_close(&s->kernels);
    union_close(&s->copies);
    union_close(&s->either);
    union_close(&s->communication);
    if (!report->devices || !(out->host = strdup(s->host_name)))
      continue;
    out->backend = s->backend;
    out->ordinal = s->ordinal;
    memcpy(out->label, s->label, sizeof out->label);
    out->busy = s->all.total;
    out->kernels = s->kernels.total;
    out->communication = s->communication.total;
    out->copies = s->copies.total;
    out->overlap = s->kernels.total + s->copies.total - s->either.total;
    out->commands = s->commands;
    out->gap_count = s->gap_count;
    memcpy(out->gaps, s->gaps, sizeof s->gaps);
    out->queues = calloc(s->queue_count ? s->queue_count : 1, sizeof *out->queues);
    for (size_t q = 0; out->queues && q < s->queue_count; q++) {
      union_close(&s->queues[q].busy);
      out->queues[q] = (struct gap_queue){s->queues[q].id, s->queues[q].busy.total,
                                          s->queues[q].commands, s->queues[q].pid};
    }
    out->queue_count = out->queues ? s->queue_count : 0;
    report->device_count++;
  }
  bool failed = a->failed || !report->devices || report->device_count < a->device_count;
  forget_devices(a);
  free(a->heap);
  free(a->history);
  free(a);
  return failed ? diag_error(d, "Cannot analyse the gaps: out of memory") : 0;
}

void gaps_print_text(const struct gap_report *r, FILE *out) {
  uint64_t wall = r->run_end > r->run_start ? r->run_end - r->run_start : 0;
  for (size_t i = 0; i < r->device_count; i++) {
    const struct gap_device *d = &r->devices[i];
    char busy[32], length[32], at[48], kernels[32], copies[32], overlap[32], wall_text[32];
    char label[64];
    snprintf(label, sizeof label, "%s", d->backend);
    for (char *p = label; *p; p++)
      *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    units_time(wall, wall_text, sizeof wall_text);
    units_time(d->busy, busy, sizeof busy);
    fprintf(out, "\nDevice use (%s) | %s on %s | run %s |\n\n", label, d->label, d->host,
            wall_text);
    fprintf(out, "%-32s | %9s | %11s | %8s |\n", "Queue", "Busy", "Utilisation", "Commands");
    fprintf(out, "%-32s | %9s | %10.2f%% | %8llu |\n", "all queues", busy,
            wall ? 100.0 * (double)d->busy / (double)wall : 0.0, (unsigned long long)d->commands);
    for (size_t q = 0; q < d->queue_count; q++) {
      char name[DEVICE_QUEUE_LABEL_SIZE];
      device_queue_label(d->queues[q].id, d->queues[q].pid, name, sizeof name);
      units_time(d->queues[q].busy, busy, sizeof busy);
      fprintf(out, "%-32s | %9s | %10.2f%% | %8llu |\n", name, busy,
              wall ? 100.0 * (double)d->queues[q].busy / (double)wall : 0.0,
              (unsigned long long)d->queues[q].commands);
    }
    units_time(d->kernels, kernels, sizeof kernels);
    units_time(d->copies, copies, sizeof copies);
    units_time(d->overlap, overlap, sizeof overlap);
    fprintf(out, "\nCopies overlapping kernels: %s (%.2f%% of copy time %s; kernels ran %s)\n",
            overlap, d->copies ? 100.0 * (double)d->overlap / (double)d->copies : 0.0, copies,
            kernels);
    if (!d->gap_count) {
      fprintf(out, "\nNo idle gap between device commands.\n");
      continue;
    }
    fprintf(out, "\nLongest idle gaps | %zu |\n\n", d->gap_count);
    fprintf(out, "%2s | %12s | %9s | %s\n", "#", "Start", "Length", "Host was in");
    for (size_t g = 0; g < d->gap_count; g++) {
      const struct gap *gap = &d->gaps[g];
      units_time(gap->end - gap->start, length, sizeof length);
      char offset[32];
      units_time(gap->start - r->run_start, offset, sizeof offset);
      snprintf(at, sizeof at, "+%s", offset);
      fprintf(out, "%2zu | %12s | %9s | ", g + 1, at, length);
      if (gap->host_call[0])
        fprintf(out, "%s (pid %" PRId64 ", tid %" PRId64 ")\n", gap->host_call, gap->host_pid,
                gap->host_tid);
      else
        fprintf(out, "no traced call (the app's own code)\n");
    }
  }
}

void gaps_free(struct gap_report *r) {
  for (size_t i = 0; i < r->device_count; i++) {
    free(r->devices[i].host);
    free(r->devices[i].queues);
  }
  free(r->devices);
  memset(r, 0, sizeof *r);
}
